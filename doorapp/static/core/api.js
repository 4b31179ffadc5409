// The only module that talks to the server. The token lives in
// localStorage["auth_token"]; a 401 deletes it and sends the user to sign-in; a network error keeps it,
// shows the "connection lost" banner and retries until the server answers again. The tabs of a device
// share that token: a tab sends only under a token of the account it shows, and says when another tab
// signed in or out ("door:account-changed"), so it never acts under a name it does not show.

const TOKEN_KEY = "auth_token";
const RETRY_MS = 2000;

export const token = {
  get: () => localStorage.getItem(TOKEN_KEY),
  set: (value) => localStorage.setItem(TOKEN_KEY, value),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

// The account (username) a token was issued to: its `sub`, read without checking the signature (Door
// checks it); null for none or one that cannot be read.
export function tokenAccount(value = token.get()) {
  try {
    const part = value.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0))));
    return typeof claims.sub === "string" ? claims.sub : null;
  } catch {
    return null;
  }
}

let shown = null; // the account this tab shows (core/session.js says which); null: none yet

export function showAccount(username) {
  shown = username;
}

export const shownAccount = () => shown;

window.addEventListener("storage", (event) => {
  // key null: another tab cleared the whole storage
  if ((event.key === TOKEN_KEY || event.key === null) && tokenAccount() !== shown)
    emit("door:account-changed");
});

// An answer that is not a success: RFC 9457 fields (status, code, detail, errors, ...) as properties.
// A lost connection is status 0 with code "network_error".
export class ApiProblem extends Error {
  constructor(fields) {
    super(fields.detail || "The request failed.");
    Object.assign(this, fields);
  }
}

let offline = false;
let retryTimer = null;

function emit(name, detail) {
  window.dispatchEvent(new CustomEvent(name, { detail }));
}

function connectionLost() {
  if (!offline) {
    offline = true;
    emit("door:offline");
  }
  if (!retryTimer) retryTimer = setTimeout(probe, RETRY_MS);
}

function connectionBack() {
  if (offline) {
    offline = false;
    emit("door:online");
  }
}

async function probe() {
  retryTimer = null;
  try {
    await fetch("/ping", { cache: "no-store" });
    connectionBack();
  } catch {
    connectionLost();
  }
}

export function isOffline() {
  return offline;
}

// JSON with the integers a JavaScript number cannot hold exactly (platform_user_id is 64-bit, and the
// demo community has ids beyond 2**53) kept as strings of their digits. Strings are matched first, so
// digits inside a name are never touched.
const STRING_OR_BIG_INTEGER = /"(?:[^"\\]|\\.)*"|-?\d{16,}(?![\d.eE])/g;

export function parseJson(text) {
  return JSON.parse(
    text.replace(STRING_OR_BIG_INTEGER, (m) =>
      m[0] === '"' || Number.isSafeInteger(Number(m)) ? m : `"${m}"`,
    ),
  );
}

async function problemFrom(reply) {
  let fields = {};
  try {
    fields = parseJson(await reply.text());
  } catch {
    // not a problem+json body (a proxy's error page, say): keep the status
  }
  if (typeof fields !== "object" || fields === null) fields = {};
  return new ApiProblem({
    ...fields,
    status: reply.status,
    code: fields.code || "http_" + reply.status,
    serverDetail: typeof fields.detail === "string",
    detail: typeof fields.detail === "string" ? fields.detail : `The server answered ${reply.status}.`,
  });
}

// request(method, path, {json, form, files, auth, etag, accept, headers, as}) -> parsed JSON, null for 204,
// or {notModified: true} when `etag` was sent and the server answered 304.
// With `etag`, a 200 answer is returned as {data, etag}. With `accept` (another type than JSON), the
// successful Response itself. `files` is a FormData, sent as multipart/form-data (the browser writes its
// boundary). It goes out only under a token of the account `as` (by default the one this tab shows): under
// another it is not sent (401 account_changed). `signal` (an AbortController's) cancels a read overtaken by a
// newer one: it rejects with the AbortError, and says nothing of the network.
export async function request(
  method,
  path,
  { json, form, files, auth = true, etag, accept, headers, as = shown, signal } = {},
) {
  const sent = auth ? tokenFor(as) : null;
  const options = {
    method,
    headers: requestHeaders(sent, { accept, etag, headers }),
    cache: "no-store",
    signal,
  };
  addBody(options, { json, form, files });
  const reply = await send(path, options);
  if (reply.status === 304) return { notModified: true };
  if (!reply.ok) throw await refused(reply, sent);
  if (accept) return reply;
  const data = reply.status === 204 ? null : parseJson(await reply.text());
  return etag !== undefined ? { data, etag: reply.headers.get("ETag") } : data;
}

// The stored token, if any, when it is the account `as`'s; under another account nothing is sent.
function tokenFor(as) {
  const sent = token.get();
  if (sent && as && tokenAccount(sent) !== as) {
    if (tokenAccount(sent) !== shown) emit("door:account-changed");
    throw new ApiProblem({
      status: 401,
      code: "account_changed",
      detail: "Another account signed in on this device; this was not sent.",
    });
  }
  return sent;
}

// JSON, a form's fields, or a FormData sent as multipart/form-data (the browser writes its boundary).
function addBody(options, { json, form, files }) {
  if (json !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(json);
  } else if (form !== undefined) {
    options.body = new URLSearchParams(form);
  } else if (files !== undefined) {
    options.body = files;
  }
}

function requestHeaders(sent, { accept, etag, headers }) {
  const all = { Accept: accept || "application/json", ...headers };
  if (sent) all.Authorization = "Bearer " + sent;
  if (etag) all["If-None-Match"] = etag;
  return all;
}

// fetch(), saying whether the connection is lost or back; a read cancelled (`signal`) says nothing of it.
async function send(path, options) {
  try {
    const reply = await fetch(path, options);
    connectionBack();
    return reply;
  } catch (error) {
    if (options.signal && options.signal.aborted) throw error;
    connectionLost();
    // the request may have reached the server before the connection broke: never say nothing changed
    throw new ApiProblem({
      status: 0,
      code: "network_error",
      detail: "The connection to Door is lost; retrying. This request may or may not have reached Door.",
    });
  }
}

// The problem an answer that is not a success says.
async function refused(reply, sent) {
  const problem = await problemFrom(reply);
  // a wrong password (changing it) is not a dead session: only a refused token signs out, and only while
  // it is the stored one (another tab may have signed in since)
  if (reply.status === 401 && sent && sent === token.get() && problem.code !== "invalid_credentials") {
    token.clear();
    emit("door:signed-out", problem);
  }
  return problem;
}

export const api = {
  get: (path, options) => request("GET", path, options),
  post: (path, json, options) => request("POST", path, { ...options, json }),
  patch: (path, json, options) => request("PATCH", path, { ...options, json }),
  put: (path, json, options) => request("PUT", path, { ...options, json }),
  del: (path, options) => request("DELETE", path, options),
  // POST a file with the form's other fields (those empty left out): an import's guest list
  upload: (path, file, fields = {}) => {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) if (value) body.append(name, value);
    body.append("file", file, file.name);
    return request("POST", path, { files: body });
  },
};

// A query string from an object, leaving out empty values.
export function query(params) {
  const pairs = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "");
  return pairs.length ? "?" + new URLSearchParams(pairs).toString() : "";
}

export function signIn(username, password) {
  return request("POST", "/auth/token", { form: { username, password }, auth: false });
}

// PATCH /auth/password: the account's other sessions end; this one goes on with the fresh token.
export async function changePassword(currentPassword, newPassword) {
  const answer = await request("PATCH", "/auth/password", {
    json: { current_password: currentPassword, new_password: newPassword },
  });
  token.set(answer.access_token);
  return answer;
}

export function signOut() {
  token.clear();
}

// Download what a route produces (a CSV export) with the token in the Authorization header, never in
// the URL, and save it under the name the server's Content-Disposition gives.
export async function download(path, accept = "text/csv") {
  const reply = await request("GET", path, { accept });
  const name = /filename="([^"]+)"/.exec(reply.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await reply.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name ? name[1] : "export";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
