// Members of the current organization (org admins): add by user search, change the role, remove.
import { api, query } from "../core/api.js";
import { askButton, h, liveSearch, toast } from "../core/dom.js";
import { orgPath, session } from "../core/session.js";
import { problemText, t } from "../core/i18n.js";
import { listPanel } from "../shared/list-screen.js";

const ROLES = [
  ["STAFF", "role.staff"],
  ["ADMIN", "role.admin"],
]; // [value, catalogue key]

export async function list(view, params, ctx) {
  const members = listPanel(ctx, {
    title: t("members.title", { org: session.org.name }),
    empty: t("members.empty"),
    load: async () => (await api.get(orgPath("/members"))).members,
    render: (items, refresh) => rows(items, refresh, ctx),
  });
  view.append(members.panel, addForm(members.refresh));
  await members.refresh();
}

function roleSelect(value, onchange, label) {
  return h(
    "select",
    { "aria-label": label, onchange },
    ROLES.map(([v, text]) => h("option", { value: v, selected: v === value }, t(text))),
  );
}

function rows(members, refresh, ctx) {
  return h(
    "ul",
    { class: "rows" },
    members.map((m) =>
      h(
        "li",
        { class: "row", dataset: { user: String(m.user_id) } },
        h(
          "div",
          { class: "who" },
          h("span", { class: "name" }, m.username),
          m.user_id === session.user.id ? h("span", { class: "tag" }, t("common.you")) : null,
        ),
        h(
          "div",
          { class: "act" },
          roleSelect(
            m.role,
            async (event) => {
              const select = event.target;
              try {
                await api.patch(orgPath(`/members/${m.user_id}`), { role: select.value });
                toast(
                  t(select.value === "ADMIN" ? "members.nowAdmin" : "members.nowStaff", {
                    username: m.username,
                  }),
                );
                if (m.user_id === session.user.id) await ctx.refresh();
              } catch (error) {
                toast(problemText(error), "error");
                select.value = m.role;
              }
            },
            t("members.roleOf", { username: m.username }),
          ),
          askButton(
            t("members.remove"),
            () => ({
              title: t("members.removeTitle", { username: m.username, org: session.org.name }),
              message: t("members.removeText"),
              confirm: t("members.remove"),
              danger: true,
              action: () => api.del(orgPath(`/members/${m.user_id}`)),
            }),
            t("members.removed", { username: m.username }),
            refresh,
            { "aria-label": t("members.removeNamed", { username: m.username }) },
          ),
        ),
      ),
    ),
  );
}

function addForm(changed) {
  const results = h("ul", { class: "rows picker" });
  const role = roleSelect("STAFF", null, t("members.newRole"));
  const input = h("input", {
    type: "search",
    placeholder: t("members.searchPlaceholder"),
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: "false",
    "aria-label": t("members.searchLabel"),
  });
  liveSearch(input, results, async (q) => {
    const { users } = await api.get("/users/" + query({ q }));
    return users.length
      ? users.map((u) =>
          h(
            "li",
            { class: "row" },
            h("div", { class: "who" }, h("span", { class: "name" }, u.username)),
            h(
              "div",
              { class: "act" },
              h(
                "button",
                {
                  type: "button",
                  class: "primary",
                  "aria-label": t("members.addNamed", { username: u.username }),
                  onclick: () => add(u),
                },
                t("members.add"),
              ),
            ),
          ),
        )
      : h("li", { class: "muted" }, t("members.noMatch"));
  });
  async function add(user) {
    try {
      await api.post(orgPath(`/members/${user.id}`), { role: role.value });
      toast(t("members.added", { username: user.username }));
      input.value = "";
      results.replaceChildren();
      changed();
    } catch (error) {
      toast(problemText(error), "error");
    }
  }
  return h(
    "section",
    { class: "panel" },
    h("h2", {}, t("members.addTitle")),
    h("div", { class: "inline" }, input, role),
    results,
  );
}
