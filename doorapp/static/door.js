// The door screen of one meetup (#/meetups/{meetup_id}): live counters, search as you type, keyboard
// check-in, ban override, undo with a reason, walk-ins and sync. The list is polled every second with
// If-None-Match, so a check-in, finalize, ban or sync anywhere shows here within two seconds. Check-ins,
// walk-ins and undos go through queue.js: a blip delays them, never loses or doubles them. The list as
// last seen is kept in localStorage, so the door keeps working (and reloads, where a service worker keeps
// the shell) while the network is down.
import { api, ApiProblem, isOffline } from "./api.js";
import { ask, clear, formatDate, formatTime, h, toast } from "./dom.js";
import { formatNumber, problemText, t } from "./i18n.js";
import { rowBadges } from "./badges.js";
import { DoorList, FILTERS, idOf, named } from "./doorlist.js";
import * as queue from "./queue.js";
import { isOrgAdmin, LAST_LIST as LAST, orgPath, platformInfo, session, setOrg } from "./session.js";

const POLL_MS = 1000;
const SHOWN = 60; // rows rendered at once; typing narrows the rest down

// The org of a meetup named only by its id: the current org first, then the others this user can see.
async function findMeetup(meetupId) {
  const orgs = [session.org, ...session.orgs.filter((o) => o !== session.org)].filter(Boolean);
  for (const org of orgs) {
    try {
      const meetup = await api.get(orgPath(`/meetups/${meetupId}`, org));
      if (session.org !== org) setOrg(org.id);
      return meetup;
    } catch (error) {
      if (error.status !== 404 && error.status !== 403) throw error;
    }
  }
  return null;
}

// The meetup and its list as this device saw them last, when that was this meetup.
function lastSeen(meetupId) {
  try {
    const last = JSON.parse(localStorage.getItem(LAST) || "null");
    return last && last.meetup.id === meetupId ? last : null;
  } catch {
    return null;
  }
}

export async function screen(view, [meetupId], ctx) {
  let meetup, last = null;
  try {
    meetup = await findMeetup(meetupId);
  } catch (error) {
    last = error.status === 0 ? lastSeen(meetupId) : null;
    if (!last) throw error;
    meetup = last.meetup;
  }
  ctx.renderTop();
  if (!meetup) {
    view.append(h("section", { class: "panel" }, h("h1", {}, t("door.notFound")),
      h("p", {}, t("door.notFoundText")),
      h("a", { class: "button secondary", href: "#/meetups" }, t("door.backToMeetups"))));
    return;
  }
  new DoorScreen(view, meetup, ctx, last || lastSeen(meetupId)).start();
}

class DoorScreen {
  constructor(view, meetup, ctx, last) {
    this.view = view;
    this.meetup = meetup;
    this.ctx = ctx;
    this.base = orgPath(`/meetups/${meetup.id}`);
    this.state = new DoorList();
    this.etag = null;
    this.loaded = false;
    if (last) { // the list as last seen shows at once; the first poll replaces it
      this.state.load(last.list);
      this.etag = last.etag;
      this.loaded = true;
    }
    this.filter = "all";
    this.results = [];
    this.selectedId = null;
    this.chosen = false; // the selection was moved by the user (arrows, a tap): Enter acts on it
    this.live = new Set(); // queue items this screen is waiting on (it tells their outcome itself)
    this.fetchId = 0; // stale-response guard: answers to requests older than `floor` are dropped
    this.floor = 0;
    this.polling = false;
    this.pollError = null;
  }

  start() {
    document.title = t("door.pageTitle", { name: this.meetup.name });
    document.body.dataset.screen = "door";
    this.build();
    this.renderCounters();
    this.renderResults();
    this.poll();
    const timer = setInterval(() => this.poll(), POLL_MS);
    const keys = (event) => this.onKey(event);
    const visible = () => { if (!document.hidden) this.poll(); };
    const queued = (event) => this.onQueue(event.detail);
    const network = () => this.renderNetwork();
    document.addEventListener("keydown", keys);
    document.addEventListener("visibilitychange", visible);
    window.addEventListener("door:queue", queued);
    window.addEventListener("door:offline", network);
    window.addEventListener("door:online", network);
    this.ctx.leave.push(() => {
      clearInterval(timer);
      document.removeEventListener("keydown", keys);
      document.removeEventListener("visibilitychange", visible);
      window.removeEventListener("door:queue", queued);
      window.removeEventListener("door:offline", network);
      window.removeEventListener("door:online", network);
      document.title = t("app.title");
      delete document.body.dataset.screen;
    });
  }

  // --- layout ---------------------------------------------------------------------------------------

  build() {
    this.head = h("div", { class: "door-head" });
    this.syncSlot = h("div", { class: "sync-slot", "aria-live": "polite" });
    this.counters = h("div", { class: "counters", "aria-live": "polite" });
    this.actions = h("div", { class: "actions", id: "door-actions" });
    // on a phone the actions fold behind one button (app.css), so the counters keep their line
    const toggle = h("button", { type: "button", class: "secondary menu-toggle", "aria-label": t("door.actions"),
      "aria-expanded": "false", "aria-controls": "door-actions",
      onclick: () => toggle.setAttribute("aria-expanded", String(this.actions.classList.toggle("open"))) }, "⋯");
    this.actions.addEventListener("click", (event) => {
      if (event.target.closest("button")) {
        this.actions.classList.remove("open");
        toggle.setAttribute("aria-expanded", "false");
      }
    });
    this.menu = toggle;
    this.network = h("div", { class: "network", role: "status" });
    this.search = h("input", { type: "search", class: "door-search", placeholder: t("door.searchPlaceholder"),
      autocomplete: "off", autocapitalize: "none", spellcheck: "false", enterkeyhint: "go",
      "aria-label": t("door.searchLabel"), "aria-controls": "door-results" });
    this.search.addEventListener("input", () => this.flushSearch());
    this.chips = h("div", { class: "chips", role: "radiogroup", "aria-label": t("door.show") },
      FILTERS.map(([value, key]) => h("button", { type: "button", class: "chip", role: "radio", dataset: { filter: value },
        "aria-checked": String(value === this.filter), onclick: () => this.setFilter(value) }, t(key))));
    this.attention = h("div", { class: "attention", "aria-live": "polite" });
    this.last = h("div", { class: "last-action", "aria-live": "assertive" });
    this.list = h("ul", { class: "results", id: "door-results", role: "listbox", "aria-label": t("door.guests") });
    this.more = h("p", { class: "muted more" });
    // on a phone the counters and the actions share one line (app.css), so results show above the keyboard
    this.view.append(h("section", { class: "door" }, this.head, h("div", { class: "door-bar" }, this.counters, this.menu, this.actions),
      this.syncSlot, this.network,
      h("div", { class: "search-bar" }, this.search, this.chips), this.attention, this.last, this.list, this.more));
    this.renderHead();
    this.renderNetwork();
    this.renderQueue();
    this.search.focus();
  }

  renderHead() {
    const m = this.meetup;
    const action = (label, onclick) => h("button", { type: "button", class: "secondary", onclick }, label);
    const actions = [];
    if (!m.is_finalized) {
      actions.push(action(t("door.addWalkIn"), () => this.walkIn()), action(t("door.syncRsvps"), (e) => this.sync(e.currentTarget)));
    }
    if (isOrgAdmin()) {
      actions.push(m.is_finalized
        ? action(t("meetup.unfinalize"), () => this.setFinalized(false))
        : action(t("meetup.finalize"), () => this.setFinalized(true)));
    }
    clear(this.actions, actions);
    clear(this.head,
      h("a", { class: "back", href: "#/meetups", "aria-label": t("door.backToMeetups") }, "←"),
      h("div", { class: "title" },
        h("h1", {}, m.name),
        h("p", { class: "muted" }, formatDate(m.date),
          " · ", m.last_synced_at ? t("door.synced", { time: formatTime(m.last_synced_at) }) : t("door.neverSynced"))),
      m.is_finalized ? h("div", { class: "alert info wide" }, t("door.finalizedNote")) : null);
  }

  renderCounters() {
    const counts = this.state.tally();
    const tile = (label, value, kind) => h("div", { class: `counter ${kind}`, dataset: { counter: kind } },
      h("span", { class: "value" }, formatNumber(value)), h("span", { class: "label" }, label));
    clear(this.counters, tile(t("counter.rsvps"), counts.rsvps, "rsvps"), tile(t("counter.arrived"), counts.arrived, "arrived"),
      tile(t("counter.expected"), counts.expected, "expected"), tile(t("counter.walkins"), counts.walkins, "walkins"));
  }

  // Offline: say what still works, and whether a reload is safe (only where a service worker keeps the shell).
  renderNetwork() {
    if (!isOffline()) return clear(this.network);
    const reload = window.isSecureContext && navigator.serviceWorker?.controller
      ? t("door.reloadSafe")
      : t("door.doNotReload");
    clear(this.network, h("div", { class: "alert warn" },
      h("strong", {}, t("door.noNetwork")), " ", t("door.offlineText"), " ", reload));
  }

  // --- actions on their way (queue.js): shown pending on the list, refused ones in "needs attention" -----

  renderQueue() {
    const items = queue.items(this.meetup.id);
    this.state.pending(items.filter((i) => i.state === "waiting"));
    const refused = items.filter((i) => i.state === "refused");
    const others = items.filter((i) => i.state === "waiting" && !queue.mine(i));
    const waiting = items.length - refused.length - others.length;
    const makers = [...new Set(others.map((i) => `@${i.user}`))].join(", ");
    clear(this.attention,
      waiting ? h("div", { class: "alert info", dataset: { queue: "waiting" } },
        t("door.queueWaiting", { count: waiting })) : null,
      others.length ? h("div", { class: "alert warn", dataset: { queue: "others" } },
        t("door.queueOthers", { count: others.length, makers })) : null,
      refused.length ? h("div", { class: "alert error needs-attention" }, h("strong", {}, t("door.needsAttention")),
        h("ul", {}, refused.map((item) => h("li", {}, t("door.refusedItem", { action: describe(item), problem: problemText(item.problem) }), " ",
          h("button", { type: "button", class: "secondary small", onclick: () => queue.dismiss(item.id) }, t("door.dismiss")))))) : null);
  }

  onQueue({ id, state, item, answer, problem }) {
    if (item && item.meetup !== this.meetup.id) return;
    if (state === "sent" && answer && answer.guest) {
      this.patch(answer);
      if (!this.live.has(id)) this.announce(answer.rsvp.has_arrived
        ? t("door.sentNumbered", { action: describe(item), order: answer.rsvp.arrival_order }) : t("door.sent", { action: describe(item) }), "ok");
    }
    if (state === "refused" && !this.live.has(id)) this.announce(t("door.wasRefused", { action: describe(item), problem: problemText(problem) }), "error");
    this.renderQueue();
    this.renderCounters();
    this.renderResults();
  }

  // --- the list -------------------------------------------------------------------------------------

  async poll() {
    if (this.polling || !this.ctx.alive) return;
    this.polling = true;
    const id = ++this.fetchId;
    try {
      const answer = await api.get(`${this.base}/guests`, { etag: this.etag });
      this.pollError = null;
      if (id < this.floor || !this.ctx.alive || answer.notModified) return;
      this.state.load(answer.data);
      this.etag = answer.etag;
      this.loaded = true;
      this.keep(answer.data);
      this.meetupChanged(answer.data.meetup);
      this.renderCounters();
      this.renderResults();
    } catch (error) {
      if (error.status === 404 && this.ctx.alive) this.ctx.navigate("#/meetups");
      else if (error.status >= 400 && error.status !== 401 && this.pollError !== error.detail) {
        this.pollError = error.detail; // say it once, not every second
        this.announce(problemText(error), "error");
      }
      // a lost connection shows the banner (api.js); the next tick tries again
    } finally {
      this.polling = false;
    }
  }

  // The list as last seen, for a reload while the network is down (one meetup's list, a few hundred KB).
  keep(list) {
    try {
      localStorage.setItem(LAST, JSON.stringify({ meetup: this.meetup, list, etag: this.etag }));
    } catch {
      // storage full: the open screen still works
    }
  }

  // Finalize, unfinalize and syncs come with the list: every door sees them with the next poll.
  meetupChanged(state) {
    if (!state) return;
    const m = this.meetup;
    if (state.is_finalized === m.is_finalized && state.last_synced_at === m.last_synced_at) return;
    this.meetup = { ...m, ...state };
    this.renderHead();
  }

  // A change this screen made: show it at once, and drop poll answers that started before it.
  patch(entry) {
    this.floor = this.fetchId + 1;
    this.state.put(entry);
    this.renderCounters();
    this.renderResults();
  }

  // Every keystroke searches at once: 2,000 guests take a few milliseconds (bench/door-screen).
  flushSearch() {
    this.selectedId = null;
    this.chosen = false;
    if (this.hinted) clear(this.last); // the namesakes' hint was about the search before this one
    this.hinted = false;
    this.renderResults();
  }

  setFilter(value) {
    this.filter = value;
    for (const chip of this.chips.children) chip.setAttribute("aria-checked", String(chip.dataset.filter === value));
    this.renderResults();
    this.search.focus();
  }

  renderResults() {
    const query = this.search.value;
    const { results, target } = this.state.query(query, this.filter);
    this.results = results;
    this.target = target;
    const shown = results.slice(0, SHOWN);
    if (!shown.some((e) => idOf(e) === this.selectedId)) {
      this.selectedId = query.trim() && shown.length ? idOf(shown[0]) : null;
      this.chosen = false;
    }
    clear(this.list, shown.map((entry) => this.row(entry)));
    if (!this.loaded) this.more.textContent = t("door.loading");
    else if (!this.state.entries.length) this.more.textContent = t("door.emptyList");
    else if (!results.length) {
      clear(this.more, t("door.noMatch"), " ",
        this.meetup.is_finalized ? t("door.noMatchFinalized")
          : h("button", { type: "button", class: "secondary", onclick: () => this.walkIn() }, t("door.addAsWalkIn", { name: query.trim() })));
    }
    else if (results.length > SHOWN) this.more.textContent = t("door.showing", { shown: SHOWN, count: results.length });
    else this.more.textContent = "";
  }

  row(entry) {
    const { guest, rsvp } = entry;
    const selected = idOf(entry) === this.selectedId;
    const classes = ["row"];
    if (guest.is_banned) classes.push("banned");
    if (rsvp.has_arrived) classes.push("arrived");
    if (rsvp.cancelled_rsvp) classes.push("cancelled");
    if (entry.pending) classes.push("pending");
    let state;
    if (entry.pending) {
      state = h("div", { class: "state" }, h("span", { class: "badge pending" }, t("door.pending")), " ",
        t("door.pendingText", { what: t(`door.pending.${entry.pending}`), time: formatTime(entry.pendingAt) }));
    } else if (rsvp.has_arrived) {
      state = h("div", { class: "state" }, h("span", { class: "badge arrived" }, `#${rsvp.arrival_order}`),
        " ", t("door.arrivedAt", { time: formatTime(rsvp.arrival_time) }),
        rsvp.checked_in_by ? [" · ", t("door.letInBy", { username: rsvp.checked_in_by.username })] : "");
    } else {
      state = h("div", { class: "state" }, rsvp.cancelled_rsvp ? t("door.rsvpCancelled") : t("counter.expected"));
    }
    const closed = this.meetup.is_finalized || Boolean(entry.pending);
    const button = rsvp.has_arrived
      ? h("button", { type: "button", class: "secondary", disabled: closed, onclick: () => this.undo(entry) }, t("door.undo"))
      : h("button", { type: "button", class: guest.is_banned ? "danger" : "primary", disabled: closed,
        onclick: () => this.act(entry) }, guest.is_banned ? t("door.checkInBanned") : t("door.checkIn"));
    return h("li", { class: classes.join(" "), role: "option", "aria-selected": String(selected),
      dataset: { guest: idOf(entry) },
      onclick: (event) => { if (event.target.tagName !== "BUTTON") this.select(idOf(entry), true); } },
    h("div", { class: "who" },
      h("span", { class: "name" }, guest.displayname || guest.username),
      h("span", { class: "username" }, guest.is_local ? t("guest.notOnPlatform") : "@" + guest.username),
      rsvp.is_walkin ? h("span", { class: "tag" }, t("door.walkInTag")) : null,
      rowBadges(entry)),
    guest.is_banned ? h("div", { class: "ban" }, h("strong", {}, t("door.banned")), " ", guest.ban_reason || "") : null,
    state,
    h("div", { class: "act" }, button, guest.is_local && !entry.pending && isOrgAdmin()
      ? h("button", { type: "button", class: "secondary", onclick: () => this.link(guest) }, t("door.linkButton")) : null));
  }

  // A guest let in by name turns out to be on the platform: their entry and bans move to that account.
  async link(guest) {
    const linked = await ask({
      title: t("door.linkTitle", { guest: named(guest) }),
      message: t("door.linkText"),
      input: { label: t("door.platformUsername"), required: true, maxlength: 255 },
      confirm: t("door.link"),
      action: (username) => api.patch(orgPath(`/guests/${guest.platform_user_id}/link`), { username }),
    });
    if (linked) {
      this.announce(t("door.linked", { name: guest.displayname, guest: named({ ...guest, is_local: false, username: linked }) }), "ok");
      this.poll();
    }
    this.search.focus();
  }

  select(id, chosen = false) {
    this.selectedId = id;
    this.chosen = chosen;
    for (const li of this.list.children) li.setAttribute("aria-selected", String(li.dataset.guest === String(id)));
  }

  move(step) {
    const shown = this.results.slice(0, SHOWN);
    if (!shown.length) return;
    const at = shown.findIndex((e) => idOf(e) === this.selectedId);
    const next = at < 0 ? (step > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + step));
    this.select(idOf(shown[next]), true);
    this.list.children[next]?.scrollIntoView({ block: "nearest" });
  }

  selected() {
    return this.results.find((e) => idOf(e) === this.selectedId) || null;
  }

  // Enter (the phone's Go): acts only on a clear choice: the exact username, the only result, or a row
  // the user picked. With namesakes it moves the selection and says why, so nobody checks in the wrong one.
  enter() {
    const entry = this.chosen ? this.selected() : this.target;
    if (entry) return this.act(entry);
    const shown = this.results.slice(0, SHOWN);
    if (!shown.length) return;
    const next = (shown.findIndex((e) => idOf(e) === this.selectedId) + 1) % shown.length;
    this.select(idOf(shown[next]));
    this.list.children[next]?.scrollIntoView({ block: "nearest" });
    this.announce(t("door.namesakes", { count: this.results.length }), "warn");
    this.hinted = true;
  }

  // --- keyboard: typing anywhere searches; arrows move; Enter checks in; Escape clears ---------------

  onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    const target = event.target;
    const inSearch = target === this.search;
    const typing = !inSearch && target.closest && target.closest("input, textarea, select, [contenteditable]");
    if (typing) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      this.move(event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter") {
      if (!inSearch && target.closest && target.closest("button, a")) return; // the focused control handles it
      event.preventDefault();
      this.enter();
    } else if (event.key === "Escape") {
      this.search.value = "";
      this.flushSearch();
      this.search.focus();
    } else if (!inSearch && event.key.length === 1 && event.key !== " ") {
      event.preventDefault();
      this.search.focus();
      this.search.value += event.key;
      this.flushSearch();
    } else if (!inSearch && event.key === "Backspace") {
      event.preventDefault();
      this.search.focus();
      this.search.value = this.search.value.slice(0, -1);
      this.flushSearch();
    }
  }

  // --- actions --------------------------------------------------------------------------------------

  async act(entry) {
    const { guest, rsvp } = entry;
    if (this.meetup.is_finalized) return toast(t("door.finalizedClosed"), "error");
    if (entry.pending) return this.announce(t("door.pendingWaiting", { guest: named(guest), what: t(`door.pending.${entry.pending}`) }), "warn");
    if (rsvp.has_arrived) return this.announce(alreadyIn(guest, rsvp), "warn");
    if (guest.is_banned) return this.override(guest, guest.ban_reason, (force) => this.checkIn(guest, force));
    return this.checkIn(guest, false);
  }

  // A banned guest: nothing happens unless the door confirms. `then(true)` runs on "Check in anyway".
  async override(guest, reason, then) {
    const ok = await ask({
      title: t("door.bannedTitle", { guest: named(guest) }),
      message: h("div", { class: "ban-reason" }, h("strong", {}, t("common.reason")), " ", reason || t("door.noReason")),
      confirm: t("door.checkInAnyway"), danger: true,
    });
    if (ok) await then(true);
    else this.search.focus();
  }

  // Send one action through the queue; `done(answer)` on success. Refusals the door can act on at once
  // (a ban, already in) are handled here; a lost answer leaves the action pending, never "nothing changed".
  async send(action, done) {
    const id = queue.randomKey();
    this.sentQuery = this.search.value;
    this.live.add(id);
    const outcome = await queue.submit({ id, meetup: this.meetup.id, ...action });
    this.live.delete(id);
    if (outcome.state === "sent") return done(outcome.answer);
    if (outcome.state === "waiting") { // no answer: it may have landed or not; the queue will know
      this.nextGuest();
      this.renderQueue();
      this.renderCounters();
      this.renderResults();
      return this.announce(t("door.notConfirmed", { action: describe(action) }), "warn");
    }
    queue.dismiss(id); // refused while the door waited: handled here, not in "needs attention"
    return outcome.problem;
  }

  async checkIn(guest, force) {
    const problem = await this.send({ kind: "checkin", method: "POST", path: `${this.base}/guests/${guest.platform_user_id}/checkin`,
      body: force ? { force: true } : {}, guest }, (entry) => this.checkedIn(entry, force));
    if (problem) this.refused(problem, guest, (again) => this.checkIn(guest, again));
    this.search.focus();
  }

  // Ready for the next guest: the search is emptied, unless the door has started typing for them meanwhile.
  nextGuest() {
    if (this.search.value === this.sentQuery) this.search.value = "";
    this.flushSearch();
  }

  checkedIn(entry, force) {
    this.patch(entry);
    this.announce(t(force ? "door.checkedInForced" : "door.checkedIn", { guest: named(entry.guest), order: entry.rsvp.arrival_order }), "ok");
    this.nextGuest();
  }

  refused(problem, guest, retry) {
    if (problem.code === "guest_banned") return this.override(guest, problem.ban_reason, retry);
    if (problem.code === "already_checked_in") this.announce(alreadyIn(guest, problem), "warn");
    else {
      const text = problemText(problem); // named, so the door knows which guest it was about
      this.announce(text.includes(named(guest)) ? text : t("door.guestProblem", { guest: named(guest), problem: text }), "error");
    }
    this.poll();
  }

  async undo(entry) {
    const { guest, rsvp } = entry;
    const reason = await ask({
      title: t("door.undoTitle", { guest: named(guest) }),
      message: t("door.undoText", { order: rsvp.arrival_order, time: formatTime(rsvp.arrival_time) }),
      input: { label: t("common.reasonLabel"), required: true, placeholder: t("door.undoPlaceholder") },
      confirm: t("door.undoConfirm"),
      danger: true,
    });
    if (reason) {
      const problem = await this.send({ kind: "undo", method: "PATCH", path: `${this.base}/guests/${guest.platform_user_id}/undo-checkin`,
        body: { reason }, guest }, (undone) => {
        this.patch(undone);
        this.announce(t("door.undone", { guest: named(guest) }), "warn");
      });
      if (problem) this.refused(problem, guest);
    }
    this.search.focus();
  }

  // A walk-in, starting from what was typed: a platform username (looked up, then added and checked in in
  // one action that a ban refuses before anything is added), or the name of a person not on the platform.
  async walkIn() {
    const meetupCom = (await platformInfo().catch(() => ({}))).adapter === "meetup";
    const asked = meetupCom ? t("walkin.meetupId") : t("door.platformUsername");
    const local = h("input", { type: "checkbox", name: "local" });
    let found = null;
    const value = await ask({
      title: t("walkin.title"),
      message: t(meetupCom ? "walkin.textMeetup" : "walkin.text"),
      extra: h("label", { class: "check" }, local, " ", t("walkin.local")),
      input: { label: t("walkin.label", { asked }), required: true, maxlength: 255, value: this.search.value.trim() },
      confirm: t("walkin.confirm"),
      action: async (typed) => {
        if (local.checked) return;
        if (isOffline()) throw new ApiProblem({ detail: t("walkin.offline") });
        try {
          found = await api.post("/guests/", { username: typed });
        } catch (error) {
          if (error.code !== "guest_exists") throw error;
          found = error.guest;
        }
      },
    });
    if (!value) return this.search.focus();
    if (local.checked) return this.letInByName(value);
    const onList = this.state.find(found.platform_user_id);
    if (onList) return this.act(onList); // on the list already: simply checked in
    return this.addWalkIn(found, false);
  }

  async addWalkIn(guest, force) {
    const problem = await this.send({ kind: "walkin", method: "POST", path: `${this.base}/guests/${guest.platform_user_id}/add-walkin`,
      body: { check_in: true, force }, guest }, (entry) => this.checkedIn(entry, force));
    if (problem && problem.code === "already_on_list") {
      await this.poll();
      const entry = this.state.find(guest.platform_user_id);
      if (entry) return this.act(entry);
    }
    if (problem) this.refused(problem, guest, (again) => this.addWalkIn(guest, again));
  }

  async letInByName(displayname) {
    const guest = { displayname, username: "", is_local: true };
    const problem = await this.send({ kind: "local", method: "POST", path: `${this.base}/local-walkins`,
      body: { displayname }, guest }, (entry) => this.checkedIn(entry, false));
    if (problem) this.refused(problem, guest);
  }

  async sync(button) {
    button.disabled = true;
    clear(this.syncSlot, h("div", { class: "progress", role: "progressbar", "aria-label": t("sync.label") }, h("span")),
      h("p", {}, t("sync.running")));
    try {
      const result = await api.post(`${this.base}/sync`, {});
      clear(this.syncSlot, h("div", { class: "alert ok", role: "status" },
        t("sync.done", result)));
      this.floor = this.fetchId + 1;
      this.etag = null;
      await this.poll();
    } catch (error) {
      clear(this.syncSlot, h("div", { class: "alert error", role: "alert" }, problemText(error)));
      if (error.code === "meetup_finalized") this.poll();
    } finally {
      button.disabled = false;
    }
  }

  async setFinalized(finalize) {
    const done = await ask({
      title: t(finalize ? "door.finalizeTitle" : "door.unfinalizeTitle"),
      message: t(finalize ? "meetup.finalizeText" : "meetup.unfinalizeText"),
      confirm: t(finalize ? "meetup.finalize" : "meetup.unfinalize"),
      danger: finalize,
      action: async () => {
        this.meetup = await api.patch(`${this.base}/${finalize ? "finalize" : "unfinalize"}`, {});
      },
    });
    if (done) {
      this.renderHead();
      this.renderResults();
    }
  }

  announce(text, kind) {
    this.hinted = false;
    clear(this.last, h("div", { class: `alert ${kind}` }, text));
  }
}

// "already in, #N, by X at T": what the door needs to tell an arrived guest from a namesake.
function alreadyIn(guest, arrival) {
  const params = { guest: named(guest), order: arrival.arrival_order, time: formatTime(arrival.arrival_time) };
  return arrival.checked_in_by ? t("door.alreadyInBy", { ...params, username: arrival.checked_in_by.username })
    : t("door.alreadyIn", params);
}

function describe(item) {
  const who = named(item.guest);
  const key = { checkin: "door.describe.checkin", undo: "door.describe.undo", walkin: "door.describe.walkin",
    local: "door.describe.walkin" }[item.kind];
  return key ? t(key, { guest: who }) : who;
}
