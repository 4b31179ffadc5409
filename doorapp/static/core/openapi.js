// What the server declares about its API (GET /openapi.json, fetched once per page): the limits of every
// request body's fields, as a form's input attributes, and the lists the API fixes (the audit's event
// types). A limit is written once, on the server; the forms read it here and never type it again.
import { api, isOffline } from "./api.js";

let spec = null; // the promise of the document; dropped on failure, so the next form asks again

function load() {
  if (!spec)
    spec = api.get("/openapi.json", { auth: false }).catch((error) => {
      spec = null;
      throw error;
    });
  return spec;
}

// A schema with its "$ref"s followed ("#/components/schemas/Name"), wherever the server puts them.
function resolve(document, schema) {
  let node = schema;
  for (let hops = 0; node && node.$ref && hops < 32; hops += 1) {
    node = node.$ref
      .replace(/^#\//, "")
      .split("/")
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((at, part) => at?.[part], document);
  }
  return node || {};
}

function operation(document, operationId) {
  for (const item of Object.values(document.paths || {})) {
    for (const found of Object.values(item)) if (found && found.operationId === operationId) return found;
  }
  return null;
}

const ATTRIBUTES = [
  ["maxLength", "maxlength"],
  ["minLength", "minlength"],
  ["pattern", "pattern"],
  ["minimum", "min"],
  ["maximum", "max"],
]; // [JSON Schema keyword, input attribute]

// The limits of one operation's body: {field: {maxlength, minlength, pattern, min, max}} (those it declares),
// e.g. (await limits("register_user")).password -> {minlength: 15, maxlength: 128}. Where the document cannot
// be had (offline), no limits: the form still works and the server still checks every value.
export async function limits(operationId) {
  if (!spec && isOffline()) return {}; // a dialog at an offline door opens at once
  let document;
  try {
    document = await load();
  } catch {
    return {};
  }
  const body = operation(document, operationId)?.requestBody;
  const media = body ? Object.values(resolve(document, body).content || {})[0] : null;
  const properties = resolve(document, media?.schema).properties || {};
  return Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const schema = resolve(document, property);
      return [
        name,
        Object.fromEntries(
          ATTRIBUTES.filter(([keyword]) => schema[keyword] !== undefined).map(([keyword, attribute]) => [
            attribute,
            schema[keyword],
          ]),
        ),
      ];
    }),
  );
}

// The values a field of an operation's body may take (its schema's enum), e.g. a tag's colours.
export async function fieldChoices(operationId, name) {
  const document = await load();
  const body = operation(document, operationId)?.requestBody;
  const media = body ? Object.values(resolve(document, body).content || {})[0] : null;
  const schema = resolve(document, resolve(document, media?.schema).properties?.[name]);
  return (
    schema.enum ||
    (schema.anyOf || []).map((choice) => resolve(document, choice)).find((choice) => choice.enum)?.enum ||
    []
  );
}

// The values a query parameter of an operation may take (its schema's enum, or its items' enum).
export async function choices(operationId, parameter) {
  const document = await load();
  const found = (operation(document, operationId)?.parameters || [])
    .map((p) => resolve(document, p))
    .find((p) => p.name === parameter);
  const schema = resolve(document, found?.schema);
  return schema.enum || resolve(document, schema.items).enum || [];
}
