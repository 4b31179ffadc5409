// A guest's history in the current organization (#/guests/{platform_user_id}, admins): meetups attended,
// no-shows, last visit, the repeat no-show mark and the ban history; and the organization's tags and note on
// them, which its door rows show.
import { api } from "../core/api.js";
import { clear, formatDate, formatDay, formatStamp, h, toast } from "../core/dom.js";
import { formatNumber, t } from "../core/i18n.js";
import { orgPath } from "../core/session.js";
import { editGuestTags, tagChip } from "../shared/tags.js";

import { outcomeBadge } from "../shared/outcome.js";
import { handle, shortName } from "../shared/names.js";

export async function screen(view, [guestId], ctx) {
  const [history, kept] = await Promise.all([api.get(orgPath(`/guests/${guestId}/history`)),
    api.get(orgPath(`/guests/${guestId}/tags`))]);
  if (!ctx.alive) return;
  const { guest } = history;
  const tiles = [[t("outcome.attended"), formatNumber(history.attended), "ok"], [t("summary.noShows"), formatNumber(history.no_shows), history.no_shows ? "danger" : ""],
    [t("outcome.excused"), formatNumber(history.excused)], [t("guest.lastVisit"), history.last_visit ? formatDay(history.last_visit) : t("guest.never"), "date"]];
  view.append(
    h("section", { class: "panel summary" },
      h("h1", {}, shortName(guest)),
      h("p", { class: "muted" }, handle(guest), " · ", t("guest.id", { id: String(guest.platform_user_id) })),
      history.is_banned ? h("div", { class: "alert error" }, t("guest.bannedHere"), " ", history.ban_reason) : null,
      history.repeat_no_show
        ? h("div", { class: "alert warn" }, t("guest.repeatNoShow", { count: history.recent_no_shows, recent: history.recent }), " ",
          t("guest.repeatNote"))
        : null,
      h("div", { class: "tiles" }, tiles.map(([label, value, kind]) =>
        h("div", { class: `tile ${kind || ""}` }, h("span", { class: "value" }, String(value)), h("span", { class: "label" }, label))))),
    tagsPanel(guest, kept),
    h("section", { class: "panel" }, h("h2", {}, t("nav.meetups")),
      history.meetups.length
        ? h("ol", { class: "rows" }, history.meetups.map((m) => h("li", { class: "row" },
          h("div", { class: "who" }, h("a", { class: "name", href: `#/meetups/${m.meetup_id}/summary` }, m.name),
            outcomeBadge(m.outcome), m.guests_count ? h("span", { class: "tag" }, `+${m.guests_count}`) : null),
          h("div", { class: "state" }, formatDate(m.date)))))
        : h("p", { class: "muted" }, t("guest.noMeetups"))),
    h("section", { class: "panel" }, h("h2", {}, t("nav.bans")),
      history.bans.length
        ? h("ol", { class: "rows" }, history.bans.map((b) => h("li", { class: "row" },
          h("div", { class: "who" }, h("span", { class: "badge" }, b.event_type === "BAN" ? t("guest.banned") : t("guest.unbanned")),
            h("span", { class: "muted" }, formatStamp(b.timestamp))),
          b.reason ? h("div", { class: "reason" }, t("common.reason"), " ", b.reason) : null)))
        : h("p", { class: "muted" }, t("guest.neverBanned"))));
}

// What the door shows of them, and the button that changes it.
function tagsPanel(guest, kept) {
  const shown = h("div");
  const draw = ({ tags, note }) => clear(shown, tags.length || note
    ? [h("p", { class: "who" }, tags.map(tagChip)), note ? h("p", { class: "note" }, note) : null]
    : h("p", { class: "muted" }, t("tags.guestNone")));
  draw(kept);
  return h("section", { class: "panel guest-tags" }, h("h2", {}, t("tags.guestPanel")), shown,
    h("button", { type: "button", class: "secondary", onclick: async () => {
      const saved = await editGuestTags(guest);
      if (saved) {
        draw(saved);
        toast(t("tags.guestSaved", { name: guest.displayname || guest.username }));
      }
    } }, t("tags.guestButton")));
}
