// Members of the current organization (org admins): add by user search, change the role, remove.
import { api, query } from "./api.js";
import { ask, clear, h, liveSearch, toast } from "./dom.js";
import { orgPath, session } from "./session.js";

const ROLES = [["STAFF", "Staff"], ["ADMIN", "Admin"]];

export async function list(view, params, ctx) {
  const slot = h("div");
  view.append(h("section", { class: "panel" }, h("h1", {}, `Members of ${session.org.name}`), slot),
    addForm(() => renderList(slot, ctx)));
  await renderList(slot, ctx);
}

function roleSelect(value, onchange, label) {
  return h("select", { "aria-label": label, onchange },
    ROLES.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
}

async function renderList(slot, ctx) {
  const { members } = await api.get(orgPath("/members"));
  if (!ctx.alive) return;
  if (!members.length) {
    clear(slot, h("p", { class: "muted" }, "No members yet."));
    return;
  }
  clear(slot, h("ul", { class: "rows" }, members.map((m) => h("li", { class: "row", dataset: { user: String(m.user_id) } },
    h("div", { class: "who" }, h("span", { class: "name" }, m.username), m.user_id === session.user.id ? h("span", { class: "tag" }, "you") : null),
    h("div", { class: "act" },
      roleSelect(m.role, async (event) => {
        const select = event.target;
        try {
          await api.patch(orgPath(`/members/${m.user_id}`), { role: select.value });
          toast(`${m.username} is now ${select.value === "ADMIN" ? "an admin" : "staff"}.`);
          if (m.user_id === session.user.id) await ctx.refresh();
        } catch (error) {
          toast(error.detail, "error");
          select.value = m.role;
        }
      }, `Role of ${m.username}`),
      h("button", { type: "button", class: "secondary", onclick: async () => {
        const done = await ask({ title: `Remove ${m.username} from ${session.org.name}?`,
          message: "They keep their account and their history, but can no longer work this organization's doors.",
          confirm: "Remove", danger: true, action: () => api.del(orgPath(`/members/${m.user_id}`)) });
        if (done) {
          toast(`${m.username} was removed.`);
          renderList(slot, ctx);
        }
      } }, "Remove"))))));
}

function addForm(changed) {
  const results = h("ul", { class: "rows picker" });
  const role = roleSelect("STAFF", null, "Role for the new member");
  const input = h("input", { type: "search", placeholder: "Search users by username", autocomplete: "off",
    autocapitalize: "none", spellcheck: "false", "aria-label": "Find a user to add" });
  liveSearch(input, results, async (q) => {
    const { users } = await api.get("/users/" + query({ q }));
    return users.length ? users.map((u) => h("li", { class: "row" },
      h("div", { class: "who" }, h("span", { class: "name" }, u.username)),
      h("div", { class: "act" }, h("button", { type: "button", class: "primary", onclick: () => add(u) }, "Add")))) :
      h("li", { class: "muted" }, "No approved user matches. New staff register first and are approved by a site admin.");
  });
  async function add(user) {
    try {
      await api.post(orgPath(`/members/${user.id}`), { role: role.value });
      toast(`${user.username} was added.`);
      input.value = "";
      results.replaceChildren();
      changed();
    } catch (error) {
      toast(error.detail, "error");
    }
  }
  return h("section", { class: "panel" }, h("h2", {}, "Add a member"),
    h("div", { class: "inline" }, input, role), results);
}
