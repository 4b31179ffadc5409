// Guest search at the door: case, accents and word order do not matter ("angstrom alice" finds
// "Alice Ångström"). Runs over the loaded list, so it answers on every keystroke without a request.

// "Ångström" -> "angstrom": decompose (NFD), drop the combining marks, lower-case.
export function fold(text) {
  return (text || "").normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

export function words(text) {
  return fold(text).split(/[\s,]+/).filter(Boolean);
}

// The searchable text of a door-list entry, computed once per list load.
export function haystack(entry) {
  return " " + fold(`${entry.guest.displayname} ${entry.guest.username}`).replace(/\s+/g, " ");
}

// Entries whose name or username contain every word of the query, best first: more words matching at
// the start of a word, then guests still expected before those who arrived, then by name.
export function search(entries, hays, query) {
  const terms = words(query);
  const found = [];
  entries.forEach((entry, i) => {
    const hay = hays[i];
    let score = 0;
    for (const term of terms) {
      const at = hay.indexOf(term);
      if (at < 0) return;
      if (hay.includes(" " + term)) score += 1;
    }
    found.push({ entry, score });
  });
  found.sort((a, b) => b.score - a.score || rank(a.entry) - rank(b.entry) || byName(a.entry, b.entry));
  return found.map((f) => f.entry);
}

function rank(entry) {
  if (entry.rsvp.cancelled_rsvp && !entry.rsvp.has_arrived) return 2;
  return entry.rsvp.has_arrived ? 1 : 0;
}

const collator = new Intl.Collator(undefined, { sensitivity: "base" });

export function byName(a, b) {
  return collator.compare(a.guest.displayname || a.guest.username, b.guest.displayname || b.guest.username);
}
