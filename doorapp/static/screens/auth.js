// Sign-in, registration, password recovery with a code, and the first-run setup page.
import { api, signIn as requestToken, token } from "../core/api.js";
import { busy, clear, field, formValues, h, showProblem } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { t, tn } from "../core/i18n.js";

let notice = "";

// A sentence to show once on the next sign-in screen (why the session ended).
export function setNotice(text) {
  notice = text || "";
}

function card(title, ...children) {
  return h("section", { class: "panel narrow" }, h("h1", {}, title), ...children);
}

const passwordHint = () => t("auth.passwordHint");

export async function signIn(view, params, ctx) {
  const errors = h("div");
  if (notice) errors.append(h("div", { class: "alert error", role: "alert" }, notice));
  const submit = h("button", { type: "submit", class: "primary wide" }, t("auth.signIn"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    field(t("auth.username"), {
      name: "username",
      autocomplete: "username",
      required: true,
      autocapitalize: "none",
      spellcheck: "false",
    }),
    field(t("auth.password"), {
      name: "password",
      type: "password",
      autocomplete: "current-password",
      required: true,
    }),
    errors,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { username, password } = formValues(form);
    notice = "";
    busy(submit, errors, async () => {
      const answer = await requestToken(username, password);
      token.set(answer.access_token);
      await ctx.signedIn();
    });
  });
  view.append(
    card(
      t("auth.signIn"),
      form,
      h(
        "p",
        { class: "links" },
        h("a", { href: "#/register" }, t("auth.createAnAccount")),
        " · ",
        h("a", { href: "#/forgot" }, t("auth.forgot")),
      ),
    ),
  );
  form.elements.username.focus();
}

export async function register(view) {
  const limit = await limits("register_user");
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary wide" }, t("auth.createAccount"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    field(
      t("auth.username"),
      {
        name: "username",
        autocomplete: "username",
        required: true,
        ...limit.username,
        autocapitalize: "none",
        spellcheck: "false",
      },
      t("auth.usernameHint"),
    ),
    field(
      t("auth.password"),
      { name: "password", type: "password", autocomplete: "new-password", required: true, ...limit.password },
      passwordHint(),
    ),
    field(t("auth.repeatPassword"), {
      name: "again",
      type: "password",
      autocomplete: "new-password",
      required: true,
    }),
    errors,
    submit,
  );
  const box = card(
    t("auth.createAnAccount"),
    form,
    h("p", { class: "links" }, h("a", { href: "#/signin" }, t("auth.backToSignIn"))),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { username, password, again } = formValues(form);
    if (password !== again) return showProblem(errors, { detail: t("auth.passwordsDiffer") });
    busy(submit, errors, async () => {
      const user = await api.post("/auth/register", { username, password }, { auth: false });
      clear(
        box,
        h("h1", {}, t("auth.waitingTitle")),
        h(
          "div",
          { class: "alert info", role: "status" },
          h("p", {}, ...tn("auth.accountCreated", { username: h("strong", {}, user.username) })),
          h("p", {}, t("auth.waitingText")),
        ),
        h("a", { class: "button secondary", href: "#/signin" }, t("auth.goToSignIn")),
      );
    });
  });
  view.append(box);
  form.elements.username.focus();
}

export async function forgot(view) {
  const limit = await limits("verify_recovery_code");
  const errors = h("div");
  const check = h("button", { type: "submit", class: "primary wide" }, t("auth.checkCode"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    h("p", {}, t("auth.recoveryIntro")),
    field(t("auth.username"), {
      name: "username",
      autocomplete: "username",
      required: true,
      autocapitalize: "none",
      spellcheck: "false",
    }),
    field(t("auth.recoveryCode"), {
      name: "code",
      inputmode: "numeric",
      autocomplete: "one-time-code",
      required: true,
      ...limit.code,
    }),
    errors,
    check,
  );
  const box = card(
    t("auth.resetTitle"),
    form,
    h("p", { class: "links" }, h("a", { href: "#/signin" }, t("auth.backToSignIn"))),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { username, code } = formValues(form);
    busy(check, errors, async () => {
      await api.post("/auth/verify-recovery-code", { username, code: code.trim() }, { auth: false });
      await newPassword(box, username, code.trim());
    });
  });
  view.append(box);
  form.elements.username.focus();
}

async function newPassword(box, username, code) {
  const limit = await limits("reset_password");
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary wide" }, t("auth.setNewPassword"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    h("p", {}, ...tn("auth.codeValid", { username: h("strong", {}, username) })),
    field(
      t("auth.newPassword"),
      {
        name: "new_password",
        type: "password",
        autocomplete: "new-password",
        required: true,
        ...limit.new_password,
      },
      passwordHint(),
    ),
    field(t("auth.repeatNewPassword"), {
      name: "again",
      type: "password",
      autocomplete: "new-password",
      required: true,
    }),
    errors,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { new_password, again } = formValues(form);
    if (new_password !== again) return showProblem(errors, { detail: t("auth.passwordsDiffer") });
    busy(submit, errors, async () => {
      await api.post("/auth/reset-password", { username, code, new_password }, { auth: false });
      clear(
        box,
        h("h1", {}, t("auth.passwordChanged")),
        h("div", { class: "alert ok", role: "status" }, t("auth.passwordChangedSignIn")),
        h("a", { class: "button primary", href: "#/signin" }, t("auth.signIn")),
      );
    });
  });
  clear(box, h("h1", {}, t("auth.resetTitle")), form);
  form.elements.new_password.focus();
}

export async function setup(view, [code] = [], ctx) {
  const [{ needed }, limit] = await Promise.all([
    api.get("/setup", { auth: false }),
    limits("create_first_admin"),
  ]);
  if (!needed) {
    view.append(
      card(
        t("setup.done"),
        h("p", {}, t("setup.hasAdmin")),
        h("a", { class: "button primary", href: "#/signin" }, t("auth.signIn")),
      ),
    );
    return;
  }
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary wide" }, t("setup.submit"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    h("p", {}, ...tn("setup.intro", { example: h("code", {}, t("setup.example")) })),
    field(t("setup.code"), {
      name: "code",
      required: true,
      ...limit.code,
      autocomplete: "off",
      autocapitalize: "characters",
      spellcheck: "false",
    }),
    field(t("auth.username"), {
      name: "username",
      autocomplete: "username",
      required: true,
      ...limit.username,
      autocapitalize: "none",
      spellcheck: "false",
    }),
    field(
      t("auth.password"),
      { name: "password", type: "password", autocomplete: "new-password", required: true, ...limit.password },
      passwordHint(),
    ),
    errors,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { code, username, password } = formValues(form);
    busy(submit, errors, async () => {
      await api.post("/setup", { code: code.trim(), username, password }, { auth: false });
      ctx.setupDone();
      const answer = await requestToken(username, password);
      token.set(answer.access_token);
      await ctx.signedIn();
    });
  });
  view.append(
    card(
      t("setup.title"),
      form,
      h("p", { class: "links" }, h("a", { href: "#/signin" }, t("setup.signInInstead"))),
    ),
  );
  if (code) {
    form.elements.code.value = code;
    form.elements.username.focus();
  } else {
    form.elements.code.focus();
  }
}
