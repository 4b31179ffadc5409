// One row of the door's list (mixed into DoorScreen by screen.js, drawn by view.js): who the guest is, their
// ban and note, the state of their RSVP (pending, out, arrived, expected) and the buttons that act on them.
import { formatStamp, formatTime, h } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { isOrgAdmin } from "../core/session.js";
import { rowBadges } from "./badges.js";
import { idOf, isOutside, isWaitlisted } from "./list.js";
import { actorName, handle, hintText, named, shortName } from "../shared/names.js";
import { tagChip } from "../shared/tags.js";

// The id of a row's first cell, which the search box points at while the row is selected.
const rowId = (entry) => `door-guest-${idOf(entry)}`;

const cell = (name, ...children) => h("div", { class: name, role: "gridcell" }, ...children);

// The row's classes: what css/app.css marks (banned, arrived, outside, cancelled, waitlisted, pending).
function rowClasses({ guest, rsvp, pending }) {
  const marks = {
    banned: guest.is_banned,
    arrived: rsvp.has_arrived,
    outside: isOutside(rsvp),
    cancelled: rsvp.cancelled_rsvp,
    waitlisted: isWaitlisted(rsvp),
    pending,
  };
  return ["row", ...Object.keys(marks).filter((mark) => marks[mark])].join(" ");
}

function pendingState(entry) {
  return cell(
    "state",
    h("span", { class: "badge pending" }, t("door.pending")),
    " ",
    t("door.pendingText", {
      what: t(`door.pending.${entry.pending}`),
      time: formatTime(entry.pendingAt),
    }),
  );
}

function outsideState(rsvp) {
  return cell(
    "state",
    h("span", { class: "badge out" }, `#${rsvp.arrival_order}`),
    " ",
    h("strong", { class: "out-since" }, t("door.outSince", { time: formatTime(rsvp.exited_at) })),
    h("span", { class: "then" }, " · ", t("door.arrivedAt", { time: formatTime(rsvp.arrival_time) })),
  );
}

function arrivedState(rsvp) {
  return cell(
    "state",
    h("span", { class: "badge arrived" }, `#${rsvp.arrival_order}`),
    " ",
    t("door.arrivedAt", { time: formatTime(rsvp.arrival_time) }),
    rsvp.guests_count
      ? [
          " · ",
          h(
            "span",
            { class: "brought" },
            t("door.broughtOf", {
              brought: rsvp.guests_brought ?? rsvp.guests_count,
              count: rsvp.guests_count,
            }),
          ),
        ]
      : "",
    rsvp.checked_in_by
      ? h("span", { class: "by" }, " · ", t("door.letInBy", { username: actorName(rsvp.checked_in_by) }))
      : "",
  );
}

function expectedState(rsvp) {
  return cell(
    "state",
    rsvp.cancelled_rsvp
      ? t("door.rsvpCancelled")
      : isWaitlisted(rsvp)
        ? h("span", { class: "badge waitlist" }, t("door.waitlisted"))
        : t("counter.expected"),
  );
}

function stateCell(entry) {
  if (entry.pending) return pendingState(entry);
  if (isOutside(entry.rsvp)) return outsideState(entry.rsvp);
  if (entry.rsvp.has_arrived) return arrivedState(entry.rsvp);
  return expectedState(entry.rsvp);
}

export const rows = {
  // Beside the name: @username; for a guest read from a file, what tells them apart from namesakes (their
  // e-mail's first letters, their id's end, else the RSVP's time where the name is on the list twice). On a
  // list read from a file everyone is "not on the platform": said (and linked) only where others are.
  tellApart({ guest, rsvp }) {
    if (!guest.is_local) return handle(guest);
    const hint =
      hintText(guest) ||
      (this.namesakes.has(shortName(guest)) && !rsvp.is_walkin
        ? t("guest.hintRsvp", { time: formatStamp(rsvp.rsvp_time) })
        : "");
    return hint || (this.meetup.platform_url ? handle(guest) : "");
  },

  row(entry) {
    const { guest } = entry;
    return h(
      "div",
      {
        class: rowClasses(entry),
        role: "row",
        "aria-selected": String(idOf(entry) === this.selectedId),
        dataset: { guest: idOf(entry) },
        onclick: (event) => {
          if (!event.target.closest("button")) this.select(idOf(entry), true);
        },
      },
      this.whoCell(entry),
      guest.is_banned ? cell("ban", h("strong", {}, t("door.banned")), " ", guest.ban_reason || "") : null,
      guest.note ? cell("note", guest.note) : null,
      stateCell(entry),
      cell("act", this.rowButtons(entry), this.linkButton(entry)),
    );
  },

  whoCell(entry) {
    const { guest, rsvp } = entry;
    const apart = this.tellApart(entry);
    return h(
      "div",
      { class: "who", role: "gridcell", id: rowId(entry) },
      h("span", { class: "name" }, shortName(guest)),
      apart ? h("span", { class: "username" }, apart) : null,
      rsvp.is_walkin ? h("span", { class: "tag" }, t("door.walkInTag")) : null,
      (guest.tags || []).map(tagChip),
      rowBadges(entry),
    );
  },

  // An arrival: out and back in (Back in first: Enter does it), undo last; anyone else: check in.
  rowButtons(entry) {
    const { guest, rsvp } = entry;
    const closed = this.meetup.is_finalized || Boolean(entry.pending);
    // an arrival's steps out and back in queue behind one another and behind a check-in (a smoker out and
    // back while offline); not behind an undo, nor for a guest Door has not given an id yet
    const steps = this.meetup.is_finalized || entry.pending === "undo" || idOf(entry).startsWith("pending-");
    const who = named(guest); // every action names its guest: sixty rows are not sixty "Check in" buttons
    const button = (label, named, kind, onclick, disabled = closed) =>
      h(
        "button",
        { type: "button", class: kind, disabled, "aria-label": t(named, { guest: who }), onclick },
        label,
      );
    const undo = button(t("door.undo"), "door.undoNamed", "secondary", () => this.undo(entry));
    if (isOutside(rsvp)) {
      return [
        button(t("door.backInButton"), "door.backInNamed", "primary", () => this.act(entry), steps),
        undo,
      ];
    }
    if (rsvp.has_arrived) {
      return [
        button(t("door.stepOut"), "door.stepOutNamed", "secondary", () => this.stepOut(entry), steps),
        undo,
      ];
    }
    const kind = guest.is_banned ? "danger" : isWaitlisted(rsvp) ? "secondary" : "primary";
    const [label, labelNamed] = guest.is_banned
      ? [t("door.checkInBanned"), "door.checkInBannedNamed"]
      : [t("door.checkIn"), "door.checkInNamed"];
    return [button(label, labelNamed, kind, () => this.act(entry))];
  },

  // An admin links a guest read from a file to their platform account, on a list the platform has.
  linkButton({ guest, pending }) {
    if (!guest.is_local || pending || !isOrgAdmin() || !this.meetup.platform_url) return null;
    return h(
      "button",
      {
        type: "button",
        class: "secondary",
        "aria-label": t("door.linkNamed", { guest: named(guest) }),
        onclick: () => this.link(guest),
      },
      t("door.linkButton"),
    );
  },
};
