// What a door row says about a guest beyond their name (and the organization's tags on them: view.js): "+2"
// guests, the waiting list, their history in the organization ("4th visit", "2 no-shows in the last 5").
// Pure: built from the door list entry.
import { h } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { isWaitlisted } from "./list.js";

export function rowBadges({ guest, rsvp }) {
  const badges = [];
  if (rsvp.guests_count)
    badges.push(
      h(
        "span",
        { class: "tag plus", title: t("badge.brings", { count: rsvp.guests_count }) },
        `+${rsvp.guests_count}`,
      ),
    );
  // still waiting: the row's state says so; let in or cancelled: the tag keeps where they came from
  if (rsvp.waitlisted && !isWaitlisted(rsvp))
    badges.push(h("span", { class: "tag waitlist" }, t("badge.waitlist")));
  const past = guest.history;
  if (past && past.visits)
    badges.push(
      h("span", { class: "tag visits" }, t("badge.visit", { ordinal: past.visits + 1, n: past.visits + 1 })),
    );
  if (past && past.recent_no_shows) {
    badges.push(
      h(
        "span",
        { class: `tag no-shows${past.repeat_no_show ? " repeat" : ""}` },
        t("badge.noShows", { count: past.recent_no_shows, recent: past.recent }),
      ),
    );
  }
  return badges;
}
