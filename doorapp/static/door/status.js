// The door's status line (mixed into DoorScreen by screen.js): one line in the sticky search bar that says,
// most urgent first, what needs attention, whether the network is down, what waits to be sent, and then the
// last message (what became of the last action, the namesakes' hint, a sync's result, an error). It never
// grows past two lines (one with the keyboard up), so the results stay in view on a phone with its
// keyboard up. A tap opens its details over the list, without moving it: the message in full, the actions
// that need attention with their Try again and Dismiss, what the network's state means and whether a
// reload is safe, and each action that waits. The details are drawn only while open.
import { isOffline } from "../core/api.js";
import { clear, formatTime, h } from "../core/dom.js";
import { problemText, t } from "../core/i18n.js";
import * as queue from "../core/queue.js";
import { describe } from "./actions.js";

const URGENCY = ["ok", "info", "warn", "error"]; // the line's colour is that of its most urgent part

export const status = {
  buildStatus() {
    this.pills = h("span", { class: "status-pills", role: "status" });
    this.last = h("span", { class: "last-action", "aria-live": "assertive" });
    this.statusToggle = h(
      "button",
      {
        type: "button",
        class: "status-toggle",
        "aria-expanded": "false",
        "aria-controls": "door-status-details",
        "aria-label": t("door.status.details"),
        onclick: () => this.openStatus(!this.statusOpen()),
      },
      "▾",
    );
    this.statusDetails = h("div", { class: "status-details", id: "door-status-details", hidden: true });
    this.status = h(
      "div",
      { class: "door-status", hidden: true },
      h(
        "div",
        { class: "status-box" },
        h(
          "div",
          { class: "status-line" },
          h("div", { class: "status-text" }, this.pills, this.last),
          this.statusToggle,
        ),
        this.statusDetails,
      ),
    );
    this.message = null; // {text, kind}: the last thing the door was told
    this.needing = [];
    this.waiting = [];
    this.others = { count: 0, makers: "" };
    // a tap anywhere else closes the details: they are a look, not a place to stay
    this.view.addEventListener("pointerdown", (event) => {
      if (!this.status.contains(event.target)) this.openStatus(false);
    });
    return this.status;
  },

  statusOpen() {
    return this.statusToggle.getAttribute("aria-expanded") === "true";
  },

  // Open (or close) the details over the list. The line's place is held at its height meanwhile, so the
  // list does not move under the door's finger.
  openStatus(open) {
    if (open === this.statusOpen()) return;
    this.status.style.height = open ? `${this.status.getBoundingClientRect().height}px` : "";
    this.status.classList.toggle("open", open);
    this.statusDetails.hidden = !open;
    this.statusToggle.setAttribute("aria-expanded", String(open));
    this.renderDetails();
    if (!open && this.status.contains(document.activeElement)) this.search.focus();
  },

  // A message for the door: it replaces the one before (kind: ok, info, warn or error).
  announce(text, kind, progress = false) {
    this.hinted = false;
    this.message = { text, kind };
    this.last.dataset.kind = kind;
    clear(
      this.last,
      text,
      progress
        ? h("span", { class: "progress", role: "progressbar", "aria-label": t("sync.label") }, h("span"))
        : null,
    );
    this.renderStatus();
  },

  unannounce() {
    this.message = null;
    delete this.last.dataset.kind;
    clear(this.last);
    this.renderStatus();
  },

  // A reload while offline is safe only where a service worker keeps the shell.
  renderNetwork() {
    this.reloadSafe = Boolean(window.isSecureContext && navigator.serviceWorker?.controller);
    this.renderStatus();
  },

  // What waits to be sent, and what needs the door's attention: only the account that made an action sees
  // what became of it; another account sees how many wait for their maker.
  renderQueue() {
    const items = queue.items(this.meetup.id);
    this.state.pending(items.filter((i) => i.state === "waiting"));
    const mine = items.filter(queue.mine);
    this.needing = mine.filter((i) => i.state !== "waiting");
    this.waiting = mine.filter((i) => i.state === "waiting");
    const others = items.filter((i) => i.state === "waiting" && !queue.mine(i));
    this.others = { count: others.length, makers: [...new Set(others.map((i) => `@${i.user}`))].join(", ") };
    this.renderStatus();
  },

  // The line itself: a short pill for each state, most urgent first, then the message.
  renderStatus() {
    if (!this.status) return; // the queue or the network spoke before the screen was built
    const pill = (kind, text, dataset) => h("span", { class: `pill ${kind}`, dataset }, text);
    const pills = [
      this.needing.length
        ? pill("error", t("door.status.attention", { count: this.needing.length }), { queue: "attention" })
        : null,
      isOffline()
        ? pill("warn", t(this.reloadSafe ? "door.status.offline" : "door.status.offlineNoReload"), {
            network: "offline",
          })
        : null,
      this.waiting.length
        ? pill("info", t("door.status.waiting", { count: this.waiting.length }), { queue: "waiting" })
        : null,
      this.others.count ? pill("warn", t("door.status.others", this.others), { queue: "others" }) : null,
    ].filter(Boolean);
    // redrawn only when it changed: a live region speaks each redraw, and queue events come from every tab
    const said = pills.map((p) => p.outerHTML).join("");
    if (said !== this.pillsSaid) clear(this.pills, pills);
    this.pillsSaid = said;
    const kinds = [...pills.map((p) => p.classList[1]), this.message?.kind].filter(Boolean);
    this.status.hidden = !kinds.length;
    this.status.dataset.kind = kinds.reduce(
      (a, b) => (URGENCY.indexOf(b) > URGENCY.indexOf(a) ? b : a),
      "ok",
    );
    if (!kinds.length) this.openStatus(false);
    this.renderDetails();
  },

  // The details, in full: what needs attention, the network, what waits (mine, then other accounts').
  renderDetails() {
    if (!this.statusOpen()) return clear(this.statusDetails);
    const list = (items, text) =>
      h(
        "ul",
        {},
        items.map((item) => h("li", {}, text(item))),
      );
    clear(
      this.statusDetails,
      this.needing.length
        ? h(
            "div",
            { class: "needs-attention" },
            h("strong", {}, t("door.needsAttention")),
            list(this.needing, (item) => this.attentionItem(item)),
          )
        : null,
      isOffline()
        ? h(
            "p",
            {},
            h("strong", {}, t("door.noNetwork")),
            " ",
            t("door.offlineText"),
            " ",
            this.reloadSafe ? t("door.reloadSafe") : t("door.doNotReload"),
          )
        : null,
      this.waiting.length
        ? [
            h("p", {}, t("door.queueWaiting", { count: this.waiting.length })),
            list(this.waiting, (item) =>
              t("door.status.queued", { action: describe(item), time: formatTime(item.at) }),
            ),
          ]
        : null,
      this.others.count ? h("p", {}, t("door.queueOthers", this.others)) : null,
    );
  },

  // A refused action says why (dismissed once handled); a failed one can go again.
  attentionItem(item) {
    const button = (label, onclick) =>
      h("button", { type: "button", class: "secondary small", onclick }, label);
    const text =
      item.state === "failed"
        ? t("door.failedItem", {
            action: describe(item),
            problem: problemText(item.problem),
            count: item.failures,
          })
        : t("door.refusedItem", { action: describe(item), problem: problemText(item.problem) });
    return [
      text,
      " ",
      item.state === "failed" ? button(t("door.tryAgain"), () => queue.retry(item.id)) : null,
      " ",
      button(t("door.dismiss"), () => queue.dismiss(item.id)),
    ];
  },
};
