// The organization's audit log (org admins): filters by type, dates, guest, meetup and staff; paged; the
// same filters download as CSV. The event types offered come from the API's OpenAPI description, and an
// event of a type this screen does not know is shown like any other.
import { api, ApiProblem, query } from "../core/api.js";
import { downloadCsv } from "../shared/csv-dialog.js";
import { busy, clear, debounce, field, formatStamp, h, showProblem } from "../core/dom.js";
import { choices } from "../core/openapi.js";
import { orgPath, session } from "../core/session.js";
import { formatNumber, has, t, tn } from "../core/i18n.js";
import { actorName, shortName } from "../shared/names.js";

const LIMIT = 50;

export async function list(view, params, ctx) {
  const [{ meetups }, { members }, TYPES] = await Promise.all([
    api.get(orgPath("/meetups/")),
    api.get(orgPath("/members")),
    choices("list_events", "type"),
  ]); // the `type` filter's, as the API declares them
  const meetupNames = new Map(meetups.map((m) => [m.id, m.name]));
  const state = { offset: 0, fetchId: 0 };
  const errors = h("div");
  const table = h("div", { class: "events" });
  const pager = h("div", { class: "pager" });
  // the guest field suggests guests as the door's search finds them ("angstrom alice": Alice Ångström)
  const guestsFound = h("datalist", { id: "audit-guests" });
  const form = h(
    "form",
    { class: "filters", novalidate: true },
    field(t("audit.type"), {
      tag: "select",
      name: "type",
      options: [["", t("audit.anyType")], ...TYPES.map((t) => [t, label(t)])],
    }),
    field(t("audit.from"), { name: "since", type: "date" }),
    field(t("audit.to"), { name: "until", type: "date" }),
    field(t("audit.guest"), {
      name: "guest",
      placeholder: t("audit.guestPlaceholder"),
      autocomplete: "off",
      autocapitalize: "none",
      spellcheck: "false",
      list: "audit-guests",
    }),
    guestsFound,
    field(t("audit.meetup"), {
      tag: "select",
      name: "meetup_id",
      options: [["", t("audit.anyMeetup")], ...meetups.map((m) => [m.id, m.name])],
    }),
    field(t("audit.staff"), {
      tag: "select",
      name: "actor_id",
      options: [["", t("audit.anyone")], ...members.map((m) => [String(m.user_id), m.username])],
    }),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "primary" }, t("audit.show")),
      h("button", { type: "reset", class: "secondary" }, t("audit.clear")),
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          onclick: (event) =>
            busy(event.currentTarget, errors, async () =>
              downloadCsv(orgPath("/events/export"), await filters()),
            ),
        },
        t("common.downloadCsv"),
      ),
    ),
  );

  form.elements.guest.addEventListener(
    "input",
    debounce(async () => {
      const q = form.elements.guest.value.trim();
      const { guests } = q
        ? await api.get("/guests/" + query({ q, limit: 8 })).catch(() => ({ guests: [] }))
        : { guests: [] };
      clear(
        guestsFound,
        guests.map((g) => h("option", { value: "@" + g.username }, shortName(g))),
      );
    }, 150),
  );

  // An id, an @username, or words of a name that find one guest.
  async function guestId(text) {
    const value = text.trim();
    if (!value) return "";
    if (/^\d+$/.test(value)) return value;
    const username = value.replace(/^@/, "");
    const exact = await api.get(`/guests/by-username/${encodeURIComponent(username)}`).catch((error) => {
      if (error.status !== 404) throw error;
    });
    if (exact) return String(exact.platform_user_id);
    const { total, guests } = await api.get("/guests/" + query({ q: value, limit: 2 }));
    if (total === 1) return String(guests[0].platform_user_id);
    throw new ApiProblem({
      detail: t(total ? "audit.guestAmbiguous" : "audit.guestUnknown", { text: value, count: total }),
    });
  }

  async function filters() {
    const f = form.elements;
    return {
      type: f.type.value,
      since: f.since.value ? new Date(`${f.since.value}T00:00:00`).toISOString() : "",
      until: f.until.value ? new Date(`${f.until.value}T23:59:59.999`).toISOString() : "",
      guest_id: await guestId(f.guest.value),
      meetup_id: f.meetup_id.value,
      actor_id: f.actor_id.value,
    };
  }

  async function load() {
    const id = ++state.fetchId;
    clear(errors);
    try {
      const params = { ...(await filters()), limit: LIMIT, offset: state.offset };
      const page = await api.get(orgPath("/events/") + query(params));
      if (id !== state.fetchId || !ctx.alive) return; // a newer request has been made
      render(page);
    } catch (error) {
      if (id === state.fetchId) showProblem(errors, error);
    }
  }

  function render(page) {
    clear(
      table,
      page.events.length
        ? h(
            "ol",
            { class: "rows" },
            page.events.map((e) => eventRow(e, meetupNames)),
          )
        : h("p", { class: "muted" }, t("audit.empty")),
    );
    const last = Math.min(page.offset + page.events.length, page.total);
    clear(
      pager,
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          disabled: page.offset === 0,
          onclick: () => {
            state.offset = Math.max(0, page.offset - LIMIT);
            load();
          },
        },
        t("audit.newer"),
      ),
      h(
        "span",
        { class: "muted" },
        page.total ? t("audit.range", { first: page.offset + 1, last, count: page.total }) : t("audit.none"),
      ),
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          disabled: last >= page.total,
          onclick: () => {
            state.offset = page.offset + LIMIT;
            load();
          },
        },
        t("audit.older"),
      ),
    );
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.offset = 0;
    load();
  });
  form.addEventListener("reset", () =>
    setTimeout(() => {
      state.offset = 0;
      load();
    }),
  );
  view.append(
    h("section", { class: "panel" }, h("h1", {}, t("audit.title", { org: session.org.name })), form, errors),
    h("section", { class: "panel" }, table, pager),
  );
  await load();
}

// An event type's name in the chosen language; a type this version does not know, from its code.
function label(type) {
  return has(`event.${type}`)
    ? t(`event.${type}`)
    : type.charAt(0) + type.slice(1).toLowerCase().replaceAll("_", " ");
}

// A detail of an event in the chosen language: its name, and a value that is a yes/no, a moment or a role;
// a detail this version does not know is shown as it comes.
const MOMENT = /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/;

function detail([name, value]) {
  const shown = detailValue(value);
  const said = has(`detail.${name}`) ? t(`detail.${name}`) : name;
  return `${said}: ${typeof shown === "number" ? formatNumber(shown) : shown}`;
}

function detailValue(value) {
  if (typeof value === "boolean") return t(value ? "common.yes" : "common.no");
  if (typeof value === "string" && MOMENT.test(value)) return formatStamp(value);
  if (typeof value === "string" && has(`role.${value.toLowerCase()}`))
    return t(`role.${value.toLowerCase()}`);
  if (typeof value === "object" && value !== null) return worded(value);
  return value;
}

// A detail that holds more than one value, in words: a list, or what changed ({time_zone: {old, new}} is
// "Time zone: UTC → Europe/Madrid"), never JSON.
function worded(value) {
  if (Array.isArray(value))
    return value.map((item) => (typeof item === "object" && item !== null ? worded(item) : item)).join(", ");
  if ("old" in value && "new" in value) return `${value.old ?? "—"} → ${value.new ?? "—"}`;
  return Object.entries(value)
    .map(
      ([key, inner]) =>
        `${has(`field.${key}`) ? t(`field.${key}`) : key}: ${
          typeof inner === "object" && inner !== null ? worded(inner) : inner
        }`,
    )
    .join("; ");
}

function eventRow(event, meetupNames) {
  const details = Object.entries(event.details || {}).map(detail);
  return h(
    "li",
    { class: "row event", dataset: { type: event.event_type } },
    h(
      "div",
      { class: "who" },
      h("span", { class: "badge" }, label(event.event_type)),
      h("span", { class: "muted" }, formatStamp(event.timestamp)),
    ),
    h(
      "div",
      { class: "state" },
      event.actor
        ? h("span", {}, ...tn("audit.by", { username: h("strong", {}, actorName(event.actor)) }))
        : h("span", { class: "muted" }, t("audit.bySystem")),
      event.guest
        ? h(
            "span",
            {},
            " · ",
            ...tn("audit.guestIs", { name: h("strong", {}, shortName(event.guest)) }),
            event.guest.username ? ` @${event.guest.username}` : "",
          )
        : null,
      event.meetup_id
        ? h("span", {}, " · ", meetupNames.get(event.meetup_id) || t("audit.deletedMeetup"))
        : null,
    ),
    event.reason ? h("div", { class: "reason" }, t("common.reason"), " ", event.reason) : null,
    details.length ? h("div", { class: "muted details" }, details.join(" · ")) : null,
  );
}
