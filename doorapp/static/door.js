// The door screen of one meetup (#/meetups/{meetup_id}): live counters, search as you type, keyboard
// check-in, ban override, undo with a reason, walk-ins and sync. The list is polled every second with
// If-None-Match, so a check-in at another door shows here within two seconds.
import { api } from "./api.js";
import { ask, clear, formatDate, formatTime, h, toast } from "./dom.js";
import { rowBadges } from "./badges.js";
import { haystack, search } from "./search.js";
import { isOrgAdmin, orgPath, platformInfo, session, setOrg } from "./session.js";

const POLL_MS = 1000;
const MEETUP_EVERY = 10; // polls between two looks at the meetup (finalized elsewhere?)
const SHOWN = 60; // rows rendered at once; typing narrows the rest down
const FILTERS = [["all", "All"], ["expected", "Expected"], ["arrived", "Arrived"], ["banned", "Banned"]];

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

export async function screen(view, [meetupId], ctx) {
  const meetup = await findMeetup(meetupId);
  ctx.renderTop();
  if (!meetup) {
    view.append(h("section", { class: "panel" }, h("h1", {}, "Meetup not found"),
      h("p", {}, "No meetup with this link is in an organization you belong to."),
      h("a", { class: "button secondary", href: "#/meetups" }, "Back to meetups")));
    return;
  }
  new DoorScreen(view, meetup, ctx).start();
}

class DoorScreen {
  constructor(view, meetup, ctx) {
    this.view = view;
    this.meetup = meetup;
    this.ctx = ctx;
    this.base = orgPath(`/meetups/${meetup.id}`);
    this.entries = [];
    this.hays = [];
    this.etag = null;
    this.loaded = false;
    this.filter = "all";
    this.results = [];
    this.selectedId = null;
    this.fetchId = 0; // stale-response guard: answers to requests older than `floor` are dropped
    this.floor = 0;
    this.polling = false;
    this.pollError = null;
    this.searchTimer = null;
  }

  start() {
    document.title = `${this.meetup.name} · Door`;
    document.body.dataset.screen = "door";
    this.build();
    this.poll();
    let ticks = 0;
    const timer = setInterval(() => {
      this.poll();
      // finalizing does not change the list: look at the meetup itself now and then
      if (++ticks % MEETUP_EVERY === 0) this.reloadMeetup();
    }, POLL_MS);
    const keys = (event) => this.onKey(event);
    const visible = () => { if (!document.hidden) this.poll(); };
    document.addEventListener("keydown", keys);
    document.addEventListener("visibilitychange", visible);
    this.ctx.leave.push(() => {
      clearInterval(timer);
      document.removeEventListener("keydown", keys);
      document.removeEventListener("visibilitychange", visible);
      document.title = "Door";
      delete document.body.dataset.screen;
    });
  }

  // --- layout ---------------------------------------------------------------------------------------

  build() {
    this.head = h("div", { class: "door-head" });
    this.syncSlot = h("div", { class: "sync-slot", "aria-live": "polite" });
    this.counters = h("div", { class: "counters", "aria-live": "polite" });
    this.search = h("input", { type: "search", class: "door-search", placeholder: "Type a name or username…",
      autocomplete: "off", autocapitalize: "none", spellcheck: "false", enterkeyhint: "go",
      "aria-label": "Search guests", "aria-controls": "door-results" });
    this.search.addEventListener("input", () => this.queueSearch());
    this.chips = h("div", { class: "chips", role: "radiogroup", "aria-label": "Show" },
      FILTERS.map(([value, label]) => h("button", { type: "button", class: "chip", role: "radio", dataset: { filter: value },
        "aria-checked": String(value === this.filter), onclick: () => this.setFilter(value) }, label)));
    this.last = h("div", { class: "last-action", "aria-live": "assertive" });
    this.list = h("ul", { class: "results", id: "door-results", role: "listbox", "aria-label": "Guests" });
    this.more = h("p", { class: "muted more" });
    this.view.append(h("section", { class: "door" }, this.head, this.syncSlot, this.counters,
      h("div", { class: "search-bar" }, this.search, this.chips), this.last, this.list, this.more));
    this.renderHead();
    this.search.focus();
  }

  renderHead() {
    const m = this.meetup;
    const admin = isOrgAdmin();
    const actions = [];
    if (!m.is_finalized) {
      actions.push(h("button", { type: "button", class: "secondary", onclick: (e) => this.sync(e.currentTarget) }, "Sync RSVPs"),
        h("button", { type: "button", class: "secondary", onclick: () => this.walkIn() }, "Add walk-in"));
    }
    if (admin) {
      actions.push(m.is_finalized
        ? h("button", { type: "button", class: "secondary", onclick: () => this.setFinalized(false) }, "Unfinalize")
        : h("button", { type: "button", class: "secondary", onclick: () => this.setFinalized(true) }, "Finalize"));
    }
    clear(this.head,
      h("a", { class: "back", href: "#/meetups" }, "← Meetups"),
      h("div", { class: "title" },
        h("h1", {}, m.name),
        h("p", { class: "muted" }, formatDate(m.date),
          m.last_synced_at ? ` · synced ${formatTime(m.last_synced_at)}` : " · never synced")),
      h("div", { class: "actions" }, actions),
      m.is_finalized ? h("div", { class: "alert info wide" }, "This meetup is finalized: check-ins, walk-ins and syncs are closed.") : null);
  }

  renderCounters() {
    let rsvps = 0, arrived = 0, expected = 0, walkins = 0;
    for (const { rsvp } of this.entries) {
      if (rsvp.has_arrived) arrived += 1;
      if (rsvp.is_walkin) walkins += 1;
      else if (!rsvp.cancelled_rsvp) {
        rsvps += 1;
        if (!rsvp.has_arrived) expected += 1;
      }
    }
    const tile = (label, value, kind) => h("div", { class: `counter ${kind}`, dataset: { counter: kind } },
      h("span", { class: "value" }, String(value)), h("span", { class: "label" }, label));
    clear(this.counters, tile("RSVPs", rsvps, "rsvps"), tile("Arrived", arrived, "arrived"),
      tile("Still expected", expected, "expected"), tile("Walk-ins", walkins, "walkins"));
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
      this.entries = answer.data.guests;
      this.hays = this.entries.map(haystack);
      this.etag = answer.etag;
      this.loaded = true;
      this.renderCounters();
      this.renderResults();
    } catch (error) {
      if (error.status === 404 && this.ctx.alive) this.ctx.navigate("#/meetups");
      else if (error.status >= 400 && error.status !== 401 && this.pollError !== error.detail) {
        this.pollError = error.detail; // say it once, not every second
        this.announce(error.detail, "error");
      }
      // a lost connection shows the banner (api.js); the next tick tries again
    } finally {
      this.polling = false;
    }
  }

  // A change this screen made: show it at once, and drop poll answers that started before it.
  patch(entry) {
    this.floor = this.fetchId + 1;
    const i = this.entries.findIndex((e) => e.guest.platform_user_id === entry.guest.platform_user_id);
    if (i >= 0) {
      this.entries[i] = entry;
      this.hays[i] = haystack(entry);
    } else {
      this.entries.push(entry);
      this.hays.push(haystack(entry));
    }
    this.renderCounters();
    this.renderResults();
  }

  queueSearch() {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => this.flushSearch(), 60);
  }

  flushSearch() {
    clearTimeout(this.searchTimer);
    this.searchTimer = null;
    this.selectedId = null;
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
    const keep = {
      all: () => true,
      expected: (e) => !e.rsvp.has_arrived && !e.rsvp.cancelled_rsvp,
      arrived: (e) => e.rsvp.has_arrived,
      banned: (e) => e.guest.is_banned,
    }[this.filter];
    this.results = search(this.entries, this.hays, query).filter(keep);
    const shown = this.results.slice(0, SHOWN);
    if (!shown.some((e) => e.guest.platform_user_id === this.selectedId)) {
      this.selectedId = query.trim() && shown.length ? shown[0].guest.platform_user_id : null;
    }
    clear(this.list, shown.map((entry) => this.row(entry)));
    if (!this.loaded) this.more.textContent = "Loading the guest list…";
    else if (!this.entries.length) this.more.textContent = "Nobody is on the list yet. Sync the RSVPs or add a walk-in.";
    else if (!this.results.length) this.more.textContent = "No guest matches. Check the spelling, or add a walk-in.";
    else if (this.results.length > SHOWN) this.more.textContent = `Showing ${SHOWN} of ${this.results.length}; keep typing to narrow down.`;
    else this.more.textContent = "";
  }

  row(entry) {
    const { guest, rsvp } = entry;
    const selected = guest.platform_user_id === this.selectedId;
    const classes = ["row"];
    if (guest.is_banned) classes.push("banned");
    if (rsvp.has_arrived) classes.push("arrived");
    if (rsvp.cancelled_rsvp) classes.push("cancelled");
    let state;
    if (rsvp.has_arrived) {
      state = h("div", { class: "state" }, h("span", { class: "badge arrived" }, `#${rsvp.arrival_order}`),
        ` arrived ${formatTime(rsvp.arrival_time)}`,
        rsvp.checked_in_by ? ` · let in by ${rsvp.checked_in_by.username}` : "");
    } else {
      state = h("div", { class: "state" }, rsvp.cancelled_rsvp ? "RSVP cancelled" : "Expected");
    }
    const finalized = this.meetup.is_finalized;
    const button = rsvp.has_arrived
      ? h("button", { type: "button", class: "secondary", disabled: finalized, onclick: () => this.undo(entry) }, "Undo")
      : h("button", { type: "button", class: guest.is_banned ? "danger" : "primary", disabled: finalized,
        onclick: () => this.act(entry) }, guest.is_banned ? "Check in…" : "Check in");
    const item = h("li", { class: classes.join(" "), role: "option", "aria-selected": String(selected),
      dataset: { guest: String(guest.platform_user_id) },
      onclick: (event) => { if (event.target.tagName !== "BUTTON") this.select(guest.platform_user_id); } },
    h("div", { class: "who" },
      h("span", { class: "name" }, guest.displayname || guest.username),
      h("span", { class: "username" }, "@" + guest.username),
      rsvp.is_walkin ? h("span", { class: "tag" }, "walk-in") : null,
      rowBadges(entry)),
    guest.is_banned ? h("div", { class: "ban" }, h("strong", {}, "BANNED"), " ", guest.ban_reason || "") : null,
    state,
    h("div", { class: "act" }, button));
    return item;
  }

  select(id) {
    this.selectedId = id;
    for (const li of this.list.children) li.setAttribute("aria-selected", String(li.dataset.guest === String(id)));
  }

  move(step) {
    const shown = this.results.slice(0, SHOWN);
    if (!shown.length) return;
    const at = shown.findIndex((e) => e.guest.platform_user_id === this.selectedId);
    const next = at < 0 ? (step > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + step));
    this.select(shown[next].guest.platform_user_id);
    this.list.children[next]?.scrollIntoView({ block: "nearest" });
  }

  selected() {
    return this.results.find((e) => e.guest.platform_user_id === this.selectedId) || null;
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
      if (this.searchTimer) this.flushSearch();
      this.move(event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter") {
      if (!inSearch && target.closest && target.closest("button, a")) return; // the focused control handles it
      event.preventDefault();
      if (this.searchTimer) this.flushSearch();
      const entry = this.selected();
      if (entry) this.act(entry);
    } else if (event.key === "Escape") {
      this.search.value = "";
      this.flushSearch();
      this.search.focus();
    } else if (!inSearch && event.key.length === 1 && event.key !== " ") {
      event.preventDefault();
      this.search.focus();
      this.search.value += event.key;
      this.queueSearch();
    } else if (!inSearch && event.key === "Backspace") {
      event.preventDefault();
      this.search.focus();
      this.search.value = this.search.value.slice(0, -1);
      this.queueSearch();
    }
  }

  // --- actions --------------------------------------------------------------------------------------

  async act(entry) {
    const { guest, rsvp } = entry;
    if (this.meetup.is_finalized) return toast("This meetup is finalized; check-ins are closed.", "error");
    if (rsvp.has_arrived) {
      return this.announce(`${name(guest)} already arrived: #${rsvp.arrival_order} at ${formatTime(rsvp.arrival_time)}` +
        (rsvp.checked_in_by ? `, let in by ${rsvp.checked_in_by.username}.` : "."), "warn");
    }
    if (guest.is_banned) return this.override(guest, guest.ban_reason);
    return this.checkIn(guest, false);
  }

  async override(guest, reason) {
    const ok = await ask({
      title: `${name(guest)} is banned`,
      message: h("div", { class: "ban-reason" }, h("strong", {}, "Reason: "), reason || "none given"),
      confirm: "Check in anyway", danger: true,
    });
    if (ok) await this.checkIn(guest, true);
    else this.search.focus();
  }

  async checkIn(guest, force) {
    try {
      const entry = await api.post(`${this.base}/guests/${guest.platform_user_id}/checkin`, force ? { force: true } : {});
      this.patch(entry);
      this.announce(`✓ ${name(entry.guest)} checked in: #${entry.rsvp.arrival_order}` + (force ? " (ban overridden)" : ""), "ok");
      this.search.value = "";
      this.flushSearch();
    } catch (error) {
      if (error.code === "guest_banned") return this.override(guest, error.ban_reason);
      if (error.code === "already_checked_in") {
        this.announce(`${name(guest)} is already checked in: #${error.arrival_order} at ${formatTime(error.arrival_time)}` +
          (error.checked_in_by ? `, let in by ${error.checked_in_by.username}.` : "."), "warn");
      } else {
        this.announce(error.detail, "error");
      }
      if (error.code === "meetup_finalized") this.reloadMeetup();
      this.poll();
    }
    this.search.focus();
  }

  async undo(entry) {
    const { guest, rsvp } = entry;
    let undone = null;
    await ask({
      title: `Undo the check-in of ${name(guest)}?`,
      message: `Arrival #${rsvp.arrival_order} at ${formatTime(rsvp.arrival_time)} will be taken back. The number is not reused.`,
      input: { label: "Reason", required: true, placeholder: "e.g. checked in the wrong person" },
      confirm: "Undo check-in",
      danger: true,
      action: async (reason) => {
        undone = await api.patch(`${this.base}/guests/${guest.platform_user_id}/undo-checkin`, { reason });
      },
    });
    if (undone) {
      this.patch(undone);
      this.announce(`Check-in of ${name(guest)} undone.`, "warn");
    }
    this.search.focus();
  }

  async walkIn() {
    let entry = null;
    // Meetup.com has no lookup by username: its guests are named by member id or profile URL.
    const meetup = (await platformInfo().catch(() => ({}))).adapter === "meetup";
    const asked = meetup ? "Meetup member id or profile URL" : "Platform username";
    await ask({
      title: "Add a walk-in",
      message: `A guest without an RSVP. Enter their ${meetup ? "Meetup member id or profile URL" : "username on the platform"}; they are added and checked in.`,
      input: { label: asked, required: true, maxlength: 255 },
      confirm: "Add and check in",
      action: async (username) => {
        let guest;
        try {
          guest = await api.post("/guests/", { username });
        } catch (error) {
          if (error.code !== "guest_exists") throw error;
          guest = error.guest;
        }
        try {
          entry = await api.post(`${this.base}/guests/${guest.platform_user_id}/add-walkin`, {});
        } catch (error) {
          if (error.code !== "already_on_list") throw error;
          entry = this.entries.find((e) => e.guest.platform_user_id === guest.platform_user_id) || null;
          if (!entry) {
            const list = await api.get(`${this.base}/guests`);
            entry = list.guests.find((e) => e.guest.platform_user_id === guest.platform_user_id);
          }
        }
      },
    });
    if (!entry) return this.search.focus();
    this.patch(entry);
    this.search.value = entry.guest.username;
    this.flushSearch();
    this.select(entry.guest.platform_user_id);
    return this.act(entry);
  }

  async sync(button) {
    button.disabled = true;
    clear(this.syncSlot, h("div", { class: "progress", role: "progressbar", "aria-label": "Syncing" }, h("span")),
      h("p", {}, "Syncing the RSVP list with the platform…"));
    try {
      const result = await api.post(`${this.base}/sync`, {});
      clear(this.syncSlot, h("div", { class: "alert ok", role: "status" },
        `Sync done: ${result.inserted} new, ${result.updated} updated, ${result.cancelled} cancelled, ` +
        `${result.skipped} skipped; ${result.total} on the list.`));
      this.floor = this.fetchId + 1;
      this.etag = null;
      await this.reloadMeetup();
      await this.poll();
    } catch (error) {
      clear(this.syncSlot, h("div", { class: "alert error", role: "alert" }, error.detail));
      if (error.code === "meetup_finalized") this.reloadMeetup();
    } finally {
      button.disabled = false;
    }
  }

  async setFinalized(finalize) {
    const done = await ask({
      title: finalize ? "Finalize this meetup?" : "Unfinalize this meetup?",
      message: finalize
        ? "Check-ins, walk-ins and syncs will be closed at every door until an admin unfinalizes it."
        : "Check-ins, walk-ins and syncs will be possible again.",
      confirm: finalize ? "Finalize" : "Unfinalize",
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

  async reloadMeetup() {
    try {
      const meetup = await api.get(this.base);
      const changed = meetup.is_finalized !== this.meetup.is_finalized || meetup.last_synced_at !== this.meetup.last_synced_at
        || meetup.name !== this.meetup.name;
      this.meetup = meetup;
      if (changed) {
        this.renderHead();
        this.renderResults();
      }
    } catch {
      // the poll reports what matters
    }
  }

  announce(text, kind) {
    clear(this.last, h("div", { class: `alert ${kind}` }, text));
  }
}

function name(guest) {
  return guest.displayname || guest.username;
}
