// The organization's tags (#/tags, org admins): what every door row of a guest says before anyone has to ask
// ("Speaker", "Step-free entrance", "See a host"). Make, rename, recolour and delete them, and put them (with
// a short note) on a guest found by name.
import { api, query } from "../core/api.js";
import { ask, askButton, field, formValues, h, liveSearch, toast, busy } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { fieldChoices, limits } from "../core/openapi.js";
import { orgPath, session } from "../core/session.js";
import { listPanel } from "../shared/list-screen.js";
import { handle, named, shortName } from "../shared/names.js";
import { editGuestTags, tagChip } from "../shared/tags.js";

let colors = []; // the colours a tag may have, as the API declares them

export async function screen(view, params, ctx) {
  colors = await fieldChoices("create_tag", "color");
  const tags = listPanel(ctx, {
    title: t("tags.title", { org: session.org.name }),
    empty: t("tags.empty"),
    load: async () => (await api.get(orgPath("/tags"))).tags,
    render: rows,
  });
  view.append(
    h("section", { class: "panel" }, h("p", {}, t("tags.intro"))),
    tags.panel,
    await newTag(tags.refresh),
    guestFinder(),
  );
  await tags.refresh();
}

const colorSelect = (value, label) =>
  h(
    "select",
    { name: "color", "aria-label": label },
    colors.map((color) => h("option", { value: color, selected: color === value }, t(`color.${color}`))),
  );

function rows(tags, refresh) {
  return h(
    "ul",
    { class: "rows" },
    tags.map((tag) =>
      h(
        "li",
        { class: "row", dataset: { tag: String(tag.id) } },
        h("div", { class: "who" }, tagChip(tag), h("span", { class: "muted" }, t(`color.${tag.color}`))),
        h(
          "div",
          { class: "act" },
          h(
            "button",
            {
              type: "button",
              class: "secondary",
              "aria-label": t("tags.editNamed", { label: tag.label }),
              onclick: () => edit(tag, refresh),
            },
            t("tags.edit"),
          ),
          askButton(
            t("tags.deleteButton"),
            () => ({
              title: t("tags.deleteTitle", { label: tag.label }),
              message: t("tags.deleteText"),
              confirm: t("tags.delete"),
              danger: true,
              action: () => api.del(orgPath(`/tags/${tag.id}`)),
            }),
            t("tags.deleted", { label: tag.label }),
            refresh,
            { "aria-label": t("tags.deleteNamed", { label: tag.label }) },
          ),
        ),
      ),
    ),
  );
}

async function edit(tag, refresh) {
  const color = colorSelect(tag.color, t("tags.color"));
  const done = await ask({
    title: t("tags.editTitle", { label: tag.label }),
    input: {
      label: t("tags.label"),
      required: true,
      value: tag.label,
      limits: (await limits("change_tag")).label,
    },
    extra: h("div", { class: "field" }, h("label", {}, t("tags.color"), " ", color)),
    confirm: t("tags.save"),
    action: (label) => api.patch(orgPath(`/tags/${tag.id}`), { label, color: color.value }),
  });
  if (done) {
    toast(t("tags.saved"));
    refresh();
  }
}

async function newTag(changed) {
  const slot = h("div");
  const button = h("button", { type: "submit", class: "primary" }, t("tags.create"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    field(t("tags.label"), {
      name: "label",
      required: true,
      autocomplete: "off",
      placeholder: t("tags.labelPlaceholder"),
      ...(await limits("create_tag")).label,
    }),
    h("div", { class: "field" }, h("label", {}, t("tags.color"), " ", colorSelect("grey", t("tags.color")))),
    slot,
    h("div", { class: "actions" }, button),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = formValues(form);
    const made = await busy(button, slot, () => api.post(orgPath("/tags"), values));
    if (made) {
      toast(t("tags.created", { label: made.label }));
      form.reset();
      changed();
    }
  });
  return h("section", { class: "panel" }, h("h2", {}, t("tags.new")), form);
}

// A guest found by name (any Door knows), to put tags and a note on.
function guestFinder() {
  const results = h("ul", { class: "rows picker" });
  const input = h("input", {
    type: "search",
    placeholder: t("tags.findPlaceholder"),
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: "false",
    "aria-label": t("tags.findLabel"),
  });
  liveSearch(input, results, async (q) => {
    const { guests } = await api.get("/guests/" + query({ q, limit: 10 }));
    return guests.length
      ? guests.map(pick)
      : [h("li", { class: "row" }, h("div", { class: "who muted" }, t("tags.nobody")))];
  });
  function pick(guest) {
    return h(
      "li",
      { class: "row" },
      h(
        "div",
        { class: "who" },
        h("span", { class: "name" }, shortName(guest)),
        h("span", { class: "username" }, handle(guest)),
      ),
      h(
        "div",
        { class: "act" },
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            "aria-label": t("tags.guestNamed", { guest: named(guest) }),
            onclick: async () => {
              const saved = await editGuestTags(guest);
              if (saved) toast(t("tags.guestSaved", { name: shortName(guest) }));
            },
          },
          t("tags.guestButton"),
        ),
      ),
    );
  }
  return h(
    "section",
    { class: "panel" },
    h("h2", {}, t("tags.guestsTitle")),
    h("p", { class: "muted" }, t("tags.guestsText")),
    input,
    results,
  );
}
