// What a door row says about a guest beyond their name: "+2" guests, the waiting list, their history in
// the organization ("4th visit", "2 no-shows in the last 5"). Pure: built from the door list entry.
import { h } from "./dom.js";

function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
}

export function rowBadges({ guest, rsvp }) {
  const badges = [];
  if (rsvp.guests_count) badges.push(h("span", { class: "tag plus", title: `Brings ${rsvp.guests_count} guest(s)` }, `+${rsvp.guests_count}`));
  if (rsvp.waitlisted) badges.push(h("span", { class: "tag waitlist" }, "waitlist"));
  const past = guest.history;
  if (past && past.visits) badges.push(h("span", { class: "tag visits" }, `${ordinal(past.visits + 1)} visit`));
  if (past && past.recent_no_shows) {
    badges.push(h("span", { class: `tag no-shows${past.repeat_no_show ? " repeat" : ""}` },
      `${past.recent_no_shows} no-show${past.recent_no_shows === 1 ? "" : "s"} in the last ${past.recent}`));
  }
  return badges;
}
