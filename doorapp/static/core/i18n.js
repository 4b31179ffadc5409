// The app's words: one catalogue per language (locales/en.js, locales/es.js), chosen from what the browser
// prefers (navigator.languages) or what the user picked (remembered in localStorage). t(key, params) gives a
// string (plural forms by Intl.PluralRules on params.count, ordinals on params.ordinal); tn() gives a list of
// strings and nodes, so a name in a sentence stays a text node or an element, never markup.
import en from "../locales/en.js";
import es from "../locales/es.js";

export const CATALOGUES = { en, es };
export const LANGUAGES = [["en", "EN", "English"], ["es", "ES", "Español"]];
const STORE = "door_lang";

function preferred() {
  const stored = localStorage.getItem(STORE);
  if (CATALOGUES[stored]) return stored;
  for (const tag of navigator.languages || [navigator.language]) {
    const code = String(tag || "").toLowerCase().split("-")[0];
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
    const form = params.ordinal !== undefined
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
  return text.split(/(\{\w+\})/).filter(Boolean).map((part) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (!name || !(name in params)) return part;
    return params[name] instanceof Node ? params[name] : shown(params[name]);
  });
}

export const formatNumber = (n) => numbers.format(n);

// A field message of a 422 in the chosen language where its pattern is known, else the server's words.
const FIELD_MESSAGES = [
  [/^Field required\.$/, "field.required"],
  [/^Must not be blank\.$/, "field.blank"],
  [/^Must be at least (\d+) characters\.$/, "field.min"],
  [/^Must be at most (\d+) characters\.$/, "field.max"],
  [/^Must be a whole number\.$/, "field.integer"],
  [/^Has the wrong format\.$/, "field.format"],
  [/^Must not contain spaces or invisible/, "field.invisible"],
  [/^Must not start with a combining mark\.$/, "field.combining"],
];

function fieldMessage({ loc = [], msg = "" }) {
  const name = String(loc[loc.length - 1] ?? "");
  const label = has(`field.${name}`) ? t(`field.${name}`) : name;
  for (const [pattern, key] of FIELD_MESSAGES) {
    const m = pattern.exec(msg);
    if (m) return `${label}: ${t(key, { count: Number(m[1] || 0) })}`;
  }
  return `${label}: ${msg}`;
}

// What went wrong, in the chosen language: the problem's stable `code` looked up in the catalogue (its
// fields fill the sentence), else the server's `detail`. A 422 names its fields.
export function problemText(error) {
  if (!error) return "";
  if (error.code === "validation_error" && Array.isArray(error.errors) && error.errors.length) {
    return fieldMessage(error.errors[0]);
  }
  // the server's own detail is English and names what it is about (a guest, a username): English gets it whole
  if (lang === "en" && error.serverDetail) return error.detail;
  if (error.code && has(`error.${error.code}`)) return t(`error.${error.code}`, error);
  if (/^http_\d+$/.test(error.code || "") && !error.serverDetail) return t("error.http", { status: error.status });
  return error.detail || error.message || String(error);
}

export function fieldMessages(error) {
  return error.code === "validation_error" && Array.isArray(error.errors) ? error.errors.map(fieldMessage) : [];
}
