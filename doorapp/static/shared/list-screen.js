// The pattern of a list screen (meetups, bans, members): a panel with a title over a list that loads, says
// so when it is empty, and is drawn again after a change. A load that ends after the user has left draws
// nothing.
import { clear, h } from "../core/dom.js";

// listPanel(ctx, {title, load, empty, render, kind}) -> {panel, refresh}: `load()` resolves to the items,
// `render(items, refresh)` draws them, `empty` is the sentence for none; `refresh()` loads and draws again.
export function listPanel(ctx, { title, load, empty, render, kind }) {
  const slot = h("div", kind ? { class: kind } : {});
  async function refresh() {
    const items = await load();
    if (!ctx.alive) return;
    clear(slot, items.length ? render(items, refresh) : h("p", { class: "muted" }, empty));
  }
  return { panel: h("section", { class: "panel" }, h("h1", {}, title), slot), refresh };
}
