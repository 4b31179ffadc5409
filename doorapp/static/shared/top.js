// The top bar of every screen (app.js draws it as each screen opens): the brand, the organization switcher,
// who is signed in, the language switch, sign-out and the tabs. A phone with a door pass gets the pass's
// label and nothing else; before sign-in, the brand and the language switch.
import { api } from "../core/api.js";
import { clear, h } from "../core/dom.js";
import { LANGUAGES, lang, setLang, t } from "../core/i18n.js";
import { DOOR_ROUTE, isOrgAdmin, isPass, isSiteAdmin, session, setOrg } from "../core/session.js";

const brand = () => h("a", { class: "brand", href: "#/" }, t("app.title"));

// Draws the bar into `top`; `navigate(hash)` opens a screen, `redraw()` the open one again (in the other
// language), `signOut()` signs out.
export function drawTop(top, { navigate, redraw, signOut }) {
  if (!session.user) {
    clear(top, h("div", { class: "bar" }, brand(), languageSwitch(redraw)));
    return;
  }
  if (isPass()) {
    // a phone with a door pass: the door and nothing else
    clear(
      top,
      h(
        "div",
        { class: "bar" },
        brand(),
        h(
          "div",
          { class: "me" },
          h("span", { class: "who pass-label", title: t("pass.using") }, session.user.pass.label),
          languageSwitch(redraw),
        ),
      ),
    );
    return;
  }
  clear(
    top,
    h(
      "div",
      { class: "bar" },
      brand(),
      orgSwitch(navigate),
      h(
        "div",
        { class: "me" },
        h(
          "a",
          {
            class: "who",
            href: "#/account",
            title: t("top.signedInAs", { username: session.user.username }),
          },
          session.user.username,
        ),
        languageSwitch(redraw),
        h("button", { class: "secondary small", type: "button", onclick: signOut }, t("top.signOut")),
      ),
    ),
    h("nav", { class: "tabs", "aria-label": t("nav.label") }, tabs()),
  );
  // a phone's row of tabs scrolls to the open one
  top.querySelector(".tabs .active")?.scrollIntoView({ block: "nearest", inline: "nearest" });
}

function orgSwitch(navigate) {
  if (!session.orgs.length) return null;
  return h(
    "select",
    {
      class: "org-switch",
      "aria-label": t("top.organization"),
      onchange: (e) => {
        setOrg(e.target.value);
        navigate("#/meetups");
      },
    },
    session.orgs.map((o) => h("option", { value: o.id, selected: o.id === session.org?.id }, o.name)),
  );
}

// The tabs this user may open.
function tabs() {
  const links = [];
  if (session.org) links.push(navLink("#/meetups", t("nav.meetups")));
  // Phones early: on a phone the tabs are one row that scrolls, and a lost phone's pass is revoked there
  if (isSiteAdmin() || session.orgs.some((o) => o.role === "ADMIN"))
    links.push(navLink("#/phones", t("nav.phones")));
  if (session.org) {
    links.push(navLink("#/bans", t("nav.bans")));
    if (isOrgAdmin()) {
      links.push(
        navLink("#/members", t("nav.members")),
        navLink("#/tags", t("nav.tags")),
        navLink("#/audit", t("nav.audit")),
        navLink("#/privacy", t("nav.privacy")),
      );
    }
  }
  if (isSiteAdmin()) {
    const staffLink = navLink("#/staff", t("nav.staff"));
    links.push(staffLink, navLink("#/orgs", t("nav.orgs")));
    showPending(staffLink);
  }
  return links;
}

function navLink(hash, label) {
  const active =
    location.hash === hash ||
    (hash === "#/meetups" && (location.hash.startsWith("#/meetups/") || DOOR_ROUTE.test(location.hash)));
  return h("a", { href: hash, class: active ? "active" : "", "aria-current": active ? "page" : null }, label);
}

// How many accounts wait for approval, as a count on the Staff tab (site admins).
async function showPending(link) {
  let total = 0;
  try {
    ({ total } = await api.get("/staff/pending"));
  } catch {
    return; // the count is a convenience; the Staff screen shows the list
  }
  if (!total || !link.isConnected) return;
  link.append(" ", h("span", { class: "count" }, String(total)));
  link.setAttribute("aria-label", t("nav.staffWaiting", { count: total }));
}

// The other language, one tap away (EN on a Spanish screen, ES on an English one): every screen speaks it
// from then on, remembered on this device; the open screen is drawn again in it.
function languageSwitch(redraw) {
  const [code, short, name] = LANGUAGES.find(([other]) => other !== lang);
  // named "ES Español": what it shows, then what it means (a voice user says what they see)
  return h(
    "button",
    {
      type: "button",
      class: "secondary small lang-switch",
      lang: code,
      title: name,
      onclick: () => {
        setLang(code);
        redraw();
      },
    },
    short,
    h("span", { class: "sr-only" }, ` ${name}`),
  );
}
