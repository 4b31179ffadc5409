// The door list's state, apart from the screen that draws it: entries with their
// search text, the filter, pending actions, and what a query finds, in which order, and whether Enter may
// act on it; and the counts, the people inside among them. Pure: no DOM, no requests, so a test can
// evaluate it in the page.
import { fold, haystack, search } from "../core/search.js";

export const FILTERS = [["all", "filter.all"], ["expected", "filter.expected"], ["waitlisted", "filter.waitlisted"],
  ["arrived", "filter.arrived"], ["banned", "filter.banned"]]; // [value, catalogue key]

// "Waitlist": an RSVP on the platform's waiting list, not cancelled, not arrived (the summary's WAITLIST outcome,
// the list's counts.waitlisted). Checking one in asks first.
export const isWaitlisted = (rsvp) => Boolean(rsvp.waitlisted) && !rsvp.is_walkin && !rsvp.has_arrived && !rsvp.cancelled_rsvp;

// "Expected", the one definition the counter and the filter share: not arrived, no cancelled RSVP and not on the
// waitlist (a walk-in added but not let in, or let in and undone, is expected too).
export const isExpected = (rsvp) => !rsvp.has_arrived && !rsvp.cancelled_rsvp && !isWaitlisted(rsvp);

// "Outside": an arrival who stepped out and is not back (Door keeps their number and time).
export const isOutside = (rsvp) => Boolean(rsvp.has_arrived) && rsvp.inside === false;

// The people an entry stands for at the door: an arrival and the guests they brought (none before arriving);
// and of them, those inside now (none while they are out).
const heads = (rsvp) => (rsvp.has_arrived ? 1 + (rsvp.guests_brought ?? 0) : 0);
const inside = (rsvp) => (isOutside(rsvp) ? 0 : heads(rsvp));

const KEEP = {
  all: () => true,
  expected: (e) => isExpected(e.rsvp),
  waitlisted: (e) => isWaitlisted(e.rsvp),
  arrived: (e) => e.rsvp.has_arrived,
  banned: (e) => e.guest.is_banned,
};

// A filter by one of the organization's tags: its chip's value is `tag:<id>`.
export const tagFilter = (tag) => `tag:${tag.id}`;
const keeper = (filter) => {
  if (!filter.startsWith("tag:")) return KEEP[filter] || KEEP.all;
  const id = Number(filter.slice(4));
  return (e) => (e.guest.tags || []).some((tag) => tag.id === id);
};

export const idOf = (entry) => String(entry.guest.platform_user_id);

// "@Grace_Okafor " -> "grace_okafor": what a typed query is as a username.
export function asUsername(query) {
  return fold(query.trim().replace(/^@/, ""));
}

// What a queued action (core/queue.js) will make of its guest's row, shown until Door answers it.
const PENDING = { checkin: "checkin", walkin: "checkin", local: "checkin", undo: "undo", exit: "exit", reenter: "reenter" };

function pendingRsvp(item, rsvp) {
  if (item.kind === "exit") return { inside: false, exited_at: item.at };
  if (item.kind === "reenter") return { inside: true, exited_at: null };
  const undo = item.kind === "undo";
  const brought = undo ? null : item.body?.guests_brought ?? rsvp.guests_count ?? 0; // as Door will count it
  return { has_arrived: !undo, inside: !undo, exited_at: null, arrival_order: null, arrival_time: null, guests_brought: brought };
}

export class DoorList {
  constructor() {
    this.stored = []; // the entries as Door last said, with the answers to this door's own actions since
    this.counts = null; // {rsvps, cancelled, walkins, arrived, waitlisted, people, inside, capacity} as Door last said (the list's `counts`)
    this.left = 0; // people this door counted out ("someone left") that Door's last list does not count yet
    this.said = new Map(); // id -> the entry as Door's last list said it: what the counts are counts of
    this.hays = [];
    this.waiting = []; // core/queue.js items not answered yet
    this.entries = []; // what the door shows: the stored entries with the waiting actions applied
    this.shownHays = [];
  }

  // A door-list answer (GET .../guests) replaces everything Door said before.
  load(answer) {
    this.stored = answer.guests;
    this.counts = answer.counts;
    this.left = 0;
    this.said = new Map(this.stored.map((e) => [idOf(e), e]));
    this.hays = this.stored.map(haystack);
    this.merge();
  }

  // One entry as an action's answer says it is now; a new one is added.
  put(entry) {
    const i = this.stored.findIndex((e) => idOf(e) === idOf(entry));
    if (i >= 0) {
      this.stored[i] = entry;
      this.hays[i] = haystack(entry);
    } else {
      this.stored.push(entry);
      this.hays.push(haystack(entry));
    }
    this.merge();
  }

  // Actions not answered yet (core/queue.js items): their guests show as they will be, marked `pending`.
  pending(items) {
    this.waiting = items;
    this.merge();
  }

  // People this door counted out that Door has answered, until its next list counts them (screen.js).
  countOut(people) {
    this.left += people;
  }

  merge() {
    const changed = new Map();
    const added = [];
    for (const item of this.waiting) { // in the order they will go: a step out, then back in, shows back in
      if (!item.guest) continue; // people who left: counted by tally()
      const known = item.guest.platform_user_id !== undefined && this.stored.find((e) => idOf(e) === String(item.guest.platform_user_id));
      const base = (known && changed.get(idOf(known))) || known
        || { guest: { is_banned: false, ban_reason: null, platform_user_id: `pending-${item.id}`, tags: [], note: null, ...item.guest },
          rsvp: { is_walkin: true, cancelled_rsvp: false, rsvp_time: item.at, checked_in_by: null } };
      const entry = { ...base, rsvp: { ...base.rsvp, ...pendingRsvp(item, base.rsvp) }, pending: PENDING[item.kind] || "checkin", pendingAt: item.at };
      if (known) changed.set(idOf(known), entry);
      else added.push(entry);
    }
    this.entries = this.stored.map((e) => changed.get(idOf(e)) || e).concat(added);
    this.shownHays = this.hays.concat(added.map(haystack));
  }

  find(id) {
    return this.entries.find((e) => idOf(e) === String(id)) || null;
  }

  // {rsvps, arrived, people, inside, capacity, expected, waitlisted, walkins}: Door's counts with what this
  // door did since its last list (actions answered, and actions its queue has not sent yet); "expected" and
  // "waitlisted" count the entries isExpected() and isWaitlisted() keep; "inside" never goes below 0.
  tally() {
    const counts = { rsvps: 0, arrived: 0, walkins: 0, people: 0, inside: 0, capacity: null, ...this.counts, expected: 0, waitlisted: 0 };
    for (const entry of this.entries) {
      const { rsvp } = entry;
      if (isExpected(rsvp)) counts.expected += 1;
      if (isWaitlisted(rsvp)) counts.waitlisted += 1;
      const said = this.said.get(idOf(entry));
      if (said) {
        counts.arrived += Number(rsvp.has_arrived) - Number(said.rsvp.has_arrived);
        counts.people += heads(rsvp) - heads(said.rsvp);
        counts.inside += inside(rsvp) - inside(said.rsvp);
      } else { // not on Door's last list: a walk-in this door added
        counts.walkins += Number(rsvp.is_walkin);
        counts.rsvps += Number(!rsvp.is_walkin && !rsvp.cancelled_rsvp);
        counts.arrived += Number(rsvp.has_arrived);
        counts.people += heads(rsvp);
        counts.inside += inside(rsvp);
      }
    }
    const leaving = this.waiting.filter((item) => item.kind === "left").reduce((sum, item) => sum + item.body.people, 0);
    counts.inside = Math.max(0, counts.inside - this.left - leaving);
    return counts;
  }

  // The organization's tags on the list's guests, by label, each once: the door's chips.
  tags() {
    const seen = new Map();
    for (const entry of this.entries) for (const tag of entry.guest.tags || []) seen.set(tag.id, tag);
    return [...seen.values()].sort((a, b) => a.label.localeCompare(b.label));
  }

  // What the door shows for `query` under `filter`: {results, target}. `target` is the entry Enter acts on
  // without asking: the exact username match, or the only result; null when the choice is not clear.
  // Order: an exact username match first (arrived or not: "already in" must show), then exact full-name
  // matches (arrived namesakes first, so the door sees who is already in), then search.js's order. The
  // Arrived filter lists the latest arrival first (the one an undo is most likely for).
  query(query, filter = "all") {
    const keep = keeper(filter);
    const wanted = asUsername(query);
    const name = fold(query.trim()).replace(/\s+/g, " ");
    const found = search(this.entries, this.shownHays, query).filter(keep);
    const tier = (e) => {
      if (wanted && fold(e.guest.username) === wanted && !e.guest.is_local) return 0;
      if (name && fold(e.guest.displayname).replace(/\s+/g, " ") === name) return e.rsvp.has_arrived ? 1 : 2;
      return 3;
    };
    const tiers = new Map(found.map((e) => [e, tier(e)]));
    // Arrived: the latest first by the door's time (a check-in sent late keeps its minute), one still
    // waiting to be sent (no time yet) on top
    const came = (e) => (e.rsvp.arrival_time ? Date.parse(e.rsvp.arrival_time) : Infinity);
    const latest = (a, b) => (filter === "arrived" ? came(b) - came(a) || (b.rsvp.arrival_order || 0) - (a.rsvp.arrival_order || 0) : 0);
    const results = found.map((e, i) => [e, i])
      .sort(([a, i], [b, j]) => tiers.get(a) - tiers.get(b) || latest(a, b) || i - j).map(([e]) => e);
    const exact = results.length && tiers.get(results[0]) === 0 ? results[0] : null;
    return { results, target: exact || (results.length === 1 ? results[0] : null) };
  }
}
