// Guests banned in the current organization; admins ban (with a reason) and unban.
import { api, query } from "./api.js";
import { ask, clear, formatDate, h, liveSearch, toast } from "./dom.js";
import { isOrgAdmin, orgPath, session } from "./session.js";

export async function list(view, params, ctx) {
  const slot = h("div");
  view.append(h("section", { class: "panel" }, h("h1", {}, `Banned in ${session.org.name}`), slot));
  if (isOrgAdmin()) view.append(banForm(() => renderList(slot, ctx)));
  await renderList(slot, ctx);
}

async function renderList(slot, ctx) {
  const { guests } = await api.get(orgPath("/guests/banned"));
  if (!ctx.alive) return;
  if (!guests.length) {
    clear(slot, h("p", { class: "muted" }, "Nobody is banned here."));
    return;
  }
  clear(slot, h("ul", { class: "rows" }, guests.map((g) => h("li", { class: "row banned", dataset: { guest: String(g.platform_user_id) } },
    h("div", { class: "who" }, h("span", { class: "name" }, g.displayname || g.username), h("span", { class: "username" }, "@" + g.username)),
    h("div", { class: "ban" }, h("strong", {}, "Reason: "), g.reason),
    h("div", { class: "state muted" }, `Banned ${formatDate(g.banned_at)}`, g.banned_by ? ` by ${g.banned_by.username}` : ""),
    isOrgAdmin() ? h("div", { class: "act" }, h("button", { type: "button", class: "secondary", onclick: async () => {
      const done = await ask({ title: `Unban ${g.displayname || g.username}?`, message: `They can be checked in normally again in ${session.org.name}.`,
        confirm: "Unban", action: () => api.patch(orgPath(`/guests/${g.platform_user_id}/unban`), {}) });
      if (done) {
        toast(`${g.username} is no longer banned.`);
        renderList(slot, ctx);
      }
    } }, "Unban")) : null))));
}

// Find a guest (known to Door, or looked up on the platform by username), then ban with a reason.
function banForm(changed) {
  const results = h("ul", { class: "rows picker" });
  const input = h("input", { type: "search", placeholder: "Name or platform username", autocomplete: "off",
    autocapitalize: "none", spellcheck: "false", "aria-label": "Find a guest to ban" });
  liveSearch(input, results, async (q) => {
    const { guests } = await api.get("/guests/" + query({ q, limit: 10 }));
    return [...guests.map((g) => pick(g)),
      h("li", { class: "row" }, h("div", { class: "who muted" }, guests.length ? "Not the one?" : "Not known to Door yet."),
        h("div", { class: "act" }, h("button", { type: "button", class: "secondary", onclick: () => fromPlatform(q) }, `Look up @${q} on the platform`)))];
  });
  async function fromPlatform(username) {
    try {
      await ban(await api.post("/guests/", { username }));
    } catch (error) {
      if (error.code === "guest_exists") return ban(error.guest);
      toast(error.detail, "error");
    }
  }
  function pick(guest) {
    return h("li", { class: "row" },
      h("div", { class: "who" }, h("span", { class: "name" }, guest.displayname || guest.username), h("span", { class: "username" }, "@" + guest.username)),
      h("div", { class: "act" }, h("button", { type: "button", class: "danger", onclick: () => ban(guest) }, "Ban…")));
  }
  async function ban(guest) {
    const done = await ask({
      title: `Ban ${guest.displayname || guest.username} in ${session.org.name}?`,
      message: "Door staff will see the reason at the door and need to override the ban to let them in.",
      input: { label: "Reason", required: true, maxlength: 500 },
      confirm: "Ban", danger: true,
      action: (reason) => api.patch(orgPath(`/guests/${guest.platform_user_id}/ban`), { reason }),
    });
    if (done) {
      toast(`${guest.username} is banned.`);
      input.value = "";
      results.replaceChildren();
      changed();
    }
  }
  return h("section", { class: "panel" }, h("h2", {}, "Ban a guest"), input, results);
}
