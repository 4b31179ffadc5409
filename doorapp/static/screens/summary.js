// A meetup's attendance after the night (#/meetups/{id}/summary): the numbers, arrivals per 15 minutes as
// an SVG chart, and each guest's outcome. Admins excuse a no-show, correct the guests an arrival brought and
// download the guest list as CSV.
import { api } from "../core/api.js";
import { downloadCsv } from "../shared/csv-dialog.js";
import { guestList } from "./summary-guests.js";
import { arrivalsChart } from "./summary-chart.js";
import { outcomeBadge } from "../shared/outcome.js";
import { tagChip } from "../shared/tags.js";
import { ask, askButton, formatDate, formatTime, h, toast } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { doorHash, isOrgAdmin, orgPath } from "../core/session.js";
import { formatNumber, t } from "../core/i18n.js";
import { checkerName, handle, named, shortName } from "../shared/names.js";

export async function screen(view, [meetupId], ctx) {
  const path = orgPath(`/meetups/${meetupId}`);
  const summary = await api.get(`${path}/summary`);
  if (!ctx.alive) return;
  render(view, summary, path, ctx);
}

function render(view, summary, path, ctx) {
  const { meetup } = summary;
  view.append(
    h(
      "section",
      { class: "panel summary" },
      h("a", { class: "back", href: "#/meetups" }, "← ", t("nav.meetups")),
      h("h1", {}, meetup.name),
      h("p", { class: "muted" }, formatDate(meetup.date), " · ", meetupState(meetup)),
      meetup.cancelled_at
        ? h(
            "p",
            { class: "alert warn cancelled" },
            t("summary.cancelledBecause", { date: formatDate(meetup.cancelled_at) }),
            " ",
            meetup.cancel_reason,
          )
        : null,
      h("div", { class: "actions" }, summaryActions(summary, path, ctx)),
      h(
        "div",
        { class: "tiles" },
        tiles(summary).map(([label, value, kind, note]) =>
          h(
            "div",
            { class: `tile ${kind || ""}` },
            h("span", { class: "value" }, formatNumber(value)),
            h("span", { class: "label" }, label),
            note ? h("span", { class: "note" }, note) : null,
          ),
        ),
      ),
    ),
    arrivals(summary, view),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, t("summary.guests", { count: summary.guests.length })),
      summary.guests.length
        ? guestList(summary, (guest) => guestRow(guest, path, ctx))
        : h("p", { class: "muted" }, t("summary.emptyList")),
    ),
  );
}

function meetupState(meetup) {
  if (meetup.cancelled_at) return h("span", { class: "badge warn" }, t("meetup.cancelled"));
  if (meetup.is_finalized) return h("span", { class: "badge" }, t("meetup.finalized"));
  return t(meetup.is_over ? "summary.open" : "summary.upcoming");
}

// To the door's list; for admins, the CSV and the way out of a night that did not happen.
function summaryActions(summary, path, ctx) {
  const { meetup } = summary;
  const door = h(
    "a",
    { class: "button secondary", href: doorHash(meetup.org_id, meetup.id) },
    meetup.is_finalized ? t("summary.doorList") : t("meetups.openDoor"),
  );
  if (!isOrgAdmin()) return [door];
  return [
    door,
    h(
      "button",
      { type: "button", class: "primary", onclick: () => downloadCsv(`${path}/export`) },
      t("common.downloadCsv"),
    ),
    ...cancelOrDelete(summary, path, ctx),
  ];
}

// The numbers: [label, value, kind, note].
function tiles({ counts, peak_at }) {
  return [
    [
      t("summary.peopleIn"),
      counts.people,
      "ok",
      counts.guests_brought
        ? t("summary.brought", { arrived: counts.arrived, count: counts.guests_brought })
        : null,
    ],
    [t("counter.rsvps"), counts.rsvps],
    counts.upcoming
      ? [t("summary.tile.upcoming"), counts.upcoming]
      : [t("summary.noShows"), counts.no_shows, counts.no_shows ? "danger" : ""],
    // counts, worded as counts ("Cancelados"), not as one guest's outcome ("Canceló")
    [t("summary.tile.excused"), counts.excused],
    [t("summary.tile.cancelled"), counts.cancelled],
    [t("counter.waitlisted"), counts.waitlisted],
    [
      t("counter.walkins"),
      counts.walkins,
      "",
      counts.local_walkins ? t("summary.localWalkins", { count: counts.local_walkins }) : null,
    ],
    [t("summary.forced"), counts.forced_check_ins, counts.forced_check_ins ? "danger" : ""],
    [t("summary.undone"), counts.undone_check_ins],
    [
      t("summary.peak"),
      counts.peak_inside,
      "",
      peak_at ? t("summary.peakAt", { time: formatTime(peak_at) }) : null,
    ],
  ];
}

// Arrivals per bar of the chart, from the first to the last.
function arrivals(summary, view) {
  return h(
    "section",
    { class: "panel" },
    h("h2", {}, t("summary.arrivals")),
    summary.arrivals.length
      ? [
          h(
            "p",
            { class: "muted" },
            t("summary.arrivalRange", {
              first: formatTime(summary.first_arrival),
              last: formatTime(summary.last_arrival),
              minutes: summary.bar_minutes,
            }),
          ),
          arrivalsChart(summary.arrivals, summary.bar_minutes, Math.min(960, view.clientWidth - 48)),
        ]
      : h("p", { class: "muted" }, t("summary.noArrivals")),
  );
}

// An admin's way out for a night that did not happen: cancel it (its guests get no no-show) while nobody is
// in, or delete it outright while nobody was ever checked in (Door says no otherwise).
function cancelOrDelete({ meetup, counts }, path, ctx) {
  const buttons = [];
  if (!meetup.cancelled_at && !counts.arrived) {
    buttons.push(
      askButton(
        t("summary.cancelButton"),
        async () => ({
          title: t("summary.cancelTitle", { name: meetup.name }),
          message: t("summary.cancelText"),
          confirm: t("summary.cancelMeetup"),
          cancel: t("summary.keepMeetup"),
          danger: true,
          input: {
            label: t("common.reasonLabel"),
            required: true,
            placeholder: t("summary.cancelPlaceholder"),
            limits: (await limits("cancel_meetup")).reason,
          },
          action: (reason) => api.patch(`${path}/cancel`, { reason }),
        }),
        t("summary.cancelledToast", { name: meetup.name }),
        () => ctx.navigate(location.hash),
      ),
    );
  }
  if (!counts.arrived && !counts.undone_check_ins) {
    buttons.push(
      askButton(
        t("summary.deleteButton"),
        () => ({
          title: t("summary.deleteTitle", { name: meetup.name }),
          message: t("summary.deleteText"),
          confirm: t("summary.deleteMeetup"),
          danger: true,
          action: () => api.del(path),
        }),
        t("summary.deletedToast", { name: meetup.name }),
        () => ctx.navigate("#/meetups"),
      ),
    );
  }
  return buttons;
}

function guestRow(guest, path, ctx) {
  const excuse = isOrgAdmin() && guest.outcome === "NO_SHOW" ? excuseButton(guest, path, ctx) : null;
  const brought =
    isOrgAdmin() && guest.guests_count && guest.guests_brought !== null
      ? broughtButton(guest, path, ctx)
      : null;
  return h(
    "li",
    { class: "row", dataset: { guest: String(guest.platform_user_id) } },
    guestWho(guest),
    guest.note ? h("div", { class: "note" }, guest.note) : null,
    h("div", { class: "state" }, arrivalState(guest)),
    excuse || brought ? h("div", { class: "act" }, excuse, brought) : null,
  );
}

// The guest's name (for admins, a link to their history), username, outcome, the guests they brought and
// their tags.
function guestWho(guest) {
  const name = shortName(guest);
  return h(
    "div",
    { class: "who" },
    isOrgAdmin()
      ? h("a", { class: "name", href: `#/guests/${guest.platform_user_id}` }, name)
      : h("span", { class: "name" }, name),
    h("span", { class: "username" }, handle(guest)),
    outcomeBadge(guest.outcome),
    guest.guests_count
      ? h(
          "span",
          { class: "tag brought" },
          guest.guests_brought === null
            ? `+${guest.guests_count}`
            : t("door.broughtOf", { brought: guest.guests_brought, count: guest.guests_count }),
        )
      : null,
    (guest.tags || []).map(tagChip),
  );
}

// An admin excuses a no-show, with a reason.
function excuseButton(guest, path, ctx) {
  const name = shortName(guest);
  return h(
    "button",
    {
      type: "button",
      class: "secondary",
      "aria-label": t("summary.excuseNamed", { guest: named(guest) }),
      onclick: async () => {
        const done = await ask({
          title: t("summary.excuseTitle", { name }),
          message: t("summary.excuseText"),
          confirm: t("summary.excuse"),
          input: {
            label: t("common.reasonLabel"),
            required: true,
            placeholder: t("summary.excusePlaceholder"),
            limits: (await limits("excuse_no_show")).reason,
          },
          action: (reason) => api.patch(`${path}/guests/${guest.platform_user_id}/excuse`, { reason }),
        });
        if (done) {
          toast(t("summary.excused", { name }));
          ctx.navigate(location.hash);
        }
      },
    },
    t("summary.excuseButton"),
  );
}

// When the guest arrived (and who let them in), was excused, or cancelled.
function arrivalState(guest) {
  if (guest.arrival_time) {
    return [
      t("summary.arrivedAt", { order: guest.arrival_order, time: formatTime(guest.arrival_time) }),
      guest.checked_in_by ? [" · ", t("door.letInBy", { username: checkerName(guest) })] : "",
    ];
  }
  if (guest.excused_at) return t("summary.excusedOn", { date: formatDate(guest.excused_at) });
  if (guest.cancelled_at) return t("summary.cancelledOn", { date: formatDate(guest.cancelled_at) });
  return "";
}

// How many of an arrival's RSVP'd guests came, corrected by an admin: the door's People, this summary and the
// CSV follow.
function broughtButton(guest, path, ctx) {
  const name = shortName(guest),
    count = guest.guests_count;
  return h(
    "button",
    {
      type: "button",
      class: "secondary",
      "aria-label": t("summary.broughtNamed", { guest: named(guest) }),
      onclick: async () => {
        const done = await ask({
          title: t("summary.broughtTitle", { name }),
          message: t("summary.broughtText", { count }),
          input: {
            label: t("summary.broughtLabel", { count }),
            required: true,
            value: String(guest.guests_brought),
            limits: {
              ...(await limits("set_guests_brought")).guests_brought,
              max: count,
              type: "number",
              inputmode: "numeric",
            },
          },
          action: (value) =>
            api.patch(`${path}/guests/${guest.platform_user_id}/guests-brought`, {
              guests_brought: Number(value),
            }),
        });
        if (done !== null) {
          toast(t("summary.broughtSaved", { name, count: Number(done) }));
          ctx.navigate(location.hash);
        }
      },
    },
    t("summary.broughtButton"),
  );
}
