// How phones join (site admins and org admins): the address to open and a QR code of it, made by the
// server (GET /phones); when Door listens only on this computer, how to let the venue network in. For an org
// admin, the organization's door passes that still work, each with its Revoke: a lost phone is two taps away
// (Phones, then Revoke).
import { api } from "../core/api.js";
import { clear, h } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { isOrgAdmin, orgPath, session } from "../core/session.js";
import { joinFigure, lanHelp } from "../shared/join.js";
import { ended, passTable } from "../shared/passes.js";

export async function screen(view, params, ctx) {
  const access = await api.get("/phones");
  if (!ctx.alive) return;
  const { host, port } = access.listening;
  view.append(
    access.urls.length
      ? h(
          "section",
          { class: "panel phones" },
          h("h1", {}, t("phones.title")),
          h("p", {}, t("phones.intro")),
          access.urls.map((found) => joinFigure(found)),
        )
      : h(
          "section",
          { class: "panel phones" },
          lanHelp(access.open_to_lan, t("phones.cannotText", { address: `${host}:${port}` }), "h1"),
        ),
  );
  if (session.org && isOrgAdmin()) view.append(await passesPanel(ctx));
}

// The org's passes that still work, with Revoke, and a way to make another (screens/passes.js).
async function passesPanel(ctx) {
  const list = h("div", { class: "passes" });
  const refresh = async () => {
    const [{ passes }, { meetups }] = await Promise.all([
      api.get(orgPath("/passes")),
      api.get(orgPath("/meetups/")),
    ]);
    if (!ctx.alive) return;
    const live = passes.filter((pass) => !ended(pass));
    clear(
      list,
      live.length
        ? passTable(live, new Map(meetups.map((m) => [m.id, m.name])), refresh)
        : h("p", { class: "muted" }, t("passes.noneWorking")),
    );
  };
  await refresh();
  return h(
    "section",
    { class: "panel" },
    h("h2", {}, t("passes.title")),
    h("p", {}, t("passes.intro")),
    list,
    h("div", { class: "actions" }, h("a", { class: "button primary", href: "#/passes" }, t("passes.new"))),
  );
}
