// How phones join (site admins and org admins): the address to open and a QR code of it, made by the
// server (GET /phones); when Door listens only on this computer, how to let the venue network in.
import { api } from "../core/api.js";
import { h } from "../core/dom.js";
import { t, tn } from "../core/i18n.js";
import { isOrgAdmin, session } from "../core/session.js";
import { joinFigure } from "../shared/join.js";

export async function screen(view, params, ctx) {
  const access = await api.get("/phones");
  if (!ctx.alive) return;
  const { host, port } = access.listening;
  if (access.urls.length) {
    view.append(h("section", { class: "panel phones" },
      h("h1", {}, t("phones.title")),
      h("p", {}, t("phones.intro")),
      access.urls.map((found) => joinFigure(found))));
  } else if (access.open_to_lan) {
    view.append(h("section", { class: "panel phones" },
      h("h1", {}, t("phones.cannotTitle")),
      h("p", {}, t("phones.cannotText", { address: `${host}:${port}` })),
      h("pre", {}, h("code", {}, access.open_to_lan.command)),
      h("p", {}, ...tn("phones.orSet", { setting: h("code", {}, access.open_to_lan.setting) })),
      h("p", { class: "hint" }, t("phones.proxy"))));
  } else {
    view.append(h("section", { class: "panel phones" },
      h("h1", {}, t("phones.noNetworkTitle")),
      h("p", {}, t("phones.noNetworkText"))));
  }
  if (session.org && isOrgAdmin()) { // a phone that works the door with no account (screens/passes.js)
    view.append(h("section", { class: "panel" }, h("h2", {}, t("passes.title")),
      h("p", {}, t("passes.intro")), h("a", { class: "button primary", href: "#/passes" }, t("passes.new"))));
  }
}
