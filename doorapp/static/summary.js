// A meetup's attendance after the night (#/meetups/{id}/summary): the numbers, arrivals per 15 minutes as
// an SVG chart, and each guest's outcome. Admins excuse a no-show and download the guest list as CSV.
import { api, download } from "./api.js";
import { arrivalsChart } from "./chart.js";
import { ask, busy, formatDate, formatTime, h, toast } from "./dom.js";
import { isOrgAdmin, orgPath } from "./session.js";

// Outcome -> [label, badge class]; an outcome this version does not know is shown as it comes.
const OUTCOMES = {
  ATTENDED: ["Attended", "ok"], WALK_IN: ["Walk-in", "ok"], NO_SHOW: ["No-show", "danger"],
  EXCUSED_ABSENCE: ["Excused", "warn"], CANCELLED: ["Cancelled", ""], WAITLIST: ["Waitlist", ""],
  NOT_CHECKED_IN: ["Not checked in", ""], UPCOMING: ["Expected", ""],
};

export function outcomeBadge(outcome) {
  const [text, kind] = OUTCOMES[outcome] || [outcome, ""];
  return h("span", { class: `badge ${kind}`, dataset: { outcome } }, text);
}

export async function screen(view, [meetupId], ctx) {
  const path = orgPath(`/meetups/${meetupId}`);
  const summary = await api.get(`${path}/summary`);
  if (!ctx.alive) return;
  render(view, summary, path, ctx);
}

function render(view, summary, path, ctx) {
  const { meetup, counts } = summary;
  const actions = [h("a", { class: "button secondary", href: `#/meetups/${meetup.id}` }, meetup.is_finalized ? "Door list" : "Open door")];
  if (isOrgAdmin()) {
    actions.push(h("button", { type: "button", class: "primary", onclick: (event) => busy(event.currentTarget, null, () => download(`${path}/export`)) },
      "Download CSV"));
  }
  const tiles = [
    ["People in", counts.people, "ok", counts.guests_brought ? `${counts.arrived} + ${counts.guests_brought} guests` : null],
    ["RSVPs", counts.rsvps], ["No-shows", counts.no_shows, counts.no_shows ? "danger" : ""],
    ["Excused", counts.excused], ["Cancelled", counts.cancelled], ["Waitlist", counts.waitlisted],
    ["Walk-ins", counts.walkins, "", counts.local_walkins ? `${counts.local_walkins} not on the platform` : null], ["Forced (banned)", counts.forced_check_ins, counts.forced_check_ins ? "danger" : ""],
    ["Undone", counts.undone_check_ins],
  ];
  view.append(
    h("section", { class: "panel summary" },
      h("a", { class: "back", href: "#/meetups" }, "← Meetups"),
      h("h1", {}, meetup.name),
      h("p", { class: "muted" }, formatDate(meetup.date), " · ",
        meetup.is_finalized ? h("span", { class: "badge" }, "finalized") : "open: the numbers can still change"),
      h("div", { class: "actions" }, actions),
      h("div", { class: "tiles" }, tiles.map(([label, value, kind, note]) =>
        h("div", { class: `tile ${kind || ""}` }, h("span", { class: "value" }, String(value)),
          h("span", { class: "label" }, label), note ? h("span", { class: "note" }, note) : null)))),
    h("section", { class: "panel" },
      h("h2", {}, "Arrivals"),
      summary.arrivals.length
        ? [h("p", { class: "muted" }, `First ${formatTime(summary.first_arrival)} · last ${formatTime(summary.last_arrival)} · per ${summary.bar_minutes} minutes`),
          arrivalsChart(summary.arrivals, summary.bar_minutes, Math.min(960, view.clientWidth - 48))]
        : h("p", { class: "muted" }, "Nobody has been checked in yet. Arrivals show here as the door lets people in.")),
    h("section", { class: "panel" },
      h("h2", {}, `Guests (${summary.guests.length})`),
      summary.guests.length
        ? h("ol", { class: "rows outcomes" }, summary.guests.map((guest) => guestRow(guest, path, ctx)))
        : h("p", { class: "muted" }, "Nobody is on the list. Sync the RSVPs from the door screen.")));
}

function guestRow(guest, path, ctx) {
  const name = guest.displayname || guest.username;
  const excuse = isOrgAdmin() && guest.outcome === "NO_SHOW"
    ? h("button", { type: "button", class: "secondary", onclick: async () => {
      const done = await ask({ title: `Excuse ${name}?`,
        message: "Their absence will not count towards a repeat no-show mark.", confirm: "Excuse",
        input: { label: "Reason", required: true, placeholder: "e.g. told us they were ill" },
        action: (reason) => api.patch(`${path}/guests/${guest.platform_user_id}/excuse`, { reason }) });
      if (done) {
        toast(`${name}'s absence is excused.`);
        ctx.navigate(location.hash);
      }
    } }, "Excuse…")
    : null;
  return h("li", { class: "row", dataset: { guest: String(guest.platform_user_id) } },
    h("div", { class: "who" },
      isOrgAdmin() ? h("a", { class: "name", href: `#/guests/${guest.platform_user_id}` }, name) : h("span", { class: "name" }, name),
      h("span", { class: "username" }, "@" + guest.username), outcomeBadge(guest.outcome),
      guest.guests_count ? h("span", { class: "tag" }, `+${guest.guests_count}`) : null),
    h("div", { class: "state" }, guest.arrival_time
      ? `#${guest.arrival_order} at ${formatTime(guest.arrival_time)}${guest.checked_in_by ? ` · let in by ${guest.checked_in_by}` : ""}`
      : guest.excused_at ? `excused ${formatDate(guest.excused_at)}` : guest.cancelled_at ? `cancelled ${formatDate(guest.cancelled_at)}` : ""),
    excuse ? h("div", { class: "act" }, excuse) : null);
}
