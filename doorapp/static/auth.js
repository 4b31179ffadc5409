// Sign-in, registration, password recovery with a code, and the first-run setup page.
import { api, signIn as requestToken, token } from "./api.js";
import { busy, clear, field, formValues, h, showProblem } from "./dom.js";
import { setupDone, signedIn } from "./app.js";

let notice = "";

// A sentence to show once on the next sign-in screen (why the session ended).
export function setNotice(text) {
  notice = text || "";
}

function card(title, ...children) {
  return h("section", { class: "panel narrow" }, h("h1", {}, title), ...children);
}

const PASSWORD_HINT = "15 to 128 characters. A few unrelated words make a good one.";

export async function signIn(view) {
  const errors = h("div");
  if (notice) errors.append(h("div", { class: "alert error", role: "alert" }, notice));
  const submit = h("button", { type: "submit", class: "primary wide" }, "Sign in");
  const form = h("form", { class: "stack", novalidate: true },
    field("Username", { name: "username", autocomplete: "username", required: true, autocapitalize: "none", spellcheck: "false" }),
    field("Password", { name: "password", type: "password", autocomplete: "current-password", required: true }),
    errors, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { username, password } = formValues(form);
    notice = "";
    busy(submit, errors, async () => {
      const answer = await requestToken(username, password);
      token.set(answer.access_token);
      await signedIn();
    });
  });
  view.append(card("Sign in", form,
    h("p", { class: "links" },
      h("a", { href: "#/register" }, "Create an account"), " · ",
      h("a", { href: "#/forgot" }, "Forgot your password?"))));
  form.elements.username.focus();
}

export async function register(view) {
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary wide" }, "Create account");
  const form = h("form", { class: "stack", novalidate: true },
    field("Username", { name: "username", autocomplete: "username", required: true, maxlength: 64, autocapitalize: "none", spellcheck: "false" },
      "1 to 64 characters, no spaces."),
    field("Password", { name: "password", type: "password", autocomplete: "new-password", required: true, minlength: 15, maxlength: 128 }, PASSWORD_HINT),
    field("Repeat the password", { name: "again", type: "password", autocomplete: "new-password", required: true }),
    errors, submit);
  const box = card("Create an account", form, h("p", { class: "links" }, h("a", { href: "#/signin" }, "Back to sign in")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { username, password, again } = formValues(form);
    if (password !== again) return showProblem(errors, { detail: "The two passwords differ." });
    busy(submit, errors, async () => {
      const user = await api.post("/auth/register", { username, password }, { auth: false });
      clear(box,
        h("h1", {}, "Waiting for approval"),
        h("div", { class: "alert info", role: "status" },
          h("p", {}, "Your account ", h("strong", {}, user.username), " has been created."),
          h("p", {}, "A site admin has to approve it before you can sign in. Ask one to approve you, then sign in.")),
        h("a", { class: "button secondary", href: "#/signin" }, "Go to sign in"));
    });
  });
  view.append(box);
  form.elements.username.focus();
}

export async function forgot(view) {
  const errors = h("div");
  const check = h("button", { type: "submit", class: "primary wide" }, "Check the code");
  const form = h("form", { class: "stack", novalidate: true },
    h("p", {}, "A site admin can give you a 6-digit recovery code. It is valid for 72 hours."),
    field("Username", { name: "username", autocomplete: "username", required: true, autocapitalize: "none", spellcheck: "false" }),
    field("Recovery code", { name: "code", inputmode: "numeric", autocomplete: "one-time-code", required: true, maxlength: 6, pattern: "[0-9]{6}" }),
    errors, check);
  const box = card("Reset your password", form, h("p", { class: "links" }, h("a", { href: "#/signin" }, "Back to sign in")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { username, code } = formValues(form);
    busy(check, errors, async () => {
      await api.post("/auth/verify-recovery-code", { username, code: code.trim() }, { auth: false });
      newPassword(box, username, code.trim());
    });
  });
  view.append(box);
  form.elements.username.focus();
}

function newPassword(box, username, code) {
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary wide" }, "Set the new password");
  const form = h("form", { class: "stack", novalidate: true },
    h("p", {}, "The code is valid. Choose a new password for ", h("strong", {}, username), "."),
    field("New password", { name: "new_password", type: "password", autocomplete: "new-password", required: true, minlength: 15, maxlength: 128 }, PASSWORD_HINT),
    field("Repeat the new password", { name: "again", type: "password", autocomplete: "new-password", required: true }),
    errors, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { new_password, again } = formValues(form);
    if (new_password !== again) return showProblem(errors, { detail: "The two passwords differ." });
    busy(submit, errors, async () => {
      await api.post("/auth/reset-password", { username, code, new_password }, { auth: false });
      clear(box, h("h1", {}, "Password changed"),
        h("div", { class: "alert ok", role: "status" }, "Your password is changed. Sign in with the new one."),
        h("a", { class: "button primary", href: "#/signin" }, "Sign in"));
    });
  });
  clear(box, h("h1", {}, "Reset your password"), form);
  form.elements.new_password.focus();
}

export async function setup(view, [code] = []) {
  const { needed } = await api.get("/setup", { auth: false });
  if (!needed) {
    view.append(card("Door is set up", h("p", {}, "Door already has a site admin."),
      h("a", { class: "button primary", href: "#/signin" }, "Sign in")));
    return;
  }
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary wide" }, "Create the site admin");
  const form = h("form", { class: "stack", novalidate: true },
    h("p", {}, "Welcome to Door. Enter the setup code that was printed where Door was started (",
      h("code", {}, "Setup code: XXXX-XXXX-XXXX"), "), and choose the first site admin's account."),
    field("Setup code", { name: "code", required: true, autocomplete: "off", autocapitalize: "characters", spellcheck: "false" }),
    field("Username", { name: "username", autocomplete: "username", required: true, maxlength: 64, autocapitalize: "none", spellcheck: "false" }),
    field("Password", { name: "password", type: "password", autocomplete: "new-password", required: true, minlength: 15, maxlength: 128 }, PASSWORD_HINT),
    errors, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { code, username, password } = formValues(form);
    busy(submit, errors, async () => {
      await api.post("/setup", { code: code.trim(), username, password }, { auth: false });
      setupDone();
      const answer = await requestToken(username, password);
      token.set(answer.access_token);
      await signedIn();
    });
  });
  view.append(card("First-run setup", form, h("p", { class: "links" }, h("a", { href: "#/signin" }, "Sign in instead"))));
  if (code) {
    form.elements.code.value = code;
    form.elements.username.focus();
  } else {
    form.elements.code.focus();
  }
}
