// The door list's state, apart from the screen that draws it: the entries as Door said them, kept up to date
// by its answers (a whole list, or a delta since the version held: apply), pending actions, and what a query
// finds, in which order, and whether Enter may act on it, and the counts (the people inside among them). A
// list of 20,000 stays quick on a phone: each entry's search text is folded once, and the entries are kept in
// search.js's order by name, so a keystroke is one pass over the list (over the last one's matches, when it
// only adds to what was typed) and never a sort. Pure: no DOM, no requests, so a test can evaluate it in the
// page.
import { byName, keysOf, matcher, rank, terms, tierOf } from "../core/search.js";

export const FILTERS = [
  ["all", "filter.all"],
  ["expected", "filter.expected"],
  ["waitlisted", "filter.waitlisted"],
  ["arrived", "filter.arrived"],
  ["banned", "filter.banned"],
]; // [value, catalogue key]

// "Waitlist": an RSVP on the platform's waiting list, not cancelled, not arrived (the summary's WAITLIST
// outcome, the list's counts.waitlisted). Checking one in asks first.
export const isWaitlisted = (rsvp) =>
  Boolean(rsvp.waitlisted) && !rsvp.is_walkin && !rsvp.has_arrived && !rsvp.cancelled_rsvp;

// "Expected", the one definition the counter and the filter share: not arrived, no cancelled RSVP and not on
// the waitlist (a walk-in added but not let in, or let in and undone, is expected too).
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

// Arrived: the latest first by the door's time (a check-in sent late keeps its minute), one still waiting to
// be sent (no time yet) on top.
const came = (e) => (e.rsvp.arrival_time ? Date.parse(e.rsvp.arrival_time) : Infinity);
const latest = (a, b) => came(b) - came(a) || (b.rsvp.arrival_order || 0) - (a.rsvp.arrival_order || 0);

export const idOf = (entry) => String(entry.guest.platform_user_id);

// What a queued action (core/queue.js) will make of its guest's row, shown until Door answers it.
const PENDING = {
  checkin: "checkin",
  walkin: "checkin",
  local: "checkin",
  undo: "undo",
  exit: "exit",
  reenter: "reenter",
};

function pendingRsvp(item, rsvp) {
  if (item.kind === "exit") return { inside: false, exited_at: item.at };
  if (item.kind === "reenter") return { inside: true, exited_at: null };
  const undo = item.kind === "undo";
  // as Door will count it
  const brought = undo ? null : (item.body?.guests_brought ?? rsvp.guests_count ?? 0);
  return {
    has_arrived: !undo,
    inside: !undo,
    exited_at: null,
    arrival_order: null,
    arrival_time: null,
    guests_brought: brought,
  };
}

const sameName = (a, b) =>
  a.guest.username === b.guest.username && a.guest.displayname === b.guest.displayname;

export class DoorList {
  constructor() {
    this.version = null; // the version of the list Door last said (its answers' `version`)
    // {rsvps, cancelled, walkins, arrived, waitlisted, people, inside, capacity} as Door last said
    // (the list's `counts`)
    this.counts = null;
    this.left = 0; // people this door counted out ("someone left") that Door's last answer does not count yet
    this.stored = new Map(); // id -> the entry as Door last said, or as this door's own action's answer since
    this.said = new Map(); // id -> the entry as Door's list last said it: what the counts are counts of
    this.keys = new Map(); // id -> keysOf(entry)
    this.order = []; // ids by name (search.js's byName); namesakes in the order Door listed them first
    this.era = 0; // moves on whenever `order` or `keys` change: the last search's matches are of one era
    this.last = null; // {era, wanted: its terms, ids: its matches in order} of the last search
    this.waiting = []; // core/queue.js items not answered yet
    this.changed = new Map(); // id -> the entry as a waiting action will leave it, marked `pending`
    this.added = []; // waiting walk-ins not on the list yet, as they will be
  }

  // A door-list answer (GET .../guests): a whole one (`full`, or an answer before versions) replaces
  // everything Door said before; a delta replaces the entries it holds and drops those `removed`.
  apply(answer) {
    if (answer.full !== false) return this.load(answer);
    for (const entry of answer.guests) this.set(entry, true);
    for (const id of answer.removed) this.drop(String(id));
    this.counts = answer.counts;
    this.version = answer.version;
    this.left = 0;
    return this.merge();
  }

  load(answer) {
    this.stored = new Map(answer.guests.map((e) => [idOf(e), e]));
    this.said = new Map(this.stored);
    this.keys = new Map(answer.guests.map((e) => [idOf(e), keysOf(e)]));
    const at = new Map([...this.stored.keys()].map((id, i) => [id, i]));
    this.order = [...this.stored.keys()].sort(
      (a, b) => byName(this.stored.get(a), this.stored.get(b)) || at.get(a) - at.get(b),
    );
    this.counts = answer.counts;
    this.left = 0;
    this.version = answer.version ?? null;
    this.era += 1;
    this.merge();
  }

  // One entry as an action's answer says it is now; a new one is added.
  put(entry) {
    this.set(entry, false);
    this.merge();
  }

  set(entry, said) {
    const id = idOf(entry);
    const before = this.stored.get(id);
    this.stored.set(id, entry);
    if (said) this.said.set(id, entry);
    if (before && sameName(before, entry)) return;
    this.era += 1;
    this.keys.set(id, keysOf(entry));
    if (before) this.order.splice(this.order.indexOf(id), 1);
    this.order.splice(this.place(entry), 0, id);
  }

  drop(id) {
    if (!this.stored.has(id)) return;
    this.era += 1;
    this.stored.delete(id);
    this.said.delete(id);
    this.keys.delete(id);
    this.order.splice(this.order.indexOf(id), 1);
  }

  // Where an entry goes in `order`: after every entry whose name sorts before it or the same.
  place(entry, order = this.order, entryOf = (id) => this.stored.get(id)) {
    let low = 0,
      high = order.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (byName(entryOf(order[middle]), entry) <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
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
    this.changed = new Map();
    this.added = [];
    for (const item of this.waiting) {
      // in the order they will go: a step out, then back in, shows back in
      if (!item.guest) continue; // people who left: counted by tally()
      const known =
        item.guest.platform_user_id !== undefined && this.stored.get(String(item.guest.platform_user_id));
      const base = (known && this.changed.get(idOf(known))) ||
        known || {
          guest: {
            is_banned: false,
            ban_reason: null,
            platform_user_id: `pending-${item.id}`,
            tags: [],
            note: null,
            ...item.guest,
          },
          rsvp: { is_walkin: true, cancelled_rsvp: false, rsvp_time: item.at, checked_in_by: null },
        };
      const entry = {
        ...base,
        rsvp: { ...base.rsvp, ...pendingRsvp(item, base.rsvp) },
        pending: PENDING[item.kind] || "checkin",
        pendingAt: item.at,
      };
      if (known) this.changed.set(idOf(known), entry);
      else this.added.push(entry);
    }
  }

  // The entry the door shows for this id: with a waiting action applied.
  shown(id) {
    return this.changed.get(id) || this.stored.get(id);
  }

  // Every entry the door shows: the list's, then the waiting walk-ins.
  get entries() {
    return [...this.stored.keys()].map((id) => this.shown(id)).concat(this.added);
  }

  get size() {
    return this.stored.size + this.added.length;
  }

  find(id) {
    return this.shown(String(id)) || this.added.find((e) => idOf(e) === String(id)) || null;
  }

  // {rsvps, arrived, people, inside, capacity, expected, waitlisted, walkins}: Door's counts with what this
  // door did since its last list (actions answered, and actions its queue has not sent yet); "expected" and
  // "waitlisted" count the entries isExpected() and isWaitlisted() keep; "inside" never goes below 0.
  tally() {
    const counts = {
      rsvps: 0,
      arrived: 0,
      walkins: 0,
      people: 0,
      inside: 0,
      capacity: null,
      ...this.counts,
      expected: 0,
      waitlisted: 0,
    };
    for (const entry of this.entries) {
      const { rsvp } = entry;
      if (isExpected(rsvp)) counts.expected += 1;
      if (isWaitlisted(rsvp)) counts.waitlisted += 1;
      const said = this.said.get(idOf(entry));
      if (said) {
        counts.arrived += Number(rsvp.has_arrived) - Number(said.rsvp.has_arrived);
        counts.people += heads(rsvp) - heads(said.rsvp);
        counts.inside += inside(rsvp) - inside(said.rsvp);
      } else {
        // not on Door's last list: a walk-in this door added
        counts.walkins += Number(rsvp.is_walkin);
        counts.rsvps += Number(!rsvp.is_walkin && !rsvp.cancelled_rsvp);
        counts.arrived += Number(rsvp.has_arrived);
        counts.people += heads(rsvp);
        counts.inside += inside(rsvp);
      }
    }
    const leaving = this.waiting
      .filter((item) => item.kind === "left")
      .reduce((sum, item) => sum + item.body.people, 0);
    counts.inside = Math.max(0, counts.inside - this.left - leaving);
    return counts;
  }

  // The organization's tags on the list's guests, by label, each once: the door's chips.
  tags() {
    const seen = new Map();
    for (const entry of this.entries) for (const tag of entry.guest.tags || []) seen.set(tag.id, tag);
    return [...seen.values()].sort((a, b) => a.label.localeCompare(b.label));
  }

  // What the door shows for `query` under `filter`: {results, total, target}: the first `limit` results, how
  // many there are, and the entry Enter acts on without asking: the exact username match, or the only result;
  // null when the choice is not clear.
  // Order: an exact username match first (arrived or not: "already in" must show), then exact full-name
  // matches (arrived namesakes first, so the door sees who is already in), then search.js's order (expected,
  // arrived, cancelled; by name within each). The Arrived filter lists the latest arrival first (the one an
  // undo is most likely for). One pass over the entries in their order by name: no sort but the Arrived
  // one's, and no more than `limit` results kept of each tier and rank.
  query(query, filter = "all", limit = Infinity) {
    const keep = keeper(filter);
    const matches = matcher(query);
    const wanted = terms(query);
    const tier = tierOf(query);
    const found = [0, 1, 2, 3].map(() => [[], [], []]); // [tier][search.js's rank]
    const kept = filter === "arrived" ? Infinity : limit; // the Arrived order is by time: all of them
    // nothing typed, nothing filtered: the whole list, whose count is known, and the first `limit` guests
    // expected are the first results (an Escape costs no pass over a conference's list)
    const whole = !wanted.length && filter === "all";
    let total = this.gather(this.candidates(wanted, matches), { keep, tier, found, kept, whole });
    total += this.gatherAdded({ matches, keep, tier, found });
    const tiers = found.map((ranks) => ranks.flat());
    // the Arrived order, by time (the sort is stable: ties keep their order)
    if (filter === "arrived") tiers.forEach((entries) => entries.sort(latest));
    const results = tiers.flat().slice(0, limit);
    if (whole) total = this.size;
    const exact = tiers[0][0] || null;
    return { results, total, target: exact || (total === 1 ? results[0] : null) };
  }

  // The ids a query may find, in their order: typing on narrows (what matches it matched what was typed
  // before: each term held one of those); nothing typed, every one.
  candidates(wanted, matches) {
    const last = this.last;
    const narrows =
      last && last.era === this.era && last.wanted.every((t) => wanted.some((term) => term.includes(t)));
    const from = narrows ? last.ids : this.order;
    const ids = wanted.length ? from.filter((id) => matches(this.keys.get(id).hay)) : from;
    this.last = { era: this.era, wanted, ids };
    return ids;
  }

  // Puts the entries of `ids` that `keep` keeps in `found`'s buckets, no more than `kept` in each; how many
  // there are (the whole list stops at its first `kept` guests expected).
  gather(ids, { keep, tier, found, kept, whole }) {
    let total = 0;
    for (const id of ids) {
      const entry = this.shown(id);
      if (!keep(entry)) continue;
      total += 1;
      const bucket = found[tier(entry, this.keys.get(id))][rank(entry)];
      if (bucket.length < kept) bucket.push(entry);
      else if (whole && bucket === found[3][0]) break;
    }
    return total;
  }

  // The walk-ins this door added that the query finds: few, each put in its place by name; how many.
  gatherAdded({ matches, keep, tier, found }) {
    let total = 0;
    for (const entry of this.added) {
      const keys = keysOf(entry);
      if (!matches(keys.hay) || !keep(entry)) continue;
      total += 1;
      const bucket = found[tier(entry, keys)][rank(entry)];
      bucket.splice(
        this.place(entry, bucket, (e) => e),
        0,
        entry,
      );
    }
    return total;
  }
}
