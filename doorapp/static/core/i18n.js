// The app's words: one catalogue per language (locales/en.js, locales/es.js), chosen from what the browser
// prefers (navigator.languages) or what the user picked (remembered in localStorage). t(key, params) gives a
// string (plural forms by Intl.PluralRules on params.count, ordinals on params.ordinal); tn() gives a list of
// strings and nodes, so a name in a sentence stays a text node or an element, never markup.
import en from "../locales/en.js";
import es from "../locales/es.js";

export const CATALOGUES = { en, es };
export const LANGUAGES = [
  ["en", "EN", "English"],
  ["es", "ES", "Español"],
];
const STORE = "door_lang";

function preferred() {
  const stored = localStorage.getItem(STORE);
  if (CATALOGUES[stored]) return stored;
  for (const tag of navigator.languages || [navigator.language]) {
    const code = String(tag || "")
      .toLowerCase()
      .split("-")[0];
    if (CATALOGUES[code]) return code;
  }
  return "en";
}

export let lang = preferred();
let numbers = new Intl.NumberFormat(lang);
document.documentElement.lang = lang;

export function setLang(code) {
  if (!CATALOGUES[code]) return;
  lang = code;
  numbers = new Intl.NumberFormat(lang);
  localStorage.setItem(STORE, code);
  document.documentElement.lang = code;
  window.dispatchEvent(new CustomEvent("door:lang", { detail: code }));
}

// One Intl.PluralRules per language and type: the door list asks for plurals on every row it draws.
const rules = new Map();
function pluralRules(type) {
  const key = `${lang}:${type}`;
  if (!rules.has(key)) rules.set(key, new Intl.PluralRules(lang, { type }));
  return rules.get(key);
}

function entry(key, params) {
  let text = CATALOGUES[lang][key] ?? en[key];
  if (text === undefined) return undefined;
  if (typeof text === "object") {
    const form =
      params.ordinal !== undefined
        ? pluralRules("ordinal").select(params.ordinal)
        : pluralRules("cardinal").select(params.count ?? 0);
    text = text[form] ?? text.other;
  }
  return text;
}

const shown = (value) => (typeof value === "number" ? numbers.format(value) : String(value ?? ""));

export const has = (key) => key in CATALOGUES[lang] || key in en;

export function t(key, params = {}) {
  const text = entry(key, params);
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? shown(params[name]) : all));
}

// The same sentence as [text, node, text, ...]: params that are DOM nodes (a <strong> name) go in as nodes.
export function tn(key, params = {}) {
  const text = entry(key, params) ?? key;
  return text
    .split(/(\{\w+\})/)
    .filter(Boolean)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!name || !(name in params)) return part;
      return params[name] instanceof Node ? params[name] : shown(params[name]);
    });
}

export const formatNumber = (n) => numbers.format(n);

// A 422's field messages, worded here from each entry's machine-readable `type` and `ctx` (the limits it
// broke): {loc, msg, type, ctx}. The server's English `msg` is shown only for what has no words here: an
// `invalid` rule this version does not name, or a type it does not know.
const KINDS = {
  missing: () => t("field.required"),
  type: ({ expected }) => t(TYPES[expected] || "field.format"),
  blank: () => t("field.blank"),
  too_short: ({ min }) => t("field.min", { count: min }),
  too_long: ({ max }) => t("field.max", { count: max }),
  pattern: () => t("field.format"),
  too_small: ({ min }) => t("field.atLeast", { min }),
  too_large: ({ max }) => t("field.atMost", { max }),
  choice: ({ choices = [] }) => t("field.choice", { choices: choices.join(", ") }),
  datetime: () => t("field.datetime"),
  invalid: ({ rule }) => (RULES[rule] ? t(RULES[rule]) : undefined),
};
const TYPES = {
  string: "field.string",
  integer: "field.integer",
  boolean: "field.boolean",
  object: "field.object",
  array: "field.array",
  datetime: "field.datetime",
};
const RULES = {
  visible_name: "field.invisible",
  no_leading_mark: "field.combining",
  control_characters: "field.controls",
  username_confusable: "field.confusable",
  time_zone: "field.timeZone",
}; // `invalid` rules

function fieldMessage({ loc = [], msg = "", type, ctx = {} }) {
  const name = String(loc[loc.length - 1] ?? "");
  const label = has(`field.${name}`) ? t(`field.${name}`) : name;
  const worded = Object.hasOwn(KINDS, type) ? KINDS[type](ctx || {}) : undefined;
  return `${label}: ${worded ?? msg}`;
}

// What went wrong, in the chosen language: the problem's stable `code` looked up in the catalogue (its
// fields fill the sentence), else the server's `detail`. A 422 names its fields.
export function problemText(error) {
  if (!error) return "";
  if (isValidation(error) && error.errors.length) return fieldMessage(error.errors[0]);
  const said = catalogueText(error);
  return said !== null ? said : error.detail || error.message || String(error);
}

const isValidation = (error) => error.code === "validation_error" && Array.isArray(error.errors);

// A problem's words: the catalogue's for its code, or for its HTTP status when Door did not answer it; null
// when the catalogue has none.
function catalogueText(error) {
  // the server's own detail is English and names what it is about (a guest, a username):
  // English gets it whole
  if (lang === "en" && error.serverDetail) return error.detail;
  if (error.code && has(`error.${error.code}`)) return t(`error.${error.code}`, error);
  if (/^http_\d+$/.test(error.code || "") && !error.serverDetail)
    return t("error.http", { status: error.status });
  return null;
}

export function fieldMessages(error) {
  return isValidation(error) ? error.errors.map(fieldMessage) : [];
}
