// The door list as this device last held it, in IndexedDB: a reload, or a phone back from minutes offline,
// starts from it and catches up by delta (`?since=` its version) instead of downloading the whole list.
// One meetup's list at a time: a header (the meetup, the list's version, counts and state) and one record per
// entry, so a delta writes what changed and never the whole list again. The header and the entries change in
// one transaction, and a delta is written only onto the version it follows: what is kept is always one
// version of the list, whichever tab wrote last. Signing out deletes it all (session.js), so guest names and
// ban reasons do not outlive the session on a shared phone. Where IndexedDB is missing or refused (a private
// window may refuse it), nothing is kept and the door works from the network.

const NAME = "door";
const LISTS = "lists"; // meetup id -> {meetupId, meetup, version, total, counts, state}
const ENTRIES = "entries"; // [meetup id, platform_user_id as text] -> entry
const EARLIER = "door_last_list"; // where earlier versions kept the list: localStorage, too small for 20,000

let opened = null;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function database() {
  if (!opened) {
    opened = new Promise((resolve, reject) => {
      const req = indexedDB.open(NAME, 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore(LISTS, { keyPath: "meetupId" });
        req.result.createObjectStore(ENTRIES);
      };
      req.onsuccess = () => {
        req.result.onversionchange = () => {
          req.result.close();
          opened = null;
        }; // sign-out in another tab
        resolve(req.result);
      };
      req.onerror = () => reject(req.error);
      req.onblocked = () => reject(new Error("IndexedDB is blocked"));
    }).catch((error) => {
      opened = null;
      throw error;
    });
  }
  return opened;
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve(true);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

const ofMeetup = (meetupId) => IDBKeyRange.bound([meetupId], [meetupId, []]);
const idOf = (entry) => String(entry.guest.platform_user_id);

// The list kept for this meetup: {meetup, list: a door-list answer (full) at its version}, or null.
export async function kept(meetupId) {
  try {
    const tx = (await database()).transaction([LISTS, ENTRIES]);
    const [header, guests] = await Promise.all([
      request(tx.objectStore(LISTS).get(meetupId)),
      request(tx.objectStore(ENTRIES).getAll(ofMeetup(meetupId))),
    ]);
    if (!header) return null;
    const { meetup, version, total, counts, state } = header;
    return { meetup, list: { version, full: true, total, counts, meetup: state, guests, removed: [] } };
  } catch {
    return null;
  }
}

// Keep a door-list answer of this meetup: a whole list replaces what is kept; a delta is written onto the
// version it follows (`from`), else left out (what is kept stays one version, older).
export async function keep(meetup, answer, from) {
  try {
    const tx = (await database()).transaction([LISTS, ENTRIES], "readwrite");
    const lists = tx.objectStore(LISTS),
      entries = tx.objectStore(ENTRIES);
    const header = {
      meetupId: meetup.id,
      meetup,
      version: answer.version,
      total: answer.total,
      counts: answer.counts,
      state: answer.meetup,
    };
    if (answer.full) {
      localStorage.removeItem(EARLIER);
      lists.clear();
      entries.clear(); // one list at a time: another meetup's goes
      lists.put(header);
      for (const entry of answer.guests) entries.put(entry, [meetup.id, idOf(entry)]);
    } else {
      const before = await request(lists.get(meetup.id));
      if (before?.version !== from) return done(tx);
      lists.put(header);
      for (const entry of answer.guests) entries.put(entry, [meetup.id, idOf(entry)]);
      for (const id of answer.removed) entries.delete([meetup.id, String(id)]);
    }
    return await done(tx);
  } catch {
    return false; // storage full or refused: the open screen still works
  }
}

// Forget every list kept on this device (signing out).
export function forget() {
  localStorage.removeItem(EARLIER);
  const closing = opened;
  opened = null;
  return Promise.resolve(closing)
    .then((db) => db?.close())
    .catch(() => {})
    .then(
      () =>
        new Promise((resolve) => {
          try {
            const req = indexedDB.deleteDatabase(NAME);
            req.onsuccess = req.onerror = req.onblocked = () => resolve();
          } catch {
            resolve();
          }
        }),
    );
}
