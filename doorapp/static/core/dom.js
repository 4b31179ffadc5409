// Small DOM helpers. Server data only ever goes in through textContent, attribute values and .value:
// nothing here (or anywhere in the app) assigns innerHTML.
import { fieldMessages, lang, problemText, t } from "./i18n.js";

// h("button", {class: "primary", onclick: fn, type: "submit"}, "Label", childNode, ...)
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    setProp(node, key, value);
  }
  append(node, children);
  return node;
}

const PROPERTIES = new Set(["value", "checked", "disabled", "selected"]); // set as properties, not attributes

// One of h()'s props: a listener (onclick), the class, the text, data-* attributes, a property, else an
// attribute (true: present and empty).
function setProp(node, key, value) {
  if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
  else if (key === "class") node.className = value;
  else if (key === "text") node.textContent = value;
  else if (key === "dataset") Object.assign(node.dataset, value);
  else if (PROPERTIES.has(key)) node[key] = value;
  else node.setAttribute(key, value === true ? "" : String(value));
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

let fieldCount = 0;

// A labelled input: field("Username", {name: "username", autocomplete: "username"}).
export function field(label, props = {}, hint) {
  const id = props.id || `f${++fieldCount}`;
  const tag = props.tag || "input";
  const options = props.options;
  const attributes = { ...props, id };
  delete attributes.tag;
  delete attributes.options;
  const input = h(tag, attributes, ...(options || []).map(([value, text]) => h("option", { value }, text)));
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    hint ? h("p", { class: "hint" }, hint) : null,
  );
}

// The problem in the chosen language (core/i18n.js problemText) in an alert box; a 422 of several fields, how
// many and each one's message, once.
export function problemBox(error) {
  const fields = fieldMessages(error);
  if (fields.length < 2) return h("div", { class: "alert error", role: "alert" }, problemText(error));
  return h(
    "div",
    { class: "alert error", role: "alert" },
    t("common.fields", { count: fields.length }),
    h(
      "ul",
      {},
      fields.map((text) => h("li", {}, text)),
    ),
  );
}

export function showProblem(slot, error) {
  clear(slot, problemBox(error));
}

// Run `action` with the form's submit button disabled; show its error (the problem's detail) in `slot`.
export async function busy(button, slot, action) {
  if (slot) clear(slot);
  button.disabled = true;
  try {
    return await action();
  } catch (error) {
    if (slot) showProblem(slot, error);
    else toast(problemText(error), "error");
    return undefined;
  } finally {
    button.disabled = false;
  }
}

export function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

// A secondary button that asks first: `options()` gives ask()'s options (it may wait for them); once Door has
// done it, the button says `said` and calls `then`. `attrs` adds to the button's (an aria-label).
export function askButton(label, options, said, then, attrs = {}) {
  const click = async () => {
    if ((await ask(await options())) === null) return;
    toast(said);
    then();
  };
  return h("button", { type: "button", class: "secondary", ...attrs, onclick: click }, label);
}

// A modal dialog. ask({title, message, confirm, danger, input: {label, required, limits, ...}, extra});
// `limits` are the field's input attributes as core/openapi.js reads them
// resolves to true / the input's value when confirmed, or null when cancelled.
// A dialog of choices rather than one confirm (the walk-in's) passes `after` (nodes below the input),
// `confirm: null` (no OK button), `ready({input, close})`, called once it shows (`close(result)` resolves the
// dialog with that result), and `submit(value)`, what Enter in the field does instead of confirming.
export function ask({
  title,
  message,
  confirm = t("dialog.ok"),
  cancel = t("dialog.cancel"),
  danger = false,
  input,
  extra,
  action,
  after,
  ready,
  submit,
}) {
  return new Promise((resolve) => {
    const errorSlot = h("div");
    const inputField = askField(input);
    const ok = confirm === null ? null : okButton(confirm, danger);
    const cancelButton = cancel
      ? h("button", { type: "button", class: "secondary", onclick: () => dialog.close("") }, cancel)
      : null;
    const form = h(
      "form",
      { method: "dialog", novalidate: true },
      h("h2", {}, title),
      messageNode(message),
      extra || null,
      inputField,
      after || null,
      errorSlot,
      h("div", { class: "actions" }, cancelButton, ok),
    );
    const dialog = h("dialog", { class: danger ? "danger" : "" }, form);
    let result = null;
    const close = (value) => {
      result = value;
      dialog.close("ok");
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = input ? form.elements.value.value.trim() : true;
      if (input && input.required && !value) {
        showProblem(errorSlot, { detail: t("dialog.required", { label: input.label }) });
        return;
      }
      if (submit) return submit(value);
      if (action) {
        const done = await busy(ok, errorSlot, () => action(value).then(() => true));
        if (!done) return;
      }
      close(value);
    });
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    focusFirst(form, danger ? cancelButton || ok : ok);
    if (ready) ready({ input: inputField && form.elements.value, close });
  });
}

const okButton = (label, danger) =>
  h("button", { type: "submit", class: danger ? "danger" : "primary", value: "ok" }, label);

// The dialog's first field, else its button: a dangerous confirmation starts on Cancel, so a second Enter
// cannot confirm it by accident.
function focusFirst(form, button) {
  const focus = form.querySelector("input, select") || button;
  if (focus) focus.focus();
}

// ask()'s field, when it has `input`.
function askField(input) {
  if (!input) return null;
  return field(input.label, {
    name: "value",
    required: input.required,
    ...input.limits,
    autocomplete: "off",
    value: input.value || "",
    placeholder: input.placeholder || "",
  });
}

// ask()'s message: text in a paragraph, or nodes as they are.
function messageNode(message) {
  if (!message) return null;
  return message instanceof Node ? message : h("p", {}, message);
}

let toastTimer = null;

// A short message at the bottom of the screen (also read out by screen readers).
export function toast(message, kind = "ok") {
  const slot = document.getElementById("toast");
  if (!slot) return;
  clear(slot, h("div", { class: `toast ${kind}` }, message));
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => slot.replaceChildren(), kind === "error" ? 8000 : 4000);
}

// Dates and times in the chosen language's formats, in the device's time zone (the venue's).
const FORMATS = {
  time: { hour: "2-digit", minute: "2-digit" },
  date: {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  },
  stamp: {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  },
  day: { dateStyle: "medium" },
};
const formatters = new Map();

function formatIn(kind, iso) {
  if (!iso) return "";
  const key = `${lang}:${kind}`;
  if (!formatters.has(key)) formatters.set(key, new Intl.DateTimeFormat(lang, FORMATS[kind]));
  return formatters.get(key).format(new Date(iso));
}

export const formatTime = (iso) => formatIn("time", iso);
export const formatDate = (iso) => formatIn("date", iso);
export const formatStamp = (iso) => formatIn("stamp", iso);
export const formatDay = (iso) => formatIn("day", iso);

// Copy text to the clipboard; falls back to selecting it where the Clipboard API is unavailable (plain
// http on the LAN is not a secure context).
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (input) {
      input.select();
      return document.execCommand && document.execCommand("copy");
    }
    return false;
  }
}

// Search as you type: `find(q)` answers the rows to show in `results` for the input's text, 200 ms after
// the last key; an answer overtaken by a newer search is dropped (Datasette's fetchId), an error shown.
export function liveSearch(input, results, find) {
  let fetchId = 0;
  input.addEventListener(
    "input",
    debounce(async () => {
      const q = input.value.trim();
      const id = ++fetchId;
      if (!q) return results.replaceChildren();
      try {
        const rows = await find(q);
        if (id === fetchId) clear(results, rows);
      } catch (error) {
        if (id === fetchId) clear(results, h("li", { class: "alert error" }, problemText(error)));
      }
    }, 200),
  );
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
