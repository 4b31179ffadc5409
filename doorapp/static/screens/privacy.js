// The current organization's data protection (#/privacy, org admins): how long it keeps what it knows of
// guests (Door forgets older data at start and every hour) and the notice it shows them, at its door and on
// a door pass's pairing. One person's data is exported and erased on their guest page (screens/guest.js).
import { api } from "../core/api.js";
import { busy, clear, field, formValues, h } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { t } from "../core/i18n.js";
import { orgPath, session } from "../core/session.js";

export async function screen(view, params, ctx) {
  const [privacy, limit] = await Promise.all([api.get(orgPath("/privacy")), limits("update_privacy")]);
  if (!ctx.alive) return;
  const months = (name, label, hint) =>
    field(
      label,
      {
        name,
        type: "number",
        inputmode: "numeric",
        required: true,
        ...limit[name],
        value: privacy[name] ?? "",
      },
      hint,
    );
  const bans = months("keep_bans_months", t("privacy.bans"), t("privacy.bansHint"));
  const untilLifted = h("input", {
    type: "checkbox",
    name: "bans_until_lifted",
    checked: privacy.keep_bans_months === null,
    onchange: () => showBans(),
  });
  const banInput = bans.querySelector("input");
  function showBans() {
    banInput.disabled = untilLifted.checked;
    banInput.required = !untilLifted.checked;
    if (!untilLifted.checked && !banInput.value) banInput.value = "24";
  }
  showBans();
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary" }, t("privacy.save"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    months("keep_guests_months", t("privacy.guests"), t("privacy.guestsHint")),
    bans,
    h("label", { class: "check" }, untilLifted, t("privacy.untilLifted")),
    months("keep_audit_details_months", t("privacy.audit"), t("privacy.auditHint")),
    field(
      t("privacy.notice"),
      { name: "notice", tag: "textarea", rows: 8, ...limit.notice, value: privacy.notice },
      t("privacy.noticeHint"),
    ),
    h("p", { class: "hint" }, t("privacy.when")),
    errors,
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(form);
    const number = (name) => (values[name] === undefined ? null : Number(values[name]));
    busy(submit, errors, async () => {
      await api.patch(orgPath("/privacy"), {
        keep_guests_months: number("keep_guests_months"),
        keep_bans_months: untilLifted.checked ? null : number("keep_bans_months"),
        keep_audit_details_months: number("keep_audit_details_months"),
        notice: values.notice.trim(),
      });
      clear(errors, h("div", { class: "alert ok", role: "status" }, t("privacy.saved")));
    });
  });
  view.append(
    h(
      "section",
      { class: "panel narrow" },
      h("h1", {}, t("privacy.title", { org: session.org.name })),
      h("p", { class: "muted" }, t("privacy.intro")),
      form,
    ),
    h(
      "section",
      { class: "panel narrow" },
      h("h2", {}, t("privacy.oneTitle")),
      h("p", {}, t("privacy.oneText")),
    ),
  );
}
