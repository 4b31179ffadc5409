// How phones join (site admins and org admins): the address to open and a QR code of it, made by the
// server (GET /phones); when Door listens only on this computer, how to let the venue network in.
import { api } from "./api.js";
import { clear, copyText, h } from "./dom.js";

export async function screen(view, params, ctx) {
  const access = await api.get("/phones");
  if (!ctx.alive) return;
  const { host, port } = access.listening;
  if (access.urls.length) {
    view.append(h("section", { class: "panel phones" },
      h("h1", {}, "Phones join here"),
      h("p", {}, "On a phone on the same network, point the camera at the code, or type the address. Staff then sign in with their own account."),
      access.urls.map(address)));
  } else if (access.open_to_lan) {
    view.append(h("section", { class: "panel phones" },
      h("h1", {}, "Phones cannot join yet"),
      h("p", {}, `Door listens only on this computer (${host}:${port}), so phones on the venue network cannot open it. Stop Door and start it again with:`),
      h("pre", {}, h("code", {}, access.open_to_lan.command)),
      h("p", {}, "or set ", h("code", {}, access.open_to_lan.setting), " in its environment. Then this page shows the address and a code to scan."),
      h("p", { class: "hint" }, "Behind a reverse proxy? Set DOOR_PUBLIC_URL to the address phones open.")));
  } else {
    view.append(h("section", { class: "panel phones" },
      h("h1", {}, "No network yet"),
      h("p", {}, "Door listens on every address, but this computer has no network address yet. Connect it to the venue's network, then reload this page.")));
  }
}

function address({ url, qr_svg: qr }) {
  const copied = h("span", { class: "muted", "aria-live": "polite" });
  const text = h("input", { class: "url", readonly: true, value: url, "aria-label": "Address for phones" });
  return h("figure", { class: "join" },
    h("img", { class: "qr", src: qr, alt: `QR code of ${url}`, width: 264, height: 264 }),
    h("figcaption", {},
      h("div", { class: "inline" }, text,
        h("button", { type: "button", class: "secondary", onclick: async () => {
          clear(copied, (await copyText(url, text)) ? "Copied." : "Select the address and copy it.");
        } }, "Copy")),
      copied,
      h("p", { class: "hint" }, "If a phone cannot open it: it must be on the same network as this computer, and the computer's firewall must let it in.")));
}
