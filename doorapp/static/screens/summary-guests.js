// The summary's guest list, which may hold 2,000 names: searched by the door's rule (core/search.js),
// narrowed to one outcome, or one of the organization's tags, with the chips, and shown a page at a time, on
// a phone as on a desktop.
import { h, clear } from "../core/dom.js";
import { formatNumber, t } from "../core/i18n.js";
import { haystack, matcher } from "../core/search.js";
import { outcomeWord } from "../shared/outcome.js";
import { tagDot } from "../shared/tags.js";

export const PAGE = 50;

export function guestList(summary, row) {
  const guests = summary.guests;
  const hays = guests.map((guest) => haystack({ guest }));
  let outcome = "",
    shown = PAGE;
  const list = h("ol", { class: "rows outcomes", id: "summary-guests" });
  const status = h("p", { class: "muted", role: "status" });
  const more = h("button", {
    type: "button",
    class: "secondary more",
    onclick: () => {
      shown += PAGE;
      draw();
    },
  });
  const search = h("input", {
    type: "search",
    class: "summary-search",
    placeholder: t("summary.searchPlaceholder"),
    "aria-label": t("summary.searchLabel"),
    "aria-controls": "summary-guests",
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: "false",
    oninput: () => {
      shown = PAGE;
      draw();
    },
  });
  const tagged = new Map();
  for (const guest of guests)
    for (const tag of guest.tags || [])
      tagged.set(tag.id, { ...tag, count: (tagged.get(tag.id)?.count || 0) + 1 });
  const tags = [...tagged.values()].sort((a, b) => a.label.localeCompare(b.label));
  const choices = [
    ["", t("filter.all"), guests.length],
    ...Object.entries(summary.outcomes).map(([word, count]) => [word, outcomeWord(word), count]),
    ...tags.map((tag) => [`tag:${tag.id}`, [tagDot(tag), tag.label], tag.count]),
  ];
  const chips = h(
    "div",
    { class: "chips wrap", role: "radiogroup", "aria-label": t("summary.show") },
    choices.map(([value, label, count]) =>
      h(
        "button",
        {
          type: "button",
          class: "chip",
          role: "radio",
          dataset: { outcome: value },
          "aria-checked": String(value === outcome),
          onclick: () => {
            outcome = value;
            shown = PAGE;
            draw();
          },
        },
        label,
        ` ${formatNumber(count)}`,
      ),
    ),
  );
  const keep = (guest) =>
    !outcome || guest.outcome === outcome || (guest.tags || []).some((tag) => `tag:${tag.id}` === outcome);
  function draw() {
    const matches = matcher(search.value);
    const found = guests.filter((g, i) => keep(g) && matches(hays[i]));
    clear(list, found.slice(0, shown).map(row));
    for (const chip of chips.children)
      chip.setAttribute("aria-checked", String(chip.dataset.outcome === outcome));
    status.textContent = found.length
      ? t("summary.showing", {
          shown: formatNumber(Math.min(shown, found.length)),
          total: formatNumber(found.length),
        })
      : t("summary.nobodyFound");
    more.hidden = found.length <= shown;
    more.textContent = t("summary.showMore", { count: formatNumber(Math.min(PAGE, found.length - shown)) });
  }
  draw();
  return [h("div", { class: "summary-find" }, search, chips), status, list, more];
}
