// Who is signed in and which organization the screens work in. The server decides permissions; these
// facts only hide what the user cannot do.
import { api, showAccount, tokenAccount } from "./api.js";
import { forget } from "./kept.js";

const ORG_KEY = "door_org";
const LAST_SESSION = "door_session"; // userinfo and orgs (no token), for a door reloaded while offline

export const session = {
  user: null, // GET /auth/userinfo
  orgs: [], // [{id, name, slug, role: "ADMIN"|"STAFF"|null}], null role: a site admin who is no member
  org: null, // the current one
  platform: null, // GET /platform, loaded once
};

export const isSiteAdmin = () => session.user?.role === "SITE_ADMIN";
// A door pass (a phone working one org's door with no account): its session has `pass` and no account.
export const isPass = () => Boolean(session.user?.pass);
export const isOrgAdmin = (org = session.org) => isSiteAdmin() || org?.role === "ADMIN";
export const orgPath = (suffix = "", org = session.org) => `/organizations/${org.id}${suffix}`;
// The door screen's address: it carries the meetup's org, so a link opens the right org's door.
export const doorHash = (orgId, meetupId) => `#/orgs/${orgId}/meetups/${meetupId}`;
export const DOOR_ROUTE = /^#\/orgs\/[0-9a-fA-F-]{36}\/meetups\/[0-9a-fA-F-]{36}$/;

// Userinfo, then the organizations this user can switch between (site admins: all of them).
export async function loadSession() {
  const user = await api.get("/auth/userinfo");
  if (user.pass) return passSession(user.pass);
  session.user = user;
  showAccount(user.username);
  const orgs = user.org_memberships.map((m) => ({
    id: m.org_id,
    name: m.org_name,
    slug: m.org_slug,
    role: m.role,
  }));
  if (user.role === "SITE_ADMIN") {
    const all = await api.get("/organizations/");
    const roles = new Map(orgs.map((o) => [o.id, o.role]));
    session.orgs = all.organizations.map((o) => ({
      id: o.id,
      name: o.name,
      slug: o.slug,
      role: roles.get(o.id) || null,
    }));
  } else {
    session.orgs = orgs;
  }
  localStorage.setItem(LAST_SESSION, JSON.stringify({ user, orgs: session.orgs }));
  pickOrg();
  return user;
}

// A door pass's session: its token's `sub` ("pass <id>", never a username) stands for the account, so its
// queued actions go out only under it; its one org is the pass's.
function passSession(pass) {
  const user = { username: tokenAccount(), pass, role: "PASS", org_memberships: [] };
  session.user = user;
  showAccount(user.username);
  session.orgs = [{ id: pass.org_id, name: pass.label, slug: "", role: "PASS" }];
  session.org = session.orgs[0];
  localStorage.setItem(LAST_SESSION, JSON.stringify({ user, orgs: session.orgs }));
  return user;
}

// Where a door pass starts: the door of its meetup, or the open meetups to choose from.
export const passHome = () => {
  const { pass } = session.user;
  return pass.meetup_id ? doorHash(pass.org_id, pass.meetup_id) : "#/door-meetups";
};

function pickOrg() {
  const wanted = localStorage.getItem(ORG_KEY);
  session.org = session.orgs.find((o) => o.id === wanted) || session.orgs[0] || null;
}

// The session as last loaded, when the server cannot be reached (a door reloaded during a drop); false
// when there is none. The server still decides everything once it answers again.
export function lastSession() {
  try {
    const last = JSON.parse(localStorage.getItem(LAST_SESSION) || "null");
    if (!last || last.user.username !== tokenAccount()) return false; // another account's, or signed out
    Object.assign(session, { user: last.user, orgs: last.orgs });
    showAccount(last.user.username);
    pickOrg();
    return true;
  } catch {
    return false;
  }
}

export function setOrg(id) {
  const org = session.orgs.find((o) => o.id === id);
  if (org) {
    session.org = org;
    localStorage.setItem(ORG_KEY, org.id);
  }
  return org;
}

export function endSession() {
  localStorage.removeItem(LAST_SESSION);
  forget(); // the door list kept (core/kept.js): guest names and ban reasons do not outlive the session
  forgetSession();
}

// This tab shows nobody any more; what the device keeps stays (another tab may have signed in since).
export function forgetSession() {
  session.user = null;
  session.orgs = [];
  session.org = null;
  showAccount(null);
}

export async function platformInfo() {
  if (!session.platform) session.platform = await api.get("/platform");
  return session.platform;
}
