// What the door screen draws (mixed into DoorScreen by screen.js): its head and actions, the counters, the
// offline note, the queue's waiting and refused actions, and the list's rows.
import { isOffline } from "../core/api.js";
import { clear, formatDate, formatTime, h } from "../core/dom.js";
import { formatNumber, problemText, t } from "../core/i18n.js";
import * as queue from "../core/queue.js";
import { isOrgAdmin, isPass, session } from "../core/session.js";
import { describe } from "./actions.js";
import { rowBadges } from "./badges.js";
import { FILTERS, idOf } from "./list.js";
import { actorName, named, shortName } from "../shared/names.js";

export const SHOWN = 60; // rows rendered at once; typing narrows the rest down

// The id of a row's first cell, which the search box points at while the row is selected.
export const rowId = (entry) => `door-guest-${idOf(entry)}`;

export const view = {
  build() {
    this.head = h("div", { class: "door-head" });
    this.syncSlot = h("div", { class: "sync-slot", "aria-live": "polite" });
    // not a live region: every door's check-ins change them, and a screen reader would read them all night
    this.counters = h("div", { class: "counters" });
    this.actions = h("div", { class: "actions", id: "door-actions" });
    // on a phone the actions fold behind one button (css/app.css), so the counters keep their line
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
      "aria-label": t("door.searchLabel"), role: "combobox", "aria-controls": "door-results", "aria-haspopup": "grid",
      "aria-expanded": "false", "aria-autocomplete": "list" });
    this.search.addEventListener("input", () => this.flushSearch());
    this.chips = h("div", { class: "chips", role: "radiogroup", "aria-label": t("door.show") },
      FILTERS.map(([value, key]) => h("button", { type: "button", class: "chip", role: "radio", dataset: { filter: value },
        "aria-checked": String(value === this.filter), onclick: () => this.setFilter(value) }, t(key))));
    this.attention = h("div", { class: "attention", "aria-live": "polite" });
    // the one live region of what this door did (announce()): its check-ins, undos and their outcomes
    this.last = h("div", { class: "last-action", "aria-live": "assertive" });
    // a grid of divs (a list item may not be a row), not a listbox: a row holds buttons, which an option may not. The search box keeps the focus and
    // points at the selected row (aria-activedescendant, screen.js select()), so the arrows and Enter work there.
    this.list = h("div", { class: "results", id: "door-results", role: "grid", "aria-label": t("door.guests") });
    this.more = h("p", { class: "muted more" });
    // on a phone the counters and the actions share one line (css/app.css), so results show above the keyboard
    this.view.append(h("section", { class: "door" }, this.head, h("div", { class: "door-bar" }, this.counters, this.menu, this.actions),
      this.syncSlot, this.network,
      h("div", { class: "search-bar" }, this.search, this.chips), this.attention, this.last, this.list, this.more));
    this.renderHead();
    this.renderNetwork();
    this.renderQueue();
    this.search.focus();
  },

  renderHead() {
    const m = this.meetup;
    const action = (label, onclick) => h("button", { type: "button", class: "secondary", onclick }, label);
    const actions = [];
    if (!m.is_finalized) {
      actions.push(action(t("door.addWalkIn"), () => this.walkIn()));
      if (!isPass()) { // a door pass works the door only: no sync, no import
        // a meetup from a file has no platform list to sync with; its newer file updates it
        if (m.platform_url) actions.push(action(t("door.syncRsvps"), (e) => this.sync(e.currentTarget)));
        actions.push(action(t("import.updateButton"), () => this.importNewer()));
      }
    }
    if (isOrgAdmin()) {
      actions.push(m.is_finalized
        ? action(t("meetup.unfinalize"), () => this.setFinalized(false))
        : action(t("meetup.finalize"), () => this.setFinalized(true)));
    }
    clear(this.actions, actions);
    clear(this.head,
      isPass() && this.meetup.id === session.user.pass.meetup_id ? null
        : h("a", { class: "back", href: isPass() ? "#/door-meetups" : "#/meetups", "aria-label": t("door.backToMeetups") }, "←"),
      h("div", { class: "title" },
        h("h1", {}, m.name),
        h("p", { class: "muted" }, formatDate(m.date),
          " · ", m.last_synced_at ? t(m.platform_url ? "door.synced" : "door.fileRead", { time: formatTime(m.last_synced_at) })
            : t("door.neverSynced"))),
      m.is_finalized ? h("div", { class: "alert info wide" }, t("door.finalizedNote")) : null,
      m.cancelled_at ? h("div", { class: "alert warn wide cancelled" }, t("door.cancelledNote", { reason: m.cancel_reason })) : null);
  },

  renderCounters() {
    const counts = this.state.tally();
    const tile = (label, value, kind) => h("div", { class: `counter ${kind}`, dataset: { counter: kind } },
      h("span", { class: "value" }, formatNumber(value)), h("span", { class: "label" }, label));
    clear(this.counters, tile(t("counter.rsvps"), counts.rsvps, "rsvps"), tile(t("counter.arrived"), counts.arrived, "arrived"),
      tile(t("counter.expected"), counts.expected, "expected"), tile(t("counter.walkins"), counts.walkins, "walkins"));
  },

  // Offline: say what still works, and whether a reload is safe (only where a service worker keeps the shell).
  renderNetwork() {
    if (!isOffline()) return clear(this.network);
    const reload = window.isSecureContext && navigator.serviceWorker?.controller
      ? t("door.reloadSafe")
      : t("door.doNotReload");
    clear(this.network, h("div", { class: "alert warn" },
      h("strong", {}, t("door.noNetwork")), " ", t("door.offlineText"), " ", reload));
  },

  // What waits to be sent, and what needs the door's attention: only the account that made an action sees
  // what became of it; another account sees how many wait for their maker.
  renderQueue() {
    const items = queue.items(this.meetup.id);
    this.state.pending(items.filter((i) => i.state === "waiting"));
    const mine = items.filter(queue.mine);
    const attention = mine.filter((i) => i.state !== "waiting");
    const waiting = mine.length - attention.length;
    const others = items.filter((i) => i.state === "waiting" && !queue.mine(i));
    const makers = [...new Set(others.map((i) => `@${i.user}`))].join(", ");
    clear(this.attention,
      waiting ? h("div", { class: "alert info", dataset: { queue: "waiting" } },
        t("door.queueWaiting", { count: waiting })) : null,
      others.length ? h("div", { class: "alert warn", dataset: { queue: "others" } },
        t("door.queueOthers", { count: others.length, makers })) : null,
      attention.length ? h("div", { class: "alert error needs-attention" }, h("strong", {}, t("door.needsAttention")),
        h("ul", {}, attention.map((item) => this.attentionItem(item)))) : null);
  },

  // A refused action says why (dismissed once handled); a failed one can go again.
  attentionItem(item) {
    const button = (label, onclick) => h("button", { type: "button", class: "secondary small", onclick }, label);
    const text = item.state === "failed"
      ? t("door.failedItem", { action: describe(item), problem: problemText(item.problem), count: item.failures })
      : t("door.refusedItem", { action: describe(item), problem: problemText(item.problem) });
    return h("li", {}, text, " ", item.state === "failed" ? button(t("door.tryAgain"), () => queue.retry(item.id)) : null,
      " ", button(t("door.dismiss"), () => queue.dismiss(item.id)));
  },

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
    this.search.setAttribute("aria-expanded", String(shown.length > 0));
    this.select(this.selectedId, this.chosen);
    if (!this.loaded) this.more.textContent = t("door.loading");
    else if (!this.state.entries.length) this.more.textContent = t("door.emptyList");
    else if (!results.length) {
      clear(this.more, t("door.noMatch"), " ",
        this.meetup.is_finalized ? t("door.noMatchFinalized")
          : h("button", { type: "button", class: "secondary", onclick: () => this.walkIn() }, t("door.addAsWalkIn", { name: query.trim() })));
    }
    else if (results.length > SHOWN) this.more.textContent = t("door.showing", { shown: SHOWN, count: results.length });
    else this.more.textContent = "";
  },

  row(entry) {
    const { guest, rsvp } = entry;
    const selected = idOf(entry) === this.selectedId;
    const classes = ["row"];
    if (guest.is_banned) classes.push("banned");
    if (rsvp.has_arrived) classes.push("arrived");
    if (rsvp.cancelled_rsvp) classes.push("cancelled");
    if (entry.pending) classes.push("pending");
    const cell = (name, ...children) => h("div", { class: name, role: "gridcell" }, ...children);
    let state;
    if (entry.pending) {
      state = cell("state", h("span", { class: "badge pending" }, t("door.pending")), " ",
        t("door.pendingText", { what: t(`door.pending.${entry.pending}`), time: formatTime(entry.pendingAt) }));
    } else if (rsvp.has_arrived) {
      state = cell("state", h("span", { class: "badge arrived" }, `#${rsvp.arrival_order}`),
        " ", t("door.arrivedAt", { time: formatTime(rsvp.arrival_time) }),
        rsvp.checked_in_by ? [" · ", t("door.letInBy", { username: actorName(rsvp.checked_in_by) })] : "");
    } else {
      state = cell("state", rsvp.cancelled_rsvp ? t("door.rsvpCancelled") : t("counter.expected"));
    }
    const closed = this.meetup.is_finalized || Boolean(entry.pending);
    const who = named(guest); // every action names its guest: sixty rows are not sixty "Check in" buttons
    const button = rsvp.has_arrived
      ? h("button", { type: "button", class: "secondary", disabled: closed, "aria-label": t("door.undoNamed", { guest: who }),
        onclick: () => this.undo(entry) }, t("door.undo"))
      : h("button", { type: "button", class: guest.is_banned ? "danger" : "primary", disabled: closed,
        "aria-label": t(guest.is_banned ? "door.checkInBannedNamed" : "door.checkInNamed", { guest: who }),
        onclick: () => this.act(entry) }, guest.is_banned ? t("door.checkInBanned") : t("door.checkIn"));
    return h("div", { class: classes.join(" "), role: "row", "aria-selected": String(selected),
      dataset: { guest: idOf(entry) },
      onclick: (event) => { if (!event.target.closest("button")) this.select(idOf(entry), true); } },
    h("div", { class: "who", role: "gridcell", id: rowId(entry) },
      h("span", { class: "name" }, shortName(guest)),
      // on a list read from a file everyone is "not on the platform": said (and linked) only where others are
      guest.is_local && !this.meetup.platform_url ? null
        : h("span", { class: "username" }, guest.is_local ? t("guest.notOnPlatform") : "@" + guest.username),
      rsvp.is_walkin ? h("span", { class: "tag" }, t("door.walkInTag")) : null,
      rowBadges(entry)),
    guest.is_banned ? cell("ban", h("strong", {}, t("door.banned")), " ", guest.ban_reason || "") : null,
    state,
    cell("act", button, guest.is_local && !entry.pending && isOrgAdmin() && this.meetup.platform_url
      ? h("button", { type: "button", class: "secondary", "aria-label": t("door.linkNamed", { guest: who }),
        onclick: () => this.link(guest) }, t("door.linkButton")) : null));
  },
};
