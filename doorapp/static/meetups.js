// The current organization's meetups: open a door screen, create one from a platform URL,
// finalize and unfinalize (admins).
import { api } from "./api.js";
import { ask, busy, clear, field, formatDate, formValues, h, toast } from "./dom.js";
import { isOrgAdmin, orgPath, platformInfo, session } from "./session.js";

export async function list(view, params, ctx) {
  const listSlot = h("div", { class: "cards" });
  const create = await createForm(ctx);
  view.append(
    h("section", { class: "panel" }, h("h1", {}, `Meetups of ${session.org.name}`), listSlot),
    create);
  await renderList(listSlot, ctx);
}

async function renderList(slot, ctx) {
  const { meetups } = await api.get(orgPath("/meetups/"));
  if (!ctx.alive) return;
  if (!meetups.length) {
    clear(slot, h("p", { class: "muted" }, "No meetups yet. Create one from its page on the platform below."));
    return;
  }
  clear(slot, meetups.map((m) => card(m, slot, ctx)));
}

function card(meetup, slot, ctx) {
  const c = meetup.counts;
  const actions = [h("a", { class: "button primary", href: `#/meetups/${meetup.id}` }, meetup.is_finalized ? "Open" : "Open door"),
    h("a", { class: "button secondary", href: `#/meetups/${meetup.id}/summary` }, "Summary")];
  const neverSynced = !meetup.last_synced_at;
  if (neverSynced && !meetup.is_finalized) {
    actions.unshift(h("button", { type: "button", class: "secondary", onclick: (event) => busy(event.currentTarget, null, async () => {
      const result = await api.post(orgPath(`/meetups/${meetup.id}/sync`), {});
      toast(`${meetup.name}: ${plural(result.total, "guest")} on the list.`);
      renderList(slot, ctx);
    }) }, "Sync now"));
  }
  if (isOrgAdmin()) {
    const finalize = !meetup.is_finalized;
    actions.push(h("button", { type: "button", class: "secondary", onclick: async () => {
      const done = await ask({
        title: `${finalize ? "Finalize" : "Unfinalize"} ${meetup.name}?`,
        message: finalize
          ? "Check-ins, walk-ins and syncs will be closed at every door until an admin unfinalizes it."
          : "Check-ins, walk-ins and syncs will be possible again.",
        confirm: finalize ? "Finalize" : "Unfinalize",
        danger: finalize,
        action: () => api.patch(orgPath(`/meetups/${meetup.id}/${finalize ? "finalize" : "unfinalize"}`), {}),
      });
      if (done && finalize) ctx.navigate(`#/meetups/${meetup.id}/summary`);
      else if (done) renderList(slot, ctx);
    } }, finalize ? "Finalize…" : "Unfinalize…"));
  }
  return h("article", { class: "card meetup", dataset: { meetup: meetup.id } },
    h("div", { class: "card-main" },
      h("h2", {}, h("a", { href: `#/meetups/${meetup.id}` }, meetup.name)),
      h("p", { class: "muted" }, formatDate(meetup.date), meetup.is_finalized ? " · " : "",
        meetup.is_finalized ? h("span", { class: "badge" }, "finalized") : null),
      neverSynced
        ? h("p", { class: "stats never-synced" }, "Never synced: its RSVP list is not loaded yet.")
        : h("p", { class: "stats" }, `${c.arrived} arrived · ${plural(c.rsvps, "RSVP")} · ${plural(c.walkins, "walk-in")}`)),
    h("div", { class: "actions" }, actions));
}

async function createForm(ctx) {
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary" }, "Create meetup");
  const urlField = field("Event URL on the platform", { name: "platform_url", type: "url", required: true,
    placeholder: "https://…", autocomplete: "off", spellcheck: "false" });
  const form = h("form", { class: "stack", novalidate: true },
    urlField,
    field("Name (optional)", { name: "name", maxlength: 255, autocomplete: "off" }, "Leave empty to use the platform's title."),
    errors, h("div", { class: "actions" }, submit));
  const examples = h("div");
  try {
    const platform = await platformInfo();
    if (platform.example_urls && platform.example_urls.length) {
      examples.append(h("p", { class: "hint" }, "The demo community runs. Pick one of its events:"),
        h("ul", { class: "examples" }, platform.example_urls.map((url) => h("li", {},
          h("button", { type: "button", class: "link", onclick: () => { form.elements.platform_url.value = url; form.elements.platform_url.focus(); } }, shortUrl(url))))));
    }
  } catch {
    // GET /platform is only a convenience here
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { platform_url, name } = formValues(form);
    const body = { platform_url: platform_url.trim() };
    if (name.trim()) body.name = name.trim();
    busy(submit, errors, async () => {
      const meetup = await api.post(orgPath("/meetups/"), body);
      if (meetup.sync_error) {
        toast(`${meetup.name} is created, but its RSVP list could not be loaded: ${meetup.sync_error.detail} Sync it from the door screen.`, "error");
      }
      ctx.navigate(`#/meetups/${meetup.id}`);
    });
  });
  return h("section", { class: "panel" }, h("h2", {}, "New meetup"), examples, form);
}

function shortUrl(url) {
  try {
    return new URL(url).pathname.replace(/^\//, "");
  } catch {
    return url;
  }
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
