// The signed-in user's own account (#/account, behind their name in the top bar): change the password.
// The account's other sessions end; this device keeps working with the fresh token the answer brings.
import { ApiProblem, changePassword } from "../core/api.js";
import { busy, clear, field, formValues, h, showProblem } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { t, tn } from "../core/i18n.js";
import { session } from "../core/session.js";

export async function screen(view) {
  const limit = await limits("change_password");
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary wide" }, t("account.submit"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    h("input", {
      type: "text",
      name: "username",
      autocomplete: "username",
      value: session.user.username,
      hidden: true,
    }),
    field(t("account.current"), {
      name: "current_password",
      type: "password",
      autocomplete: "current-password",
      required: true,
    }),
    field(
      t("auth.newPassword"),
      {
        name: "new_password",
        type: "password",
        autocomplete: "new-password",
        required: true,
        ...limit.new_password,
      },
      t("auth.passwordHint"),
    ),
    field(t("auth.repeatNewPassword"), {
      name: "again",
      type: "password",
      autocomplete: "new-password",
      required: true,
    }),
    h("p", { class: "hint" }, t("account.othersEnd")),
    errors,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { current_password: current, new_password: next, again } = formValues(form);
    if (!current)
      return showProblem(errors, { detail: t("dialog.required", { label: t("account.current") }) });
    if (next !== again) return showProblem(errors, { detail: t("auth.passwordsDiffer") });
    busy(submit, errors, async () => {
      await changePassword(current, next).catch((error) => {
        throw error.code === "invalid_credentials"
          ? new ApiProblem({ detail: t("account.wrongCurrent") })
          : error;
      });
      form.reset();
      clear(errors, h("div", { class: "alert ok", role: "status" }, t("account.changed")));
    });
  });
  view.append(
    h(
      "section",
      { class: "panel narrow" },
      h("h1", {}, t("account.title")),
      h(
        "p",
        { class: "muted" },
        ...tn("account.signedInAs", { username: h("strong", {}, session.user.username) }),
      ),
      h("h2", {}, t("account.changeTitle")),
      form,
    ),
  );
  form.elements.current_password.focus();
}
