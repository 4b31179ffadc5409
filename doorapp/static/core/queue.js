// Door actions that must not be lost on a blip (check-in, walk-in, undo). Each gets an Idempotency-Key
// when it is made and waits in localStorage (it survives a reload and is shared by the device's tabs)
// until Door answers: sent in order, retried with the same key (Door answers a repeat with its first
// answer, so a lost answer never checks anybody in twice), and refused ones kept with the reason for the
// "needs attention" list. One tab sends at a time: a Web Lock where the page is a secure context, else a
// claim in localStorage that expires. An action goes out under the account that made it: one left by
// somebody who signed out waits for them to sign in again on this device, never under another name.
import { isOffline, request } from "./api.js";
import { session } from "./session.js";

const STORE = "door_queue";
const CLAIM = "door_queue_claim";
const CLAIM_MS = 15000; // a claim left by a closed tab is taken over after this
const RETRY_MS = 3000;
const TAB = randomKey();
let draining = null;
let retry = null;

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

// The items of one meetup (or all): {id, meetup, kind, method, path, body, guest, at, user, state, problem}.
// state: "waiting" (no answer yet) or "refused" (Door said no: problem.detail says why).
export function items(meetup) {
  return load().filter((item) => !meetup || item.meetup === meetup);
}

// Whether the signed-in account made this item (only its maker's token may send it).
export const mine = (item) => Boolean(session.user) && item.user === session.user.username;

export function dismiss(id) {
  save(load().filter((item) => item.id !== id));
  tell({ id, state: "dismissed" });
}

// Queue an action and try to send it now. Resolves to {state: "sent", answer}, {state: "refused",
// problem} or {state: "waiting"} (no answer yet: it stays queued and is sent when Door is reachable).
export async function submit({ id = randomKey(), meetup, kind, method, path, body = {}, guest }) {
  const at = new Date().toISOString();
  const item = { id, meetup, kind, method, path, body: { ...body, door_time: at }, guest, at,
    user: session.user?.username, state: "waiting" };
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
  if (!draining) draining = exclusively(drain).finally(() => { draining = null; });
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
    const next = waiting.find(mine);
    if (!next) return waiting.length ? schedule() : undefined; // its maker may sign in (again) any moment
    let answer;
    try {
      answer = await request(next.method, next.path, { json: next.body, headers: { "Idempotency-Key": next.id } });
    } catch (problem) {
      if (problem.status === 0 || problem.status === 401 || problem.status === 429 || problem.status >= 500) {
        return schedule(); // no answer, or none yet: the same key goes again later
      }
      const { status, code, detail, ban_reason, arrival_order, arrival_time, checked_in_by } = problem;
      const refused = { status, code, detail, ban_reason, arrival_order, arrival_time, checked_in_by };
      save(load().map((item) => (item.id === next.id ? { ...item, state: "refused", problem: refused } : item)));
      tell({ id: next.id, state: "refused", item: next, problem: refused });
      continue;
    }
    save(load().filter((item) => item.id !== next.id));
    tell({ id: next.id, state: "sent", item: next, answer });
  }
}

function schedule() {
  clearTimeout(retry);
  retry = setTimeout(flush, isOffline() ? RETRY_MS : RETRY_MS / 2);
}

window.addEventListener("door:online", () => flush());
window.addEventListener("online", () => flush());
window.addEventListener("storage", (event) => {
  if (event.key === STORE) tell({ state: "changed" }); // another tab queued or sent something
});
flush(); // what a reload left waiting goes as soon as the page is back
