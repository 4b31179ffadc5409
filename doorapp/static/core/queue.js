// Door actions that must not be lost on a blip (check-in, walk-in, undo). Each gets an Idempotency-Key
// when it is made and waits in localStorage (it survives a reload and is shared by the device's tabs)
// until Door answers: sent in order, retried with the same key (Door answers a repeat with its first
// answer, so a lost answer never checks anybody in twice), and refused ones kept with the reason for the
// "needs attention" list. One tab sends at a time: a Web Lock where the page is a secure context, else a
// claim in localStorage that expires. An action goes out only under a token of the account that made it
// (the `sub` of the token it was made under), from a tab that shows that account: one left by somebody
// who signed out waits for them to sign in again on this device, never under another name. One that
// Door keeps failing on (MAX_FAILURES) is set aside for "needs attention" so the actions after it go. A
// door pass's actions (its `sub` is "pass <id>") go only under that pass; once it has ended (401
// pass_ended) every one of them left is refused, kept with that reason.
import { isOffline, request, shownAccount, tokenAccount } from "./api.js";

const STORE = "door_queue";
const CLAIM = "door_queue_claim";
const CLAIM_MS = 15000; // a claim left by a closed tab is taken over after this
const RETRY_MS = 3000;
// Server errors (5xx, or a connection broken while Door is reachable) before an action is set aside, and
// the wait after the n-th (n times FAILURE_WAIT_MS): three in a row over about ten seconds outlast a blip
// or a restart of Door, so what is left is Door's own (a bug, a database that stays locked), and every
// action queued after this one waits meanwhile. "Try again" sends it again, with the same key.
const MAX_FAILURES = 3;
const FAILURE_WAIT_MS = 3000;
const TAB = randomKey();
let draining = null;
let retryTimer = null;

// 128 random bits in hex. crypto.getRandomValues works on plain HTTP too (randomUUID does not).
export function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function load() {
  try {
    const items = JSON.parse(localStorage.getItem(STORE) || "[]");
    return Array.isArray(items) ? items : [];
  } catch {
    return [];
  }
}

function save(items) {
  localStorage.setItem(STORE, JSON.stringify(items));
}

function tell(detail) {
  window.dispatchEvent(new CustomEvent("door:queue", { detail }));
}

// The items of one meetup (or all): {id, meetup, kind, method, path, body, guest, at, user, state, problem,
// failures}. user: the account that made it. state: "waiting" (no answer yet), "refused" (Door said no:
// problem.detail says why) or "failed" (MAX_FAILURES server errors: problem is the last). A check-in Door
// refuses as already_checked_in leaves the queue as "already": what it asked for is done.
export function items(meetup) {
  return load().filter((item) => !meetup || item.meetup === meetup);
}

// Whether the account this tab shows made this item (only its maker sees what became of it, and only its
// maker's token may send it).
export const mine = (item) => shownAccount() !== null && item.user === shownAccount();

export function dismiss(id) {
  save(load().filter((item) => item.id !== id));
  tell({ id, state: "dismissed" });
}

// A failed action sent again (the same key: Door acts once however often it comes).
export function retry(id) {
  update(id, { state: "waiting", failures: 0, retryAt: 0, problem: undefined });
  tell({ id, state: "changed" });
  return flush();
}

function update(id, changes) {
  save(load().map((item) => (item.id === id ? { ...item, ...changes } : item)));
}

// Queue an action and try to send it now. Resolves to {state: "sent", answer}, {state: "refused" or
// "already", problem} or {state: "waiting"} (no answer yet: it stays queued and is sent when Door is
// reachable; it may end "failed" later, set aside for "needs attention").
export async function submit({ id = randomKey(), meetup, kind, method, path, body = {}, guest }) {
  const at = new Date().toISOString();
  const item = {
    id,
    meetup,
    kind,
    method,
    path,
    body: { ...body, door_time: at },
    guest,
    at,
    user: shownAccount(),
    state: "waiting",
  };
  save([...load(), item]);
  tell({ id: item.id, state: "waiting", item });
  return new Promise((resolve) => {
    const settle = (event) => {
      if (event.detail.id !== item.id || event.detail.state === "waiting") return;
      window.removeEventListener("door:queue", settle);
      resolve(event.detail);
    };
    window.addEventListener("door:queue", settle);
    flush().then(() => {
      if (items().some((i) => i.id === item.id && i.state === "waiting")) {
        window.removeEventListener("door:queue", settle);
        resolve({ state: "waiting" });
      }
    });
  });
}

// Send what waits, in order, once per tab at a time and one tab at a time.
export function flush() {
  if (!draining)
    draining = exclusively(drain).finally(() => {
      draining = null;
    });
  return draining;
}

async function exclusively(work) {
  if (navigator.locks) return navigator.locks.request("door-queue", work);
  const held = JSON.parse(localStorage.getItem(CLAIM) || "null");
  if (held && held.tab !== TAB && held.until > Date.now()) return schedule(); // another tab is sending
  localStorage.setItem(CLAIM, JSON.stringify({ tab: TAB, until: Date.now() + CLAIM_MS }));
  try {
    return await work();
  } finally {
    if (JSON.parse(localStorage.getItem(CLAIM) || "null")?.tab === TAB) localStorage.removeItem(CLAIM);
  }
}

async function drain() {
  for (;;) {
    // read again: another tab may have sent it
    const waiting = load().filter((item) => item.state === "waiting");
    const signedIn = tokenAccount();
    const next =
      signedIn && signedIn === shownAccount() ? waiting.find((item) => item.user === signedIn) : null;
    if (!next) return waiting.length ? schedule() : undefined; // its maker may sign in (again) any moment
    if (next.retryAt > Date.now()) return schedule(next.retryAt - Date.now());
    const reachable = !isOffline();
    let answer;
    try {
      answer = await request(next.method, next.path, {
        json: next.body,
        headers: { "Idempotency-Key": next.id },
        as: next.user,
      });
    } catch (problem) {
      const later = settle(next, problem, reachable);
      if (later) return schedule(later.wait);
      continue;
    }
    save(load().filter((item) => item.id !== next.id));
    tell({ id: next.id, state: "sent", item: next, answer });
  }
}

// What the door's words for a refusal are made of (core/i18n.js problemText; door/actions.js).
const KEPT = [
  "status",
  "code",
  "detail",
  "ban_reason",
  "arrival_order",
  "arrival_time",
  "checked_in_by",
  "inside",
  "capacity",
  "exited_at",
];

// What becomes of an action the server refused or did not answer: {wait} to send it again later (wait
// undefined: schedule()'s), or null when it is settled (failed, refused, or done by another door).
function settle(next, problem, reachable) {
  const kept = Object.fromEntries(KEPT.map((name) => [name, problem[name]]));
  const { status, code } = kept;
  if (status >= 500 || (status === 0 && reachable)) return failedOnce(next, kept);
  if (code === "pass_ended") {
    // a door pass ended meanwhile: none of its actions will ever go
    refuseAll(next.user, kept);
    return null;
  }
  if (status === 0 || status === 401 || status === 429) return { wait: undefined }; // no answer, or none yet
  if (code === "already_checked_in" && next.kind === "checkin") {
    // what it asked for, done by another door
    save(load().filter((item) => item.id !== next.id));
    tell({ id: next.id, state: "already", item: next, problem: kept });
    return null;
  }
  update(next.id, { state: "refused", problem: kept });
  tell({ id: next.id, state: "refused", item: next, problem: kept });
  return null;
}

// A server error, or no answer while the server was reachable: the same key goes again a little later, up
// to MAX_FAILURES times, then the action has failed.
function failedOnce(next, kept) {
  const failures = (next.failures || 0) + 1;
  if (failures < MAX_FAILURES) {
    update(next.id, { failures, retryAt: Date.now() + failures * FAILURE_WAIT_MS });
    return { wait: failures * FAILURE_WAIT_MS };
  }
  update(next.id, { failures, state: "failed", problem: kept });
  tell({ id: next.id, state: "failed", item: { ...next, failures }, problem: kept });
  return null;
}

// Every action `user` left waiting is refused with `problem` (a door pass that ended: none will ever go).
export function refuseAll(user, { status, code, detail }) {
  const kept = { status, code, detail };
  const all = load();
  const ended = all.filter((item) => item.user === user && item.state === "waiting");
  save(all.map((item) => (ended.includes(item) ? { ...item, state: "refused", problem: kept } : item)));
  for (const item of ended) tell({ id: item.id, state: "refused", item, problem: kept });
}

function schedule(wait = isOffline() ? RETRY_MS : RETRY_MS / 2) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(flush, wait);
}

window.addEventListener("door:online", () => flush());
window.addEventListener("online", () => flush());
window.addEventListener("storage", (event) => {
  if (event.key === STORE) tell({ state: "changed" }); // another tab queued or sent something
});
flush(); // what a reload left waiting goes as soon as the page is back
