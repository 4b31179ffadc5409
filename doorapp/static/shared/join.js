// An address a phone opens (the Phones screen's, a door pass's pairing address): a QR code of it made by the
// server, and the address itself to copy.
import { clear, copyText, h } from "../core/dom.js";
import { t, tn } from "../core/i18n.js";

// joinFigure({url, qr_svg}, {alt, label, title, hints}): the figure; the options word it (the Phones
// screen's words by default).
export function joinFigure(
  { url, qr_svg: qr },
  {
    alt = t("phones.qr", { url }),
    label = t("phones.address"),
    title = null,
    hints = [t("phones.hint")],
  } = {},
) {
  const copied = h("span", { class: "muted", "aria-live": "polite" });
  const text = h("input", { class: "url", readonly: true, value: url, "aria-label": label });
  return h(
    "figure",
    { class: "join" },
    h("img", { class: "qr", src: qr, alt, width: 264, height: 264 }),
    h(
      "figcaption",
      {},
      title ? h("h2", {}, title) : null,
      h(
        "div",
        { class: "inline" },
        text,
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            onclick: async () => {
              clear(copied, (await copyText(url, text)) ? t("common.copied") : t("phones.selectToCopy"));
            },
          },
          t("common.copy"),
        ),
      ),
      copied,
      hints.map((hint) => h("p", { class: "hint" }, hint)),
    ),
  );
}

// While only this computer can open Door (GET /phones' `open_to_lan`, a pass's pairing's): that no phone can
// join yet, `text` saying why here, the command that starts this same Door open to the venue network, and the
// setting that does the same. Without `lan` (Door listens on every address, but this computer has no network
// address yet), that. `heading`: the level of its title on the screen.
export function lanHelp(lan, text, heading = "h2") {
  if (!lan)
    return h(
      "div",
      { class: "alert warn lan-help" },
      h(heading, {}, t("phones.noNetworkTitle")),
      h("p", {}, t("phones.noNetworkText")),
    );
  return h(
    "div",
    { class: "alert warn lan-help" },
    h(heading, {}, t("phones.cannotTitle")),
    h("p", {}, text),
    h("pre", {}, h("code", {}, lan.command)),
    h("p", {}, ...tn("phones.orSet", { setting: h("code", {}, lan.setting) })),
    h("p", { class: "hint" }, t("phones.proxy")),
  );
}
