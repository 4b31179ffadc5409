// Guest search at the door: case, accents and word order do not matter ("angstrom alice" finds
// "Alice Ångström"), and each typed word matches the start of a word of the name or username ("ok" finds
// Okafor, not Brooke), so a few letters of each name narrow 2,000 guests to one. Scripts written without
// spaces (Chinese, Japanese, Korean) match anywhere. Runs over the loaded list, on every keystroke.

const SEPARATORS = /[\s,_\-.@'()]+/g; // "grace_okafor", "Nowak-Wróbel", "O'Brien": words of their own
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

// "Ångström" -> "angstrom": decompose (NFD), drop the combining marks, lower-case.
export function fold(text) {
  return (text || "").normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

export function words(text) {
  return fold(text).split(SEPARATORS).filter(Boolean);
}

// The searchable text of a door-list entry, computed once per list load: its words, each after a space.
export function haystack(entry) {
  return " " + words(`${entry.guest.displayname} ${entry.guest.username}`).join(" ");
}

// "@Grace_Okafor " -> "grace_okafor": what a typed query is as a username.
function asUsername(query) {
  return fold(query.trim().replace(/^@/, ""));
}

// What a query compares of an entry, folded once: its search text, its username, its name.
export const keysOf = (entry) => ({
  hay: haystack(entry),
  user: fold(entry.guest.username),
  name: fold(entry.guest.displayname).replace(/\s+/g, " "),
});

// A door-list entry's tier for `query` (door/list.js's order): 0 the exact username match, 1 and 2 exact
// full-name matches (arrived, then not), 3 the others.
export function tierOf(query) {
  const username = asUsername(query);
  const name = fold(query.trim()).replace(/\s+/g, " ");
  return (e, keys) => {
    if (username && keys.user === username && !e.guest.is_local) return 0;
    if (name && keys.name === name) return e.rsvp.has_arrived ? 1 : 2;
    return 3;
  };
}

// What a haystack must hold for the query: each word after a space (the start of a word), or anywhere for
// the scripts written without spaces.
export function terms(query) {
  return words(query).map((term) => (UNSPACED.test(term) ? term : " " + term));
}

// Whether a haystack holds every word of the query at the start of one of its words (the rule above).
export function matcher(query) {
  const wanted = terms(query);
  return (hay) => wanted.every((term) => hay.includes(term));
}

// Entries with every word of the query at the start of one of their words: guests still expected first,
// then those who arrived, cancelled RSVPs last; by name within each.
export function search(entries, hays, query) {
  const matches = matcher(query);
  const found = [];
  entries.forEach((entry, i) => {
    if (matches(hays[i])) found.push(entry);
  });
  found.sort((a, b) => rank(a) - rank(b) || byName(a, b));
  return found;
}

// Expected first (0), then arrived (1), cancelled RSVPs last (2): the first key of search()'s order (the
// door's list keeps it with its own order by name: door/list.js).
export function rank(entry) {
  if (entry.rsvp.cancelled_rsvp && !entry.rsvp.has_arrived) return 2;
  return entry.rsvp.has_arrived ? 1 : 0;
}

const collator = new Intl.Collator(undefined, { sensitivity: "base" });

export function byName(a, b) {
  return collator.compare(a.guest.displayname || a.guest.username, b.guest.displayname || b.guest.username);
}
