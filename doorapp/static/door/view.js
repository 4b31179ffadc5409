// What the door screen draws (mixed into DoorScreen by screen.js): its head and actions, the counters (the
// people inside: room.js), the search bar with its filters and status line (status.js) and the list, one
// row.js row per result.
import { clear, formatDate, formatTime, h } from "../core/dom.js";
import { formatNumber, t } from "../core/i18n.js";
import { isOrgAdmin, isPass, session } from "../core/session.js";
import { FILTERS, idOf, tagFilter } from "./list.js";
import { shortName } from "../shared/names.js";
import { noticeDetails } from "../shared/notice.js";
import { tagDot } from "../shared/tags.js";

export const SHOWN = 60; // rows rendered at once; typing narrows the rest down

// The names that more than one guest on the list has.
function namesakes(entries) {
  const seen = new Set(),
    twice = new Set();
  for (const { guest } of entries) (seen.has(shortName(guest)) ? twice : seen).add(shortName(guest));
  return twice;
}

// Back to the meetups, but for a door pass on its own meetup (it has no other).
function backLink(meetup) {
  if (isPass() && meetup.id === session.user.pass.meetup_id) return null;
  return h(
    "a",
    { class: "back", href: isPass() ? "#/door-meetups" : "#/meetups", "aria-label": t("door.backToMeetups") },
    "←",
  );
}

// One note: a cancelled night says so even once finalized (nobody was let in either way).
function meetupNote(meetup) {
  if (meetup.cancelled_at) {
    return h(
      "div",
      { class: "alert warn wide cancelled" },
      t("door.cancelledNote", { reason: meetup.cancel_reason }),
    );
  }
  return meetup.is_finalized ? h("div", { class: "alert info wide" }, t("door.finalizedNote")) : null;
}

export const view = {
  build() {
    this.head = h("div", { class: "door-head" });
    // not a live region: every door's check-ins change them, and a screen reader would read them all night
    this.counters = h("div", { class: "counters" });
    this.actions = h("div", { class: "actions", id: "door-actions" });
    // on a phone the actions fold behind one button (css/app.css), so the counters keep their line
    const toggle = h(
      "button",
      {
        type: "button",
        class: "secondary menu-toggle",
        "aria-label": t("door.actions"),
        "aria-expanded": "false",
        "aria-controls": "door-actions",
        onclick: () => toggle.setAttribute("aria-expanded", String(this.actions.classList.toggle("open"))),
      },
      "⋯",
    );
    this.actions.addEventListener("click", (event) => {
      if (event.target.closest("button")) {
        this.actions.classList.remove("open");
        toggle.setAttribute("aria-expanded", "false");
      }
    });
    this.menu = toggle;
    this.search = h("input", {
      type: "search",
      class: "door-search",
      placeholder: t("door.searchPlaceholder"),
      autocomplete: "off",
      autocapitalize: "none",
      spellcheck: "false",
      enterkeyhint: "go",
      "aria-label": t("door.searchLabel"),
      role: "combobox",
      "aria-controls": "door-results",
      "aria-haspopup": "grid",
      "aria-expanded": "false",
      "aria-autocomplete": "list",
    });
    this.search.addEventListener("input", () => this.flushSearch());
    this.chips = h("div", { class: "chips", role: "radiogroup", "aria-label": t("door.show") });
    this.renderChips();
    // someone left without being found on the list: beside the counters, on a phone's one line too
    this.leftSlot = h("div", { class: "left-slot" });
    // a grid of divs (a list item may not be a row), not a listbox: a row holds buttons, which an option may
    // not. The search box keeps the focus and points at the selected row (aria-activedescendant, screen.js
    // select()), so the arrows and Enter work there.
    this.list = h("div", {
      class: "results",
      id: "door-results",
      role: "grid",
      "aria-label": t("door.guests"),
    });
    this.more = h("p", { class: "muted more" });
    // on a phone the counters and the actions share one line (css/app.css), and the network, the queue and
    // the last message one more in the sticky search bar, so results show above the keyboard in any state
    this.view.append(
      h(
        "section",
        { class: "door" },
        this.head,
        h("div", { class: "door-bar" }, this.counters, this.leftSlot, this.menu, this.actions),
        h("div", { class: "search-bar" }, this.search, this.chips, this.buildStatus()),
        this.list,
        this.more,
      ),
    );
    this.renderHead();
    this.renderNetwork();
    this.renderQueue();
    this.search.focus();
  },

  renderHead() {
    clear(this.actions, this.headActions());
    clear(this.head, backLink(this.meetup), this.title(), meetupNote(this.meetup));
  },

  // The actions menu: a walk-in, sync and a newer file while the night is open; capacity and finalize for
  // admins.
  headActions() {
    const m = this.meetup;
    const action = (label, onclick, dataset) =>
      h("button", { type: "button", class: "secondary", dataset, onclick }, label);
    const actions = [];
    if (!m.is_finalized) {
      actions.push(action(t("door.addWalkIn"), () => this.walkIn()));
      if (!isPass()) {
        // a door pass works the door only: no sync, no import
        // a meetup from a file has no platform list to sync with; its newer file updates it
        if (m.platform_url) actions.push(action(t("door.syncRsvps"), (e) => this.sync(e.currentTarget)));
        actions.push(action(t("import.updateButton"), () => this.importNewer()));
      }
    }
    if (isOrgAdmin()) {
      if (!m.is_finalized)
        actions.push(action(t("door.capacityButton"), () => this.setCapacity(), { action: "capacity" }));
      actions.push(
        m.is_finalized
          ? action(t("meetup.unfinalize"), () => this.setFinalized(false))
          : action(t("meetup.finalize"), () => this.setFinalized(true)),
      );
    }
    return actions;
  },

  title() {
    const m = this.meetup;
    return h(
      "div",
      { class: "title" },
      h("h1", {}, m.name),
      h(
        "p",
        { class: "muted" },
        formatDate(m.date),
        " · ",
        m.last_synced_at
          ? t(m.platform_url ? "door.synced" : "door.fileRead", { time: formatTime(m.last_synced_at) })
          : t("door.neverSynced"),
      ),
      this.notice ? noticeDetails(this.notice) : null,
    );
  },

  renderCounters() {
    const counts = this.state.tally();
    const tile = (label, value, kind) =>
      h(
        "div",
        { class: `counter ${kind}${value ? "" : " zero"}`, dataset: { counter: kind } },
        h("span", { class: "value" }, formatNumber(value)),
        h("span", { class: "label" }, label),
      );
    clear(
      this.counters,
      tile(t("counter.rsvps"), counts.rsvps, "rsvps"),
      tile(t("counter.arrived"), counts.arrived, "arrived"),
      tile(t("counter.people"), counts.people, "people"),
      this.insideCounter(counts),
      tile(t("counter.expected"), counts.expected, "expected"),
      tile(t("counter.waitlisted"), counts.waitlisted, "waitlisted"),
      tile(t("counter.walkins"), counts.walkins, "walkins"),
    );
    clear(
      this.leftSlot,
      this.meetup.is_finalized || !counts.inside
        ? null
        : h(
            "button",
            {
              type: "button",
              class: "secondary small left",
              "aria-label": t("door.someoneLeft"),
              title: t("door.someoneLeft"),
              onclick: () => this.someoneLeft(),
            },
            "−1",
          ),
    );
  },

  // The filters: by state, then one chip per tag on the list's guests ("Speaker"),
  // drawn again when those change.
  renderChips() {
    const tags = this.state.tags();
    const shown = JSON.stringify(tags);
    if (shown === this.chipsShown) return;
    this.chipsShown = shown;
    if (this.filter.startsWith("tag:") && !tags.some((tag) => tagFilter(tag) === this.filter))
      this.filter = "all";
    const chip = (value, ...label) =>
      h(
        "button",
        {
          type: "button",
          class: "chip",
          role: "radio",
          dataset: { filter: value },
          "aria-checked": String(value === this.filter),
          onclick: () => this.setFilter(value),
        },
        ...label,
      );
    this.chips.classList.toggle("with-tags", tags.length > 0);
    clear(
      this.chips,
      FILTERS.map(([value, key]) => chip(value, t(key))),
      tags.map((tag) => chip(tagFilter(tag), tagDot(tag), tag.label)),
    );
  },

  renderResults() {
    const query = this.search.value;
    const { results, total, target } = this.state.query(query, this.filter, SHOWN);
    Object.assign(this, { results, total, target }); // the first SHOWN results, of `total`
    if (!results.some((e) => idOf(e) === this.selectedId)) {
      this.selectedId = query.trim() && results.length ? idOf(results[0]) : null;
      this.chosen = false;
    }
    if (this.namesakesOf !== this.state.era) {
      // names change only with the list's order (list.js's era)
      this.namesakes = namesakes(this.state.entries);
      this.namesakesOf = this.state.era;
    }
    clear(
      this.list,
      results.map((entry) => this.row(entry)),
    );
    this.search.setAttribute("aria-expanded", String(results.length > 0));
    this.select(this.selectedId, this.chosen);
    if (!this.loaded) this.more.textContent = t("door.loading");
    else if (!this.state.size) this.more.textContent = t("door.emptyList");
    else if (!total) {
      clear(
        this.more,
        t("door.noMatch"),
        " ",
        this.meetup.is_finalized
          ? t("door.noMatchFinalized")
          : h(
              "button",
              { type: "button", class: "secondary", onclick: () => this.walkIn() },
              t("door.addAsWalkIn", { name: query.trim() }),
            ),
      );
    } else if (total > SHOWN) this.more.textContent = t("door.showing", { shown: SHOWN, count: total });
    else this.more.textContent = "";
  },
};
