// The organization's tags on its guests ("Speaker", "Step-free entrance"): how one looks wherever a guest is
// shown (the door's rows and chips, the summary), and the dialog in which an admin sets a guest's tags and
// note (from the Tags screen and the guest's page).
import { api } from "../core/api.js";
import { ask, h } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { orgPath } from "../core/session.js";
import { shortName } from "./names.js";

// One tag, in its colour.
export const tagChip = (tag) => h("span", { class: `tag label ${tag.color}` }, tag.label);

// Its colour alone (a filter chip's), beside its label.
export const tagDot = (tag) => h("span", { class: `dot ${tag.color}`, "aria-hidden": "true" });

// Set a guest's tags and note in the organization: a box per tag, and the note. Resolves to {tags, note} as
// Door now keeps them, or null when the admin cancelled.
export async function editGuestTags(guest) {
  const [{ tags }, kept, fields] = await Promise.all([
    api.get(orgPath("/tags")),
    api.get(orgPath(`/guests/${guest.platform_user_id}/tags`)),
    limits("set_guest_tags"),
  ]);
  const has = new Set(kept.tags.map((tag) => tag.id));
  const boxes = tags.map((tag) =>
    h("input", { type: "checkbox", value: String(tag.id), checked: has.has(tag.id) }),
  );
  const choices = tags.length
    ? h(
        "fieldset",
        { class: "tag-choices" },
        h("legend", {}, t("tags.choose")),
        tags.map((tag, i) => h("label", {}, boxes[i], tagChip(tag))),
      )
    : h("p", { class: "muted" }, t("tags.noneYet"));
  let saved = null;
  const done = await ask({
    title: t("tags.guestTitle", { name: shortName(guest) }),
    extra: choices,
    input: {
      label: t("tags.noteLabel"),
      value: kept.note || "",
      placeholder: t("tags.notePlaceholder"),
      limits: fields.note,
    },
    confirm: t("tags.save"),
    action: async (note) => {
      const chosen = boxes.filter((box) => box.checked).map((box) => Number(box.value));
      saved = await api.put(orgPath(`/guests/${guest.platform_user_id}/tags`), { tags: chosen, note });
    },
  });
  return done === null ? null : saved;
}
