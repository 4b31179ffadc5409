// The app shell: session start, the hash router, the top bar (shared/top.js draws it) and the connection
// banner.
import { api, isOffline, signOut, token, tokenAccount } from "./core/api.js";
import { h, clear, toast } from "./core/dom.js";
import { refuseAll } from "./core/queue.js";
import { problemText, t, tn } from "./core/i18n.js";
import {
  DOOR_ROUTE,
  endSession,
  forgetSession,
  isPass,
  isSiteAdmin,
  lastSession,
  loadSession,
  passHome,
  session,
} from "./core/session.js";
import * as auth from "./screens/auth.js";
import * as account from "./screens/account.js";
import * as audit from "./screens/audit.js";
import * as bans from "./screens/bans.js";
import * as door from "./door/screen.js";
import * as guest from "./screens/guest.js";
import * as meetups from "./screens/meetups.js";
import * as members from "./screens/members.js";
import * as orgs from "./screens/orgs.js";
import * as passes from "./screens/passes.js";
import * as phones from "./screens/phones.js";
import * as privacy from "./screens/privacy.js";
import * as staff from "./screens/staff.js";
import * as summary from "./screens/summary.js";
import * as tags from "./screens/tags.js";
import { drawTop } from "./shared/top.js";

const AFTER_SIGN_IN = "door_after_sign_in";
const PUBLIC = new Set(["signin", "register", "forgot", "setup", "pass", "pass-ended"]);
const PAIRING = new Set(["pass", "pass-ended"]); // a phone's door pass: opened whoever is signed in

// [pattern over the part after "#/", screen function, needs]
const ROUTES = [
  [/^signin$/, auth.signIn],
  [/^register$/, auth.register],
  [/^forgot$/, auth.forgot],
  [/^setup(?:\/([A-Za-z0-9-]{1,64}))?$/, auth.setup], // #/setup/CODE: the code pre-filled, as serve opens it
  [/^meetups$/, meetups.list, "org"],
  [/^orgs\/([0-9a-fA-F-]{36})\/meetups\/([0-9a-fA-F-]{36})$/, door.screen],
  [/^meetups\/([0-9a-fA-F-]{36})$/, door.redirect], // the door's address before it carried its org
  [/^meetups\/([0-9a-fA-F-]{36})\/summary$/, summary.screen, "org"],
  [/^guests\/(-?\d{1,19})$/, guest.screen, "org"], // a guest let in by name has a negative id
  [/^bans$/, bans.list, "org"],
  [/^members$/, members.list, "org"],
  [/^audit$/, audit.list, "org"],
  [/^tags$/, tags.screen, "org"],
  [/^privacy$/, privacy.screen, "org"],
  [/^staff$/, staff.list],
  [/^orgs$/, orgs.list],
  [/^phones$/, phones.screen],
  [/^account$/, account.screen],
  [/^passes(?:\/([0-9a-fA-F-]{36}))?$/, passes.manage, "org"], // #/passes/{meetup_id}: for that meetup
  [/^pass\/([0-9A-Za-z]{1,64})$/, passes.pair],
  [/^pass-ended$/, passes.ended],
  [/^door-meetups$/, passes.meetups, "org"],
];

const main = document.getElementById("app");
const top = document.getElementById("top");
const banner = document.getElementById("banner");
let current = { leave: [], alive: false };

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

// Another address for the same screen: the old one leaves no entry in the history to come back to.
function redirect(hash) {
  history.replaceState(null, "", hash);
  route();
}

function routeName() {
  return location.hash.replace(/^#\/?/, "");
}

// The screen shown stops: its listeners end, and what it still awaits finds it gone (ctx.alive).
function leaveScreen() {
  for (const fn of current.leave) fn();
  current.alive = false;
  current = { leave: [], alive: false };
}

async function route() {
  leaveScreen();
  const name = routeName();
  const elsewhere = await gate(name);
  if (elsewhere) return navigate(elsewhere);
  const match = ROUTES.map(([pattern, screen, needs]) => [name.match(pattern), screen, needs]).find(
    ([m]) => m,
  );
  const view = h("div", { class: "view" });
  clear(main, view);
  const ctx = {
    hash: location.hash,
    leave: [],
    alive: true,
    navigate,
    redirect,
    refresh: refreshSession,
    renderTop,
    signedIn: afterSignIn,
    setupDone,
  };
  current = ctx;
  renderTop();
  if (!match) return view.append(notFound());
  const [m, screen, needs] = match;
  if (needs === "org" && !session.org) return view.append(noOrg());
  try {
    await screen(view, m.slice(1), ctx);
  } catch (error) {
    if (error.status === 401) return; // the signed-out handler has taken over
    if (ctx.alive)
      clear(
        view,
        h(
          "section",
          { class: "panel" },
          h("div", { class: "alert error", role: "alert" }, problemText(error)),
        ),
      );
  }
}

// Where `name` sends this user instead, if anywhere: sign-in (or setup) for a screen that needs a session,
// home for sign-in's screens once signed in (a phone's pass pairing aside) and for no name at all.
async function gate(name) {
  const signedIn = Boolean(session.user);
  const isPublic = PUBLIC.has(name.split("/")[0]);
  if (!signedIn && !isPublic) {
    if (name) sessionStorage.setItem(AFTER_SIGN_IN, "#/" + name);
    return (await setupNeeded()) ? "#/setup" : "#/signin";
  }
  if (signedIn && isPublic && !PAIRING.has(name.split("/")[0])) return "#/";
  if (!name) return home();
  return null;
}

function notFound() {
  return h(
    "section",
    { class: "panel" },
    h("h1", {}, t("notFound.title")),
    h("p", {}, t("notFound.text")),
    h("a", { href: "#/" }, t("notFound.home")),
  );
}

function home() {
  if (isPass()) return passHome();
  if (session.org) return "#/meetups";
  return isSiteAdmin() ? "#/orgs" : "#/meetups";
}

function noOrg() {
  return h(
    "section",
    { class: "panel" },
    h("h1", {}, t("noOrg.title")),
    isSiteAdmin()
      ? h("p", {}, ...tn("noOrg.siteAdmin", { link: h("a", { href: "#/orgs" }, t("nav.orgs")) }))
      : h("p", {}, t("noOrg.member")),
  );
}

let setupChecked = null;

async function setupNeeded() {
  if (setupChecked === null) {
    try {
      setupChecked = (await api.get("/setup", { auth: false })).needed;
    } catch {
      return false;
    }
  }
  return setupChecked;
}

function setupDone() {
  setupChecked = false;
}

function renderTop() {
  document.title = t("app.title");
  banner.textContent = t("app.connectionLost");
  drawTop(top, { navigate, redraw: route, signOut: () => leave(t("top.signedOut")) });
}

function leave(message) {
  signOut();
  endSession();
  sessionStorage.removeItem(AFTER_SIGN_IN);
  if (message) toast(message);
  navigate("#/signin");
}

async function refreshSession() {
  await loadSession();
  renderTop();
}

// After a successful sign-in: load the session and go where the user was heading.
async function afterSignIn() {
  await loadSession();
  goOn();
}

function goOn() {
  const next = sessionStorage.getItem(AFTER_SIGN_IN);
  sessionStorage.removeItem(AFTER_SIGN_IN);
  navigate(next && next !== "#/signin" ? next : home());
}

// The session of the stored token: userinfo; a network error keeps the token and retries (a door screen
// opens from what this device saw last); 401 (handled in core/api.js) deletes it and leaves no session.
async function restore() {
  clear(main, h("section", { class: "panel" }, h("p", { class: "muted" }, t("app.connecting"))));
  while (token.get()) {
    try {
      await loadSession();
      return;
    } catch (error) {
      if (error.status === 0 || isOffline()) {
        // a door screen reloaded during a drop opens from what this device saw last
        if ((DOOR_ROUTE.test(location.hash) || location.hash.startsWith("#/meetups/")) && lastSession()) {
          window.addEventListener("door:online", () => refreshSession().catch(() => {}), { once: true });
          return;
        }
        await new Promise((resolve) => {
          window.addEventListener("door:online", resolve, { once: true });
        });
        continue;
      }
      if (error.status === 403) {
        // pending or disabled: the token can do nothing; say why on the sign-in screen
        signOut();
        auth.setNotice(problemText(error));
      }
      if (error.status >= 500) auth.setNotice(problemText(error));
      endSession();
      return;
    }
  }
}

// Another tab of this device signed in or out (core/api.js): this one leaves the screen it shows at once
// (nothing more goes out under the name it showed) and shows the account now signed in, or sign-in.
let switching = Promise.resolve();

function accountChanged() {
  switching = switching.then(switchAccount).catch(() => {});
}

async function switchAccount() {
  const was = session.user?.username ?? null;
  if (tokenAccount() === was) return; // this tab has caught up already
  const name = routeName();
  if (was && name && !PUBLIC.has(name.split("/")[0])) sessionStorage.setItem(AFTER_SIGN_IN, location.hash);
  leaveScreen();
  forgetSession();
  renderTop();
  if (token.get()) await restore();
  if (session.user) {
    toast(t("session.switched", { username: session.user.username }));
    goOn();
  } else {
    if (was) toast(t("session.signedOutElsewhere"));
    route();
  }
}

async function start() {
  // a hash set while this very screen was being rendered (start-up, sign-out) needs no second render
  window.addEventListener("hashchange", () => {
    if (!(current.alive && current.hash === location.hash)) route();
  });
  window.addEventListener("door:offline", () => {
    banner.hidden = false;
  });
  window.addEventListener("door:online", () => {
    banner.hidden = true;
  });
  window.addEventListener("door:signed-out", (event) => {
    if (isPass() || event.detail?.code === "pass_ended") {
      // a phone's pass ended: it says so, no sign-in
      if (isPass()) refuseAll(session.user.username, event.detail || {}); // what it queued never goes
      endSession();
      return navigate("#/pass-ended");
    }
    const wasSignedIn = Boolean(session.user);
    endSession();
    if (routeName() && !PUBLIC.has(routeName())) sessionStorage.setItem(AFTER_SIGN_IN, location.hash);
    if (wasSignedIn) toast(t("session.ended"), "error");
    auth.setNotice(event.detail ? problemText(event.detail) : "");
    navigate("#/signin");
  });
  window.addEventListener("door:account-changed", accountChanged);
  if (token.get()) await restore();
  route();
}

// Where the page is a secure context (localhost, HTTPS), a service worker keeps the app shell so a reload
// during a network drop still opens the door. Plain HTTP on the LAN has none: the door says not to reload.
if (window.isSecureContext && "serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}

start();
