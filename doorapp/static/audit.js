// The organization's audit log (org admins): filters by type, dates, guest, meetup and staff; paged; the
// same filters download as CSV. The event types offered come from the API's OpenAPI description, and an
// event of a type this screen does not know is shown like any other.
import { api, download, query } from "./api.js";
import { busy, clear, field, formatStamp, h, showProblem } from "./dom.js";
import { orgPath, session } from "./session.js";

const LIMIT = 50;

// The `type` filter's choices, as GET /organizations/{org_id}/events/ declares them.
async function eventTypes() {
  const spec = await api.get("/openapi.json", { auth: false });
  const type = spec.paths["/organizations/{org_id}/events/"].get.parameters.find((p) => p.name === "type");
  return type.schema.items.enum;
}

export async function list(view, params, ctx) {
  const [{ meetups }, { members }, TYPES] = await Promise.all([api.get(orgPath("/meetups/")),
    api.get(orgPath("/members")), eventTypes()]);
  const meetupNames = new Map(meetups.map((m) => [m.id, m.name]));
  const state = { offset: 0, fetchId: 0 };
  const errors = h("div");
  const table = h("div", { class: "events" });
  const pager = h("div", { class: "pager" });
  const form = h("form", { class: "filters", novalidate: true },
    field("Type", { tag: "select", name: "type", options: [["", "Any type"], ...TYPES.map((t) => [t, label(t)])] }),
    field("From", { name: "since", type: "date" }),
    field("To", { name: "until", type: "date" }),
    field("Guest", { name: "guest", placeholder: "platform username or id", autocomplete: "off", autocapitalize: "none", spellcheck: "false" }),
    field("Meetup", { tag: "select", name: "meetup_id", options: [["", "Any meetup"], ...meetups.map((m) => [m.id, m.name])] }),
    field("Staff", { tag: "select", name: "actor_id", options: [["", "Anyone"], ...members.map((m) => [String(m.user_id), m.username])] }),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Show"),
      h("button", { type: "reset", class: "secondary" }, "Clear"),
      h("button", { type: "button", class: "secondary", onclick: (event) => busy(event.currentTarget, errors,
        async () => download(orgPath("/events/export") + query(await filters()))) }, "Download CSV")));

  async function guestId(text) {
    const value = text.trim();
    if (!value) return "";
    if (/^\d+$/.test(value)) return value;
    const guest = await api.get(`/guests/by-username/${encodeURIComponent(value.replace(/^@/, ""))}`);
    return String(guest.platform_user_id);
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
    clear(table, page.events.length
      ? h("ol", { class: "rows" }, page.events.map((e) => eventRow(e, meetupNames)))
      : h("p", { class: "muted" }, "No events match."));
    const last = Math.min(page.offset + page.events.length, page.total);
    clear(pager,
      h("button", { type: "button", class: "secondary", disabled: page.offset === 0,
        onclick: () => { state.offset = Math.max(0, page.offset - LIMIT); load(); } }, "← Newer"),
      h("span", { class: "muted" }, page.total ? `${page.offset + 1}–${last} of ${page.total}` : "0 events"),
      h("button", { type: "button", class: "secondary", disabled: last >= page.total,
        onclick: () => { state.offset = page.offset + LIMIT; load(); } }, "Older →"));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.offset = 0;
    load();
  });
  form.addEventListener("reset", () => setTimeout(() => { state.offset = 0; load(); }));
  view.append(h("section", { class: "panel" }, h("h1", {}, `Audit log of ${session.org.name}`), form, errors),
    h("section", { class: "panel" }, table, pager));
  await load();
}

function label(type) {
  return type.charAt(0) + type.slice(1).toLowerCase().replaceAll("_", " ");
}

function eventRow(event, meetupNames) {
  const details = Object.entries(event.details || {}).map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`);
  return h("li", { class: "row event", dataset: { type: event.event_type } },
    h("div", { class: "who" }, h("span", { class: "badge" }, label(event.event_type)),
      h("span", { class: "muted" }, formatStamp(event.timestamp))),
    h("div", { class: "state" },
      event.actor ? h("span", {}, "by ", h("strong", {}, event.actor.username)) : h("span", { class: "muted" }, "by the system"),
      event.guest ? h("span", {}, " · guest ", h("strong", {}, event.guest.displayname || event.guest.username), ` @${event.guest.username}`) : null,
      event.meetup_id ? h("span", {}, " · ", meetupNames.get(event.meetup_id) || "a deleted meetup") : null),
    event.reason ? h("div", { class: "reason" }, "Reason: ", event.reason) : null,
    details.length ? h("div", { class: "muted details" }, details.join(" · ")) : null);
}
