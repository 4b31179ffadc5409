// A guest's history in the current organization (#/guests/{platform_user_id}, admins): meetups attended,
// no-shows, last visit, the repeat no-show mark and the ban history.
import { api } from "./api.js";
import { formatDate, formatStamp, h } from "./dom.js";
import { orgPath } from "./session.js";

const day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
import { outcomeBadge } from "./summary.js";

export async function screen(view, [guestId], ctx) {
  const history = await api.get(orgPath(`/guests/${guestId}/history`));
  if (!ctx.alive) return;
  const { guest } = history;
  const tiles = [["Attended", history.attended, "ok"], ["No-shows", history.no_shows, history.no_shows ? "danger" : ""],
    ["Excused", history.excused], ["Last visit", history.last_visit ? day.format(new Date(history.last_visit)) : "never", "date"]];
  view.append(
    h("section", { class: "panel summary" },
      h("h1", {}, guest.displayname || guest.username),
      h("p", { class: "muted" }, "@" + guest.username, " · id ", String(guest.platform_user_id)),
      history.is_banned ? h("div", { class: "alert error" }, "Banned here: ", history.ban_reason) : null,
      history.repeat_no_show
        ? h("div", { class: "alert warn" }, `Repeat no-show: ${history.recent_no_shows} of the last ${history.recent} meetups. `,
          "This is a note for the door, never a ban by itself.")
        : null,
      h("div", { class: "tiles" }, tiles.map(([label, value, kind]) =>
        h("div", { class: `tile ${kind || ""}` }, h("span", { class: "value" }, String(value)), h("span", { class: "label" }, label))))),
    h("section", { class: "panel" }, h("h2", {}, "Meetups"),
      history.meetups.length
        ? h("ol", { class: "rows" }, history.meetups.map((m) => h("li", { class: "row" },
          h("div", { class: "who" }, h("a", { class: "name", href: `#/meetups/${m.meetup_id}/summary` }, m.name),
            outcomeBadge(m.outcome), m.guests_count ? h("span", { class: "tag" }, `+${m.guests_count}`) : null),
          h("div", { class: "state" }, formatDate(m.date)))))
        : h("p", { class: "muted" }, "Not on any meetup's list here yet.")),
    h("section", { class: "panel" }, h("h2", {}, "Bans"),
      history.bans.length
        ? h("ol", { class: "rows" }, history.bans.map((b) => h("li", { class: "row" },
          h("div", { class: "who" }, h("span", { class: "badge" }, b.event_type === "BAN" ? "Banned" : "Unbanned"),
            h("span", { class: "muted" }, formatStamp(b.timestamp))),
          b.reason ? h("div", { class: "reason" }, "Reason: ", b.reason) : null)))
        : h("p", { class: "muted" }, "Never banned here.")));
}
