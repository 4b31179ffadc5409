// Guests banned in the current organization; admins ban (with a reason) and unban.
import { api, query } from "../core/api.js";
import { ask, askButton, formatDate, h, liveSearch, toast } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { findOrAddGuest } from "../shared/guests.js";
import { listPanel } from "../shared/list-screen.js";
import { isOrgAdmin, orgPath, session } from "../core/session.js";
import { problemText, t } from "../core/i18n.js";
import { named, shortName } from "../shared/names.js";

export async function list(view, params, ctx) {
  const bans = listPanel(ctx, {
    title: t("bans.title", { org: session.org.name }),
    render: rows,
    load: async () => (await api.get(orgPath("/guests/banned"))).guests,
    empty: t("bans.empty"),
  });
  view.append(bans.panel);
  if (isOrgAdmin()) view.append(banForm(bans.refresh));
  await bans.refresh();
}

function rows(guests, refresh) {
  return h(
    "ul",
    { class: "rows" },
    guests.map((g) =>
      h(
        "li",
        { class: "row banned", dataset: { guest: String(g.platform_user_id) } },
        h(
          "div",
          { class: "who" },
          h("span", { class: "name" }, shortName(g)),
          h("span", { class: "username" }, "@" + g.username),
        ),
        h("div", { class: "ban" }, h("strong", {}, t("common.reason")), " ", g.reason),
        h(
          "div",
          { class: "state muted" },
          g.banned_by
            ? t("bans.bannedBy", { date: formatDate(g.banned_at), username: g.banned_by.username })
            : t("bans.banned", { date: formatDate(g.banned_at) }),
        ),
        isOrgAdmin()
          ? h(
              "div",
              { class: "act" },
              askButton(
                t("bans.unban"),
                () => ({
                  title: t("bans.unbanTitle", { name: shortName(g) }),
                  message: t("bans.unbanText", { org: session.org.name }),
                  confirm: t("bans.unban"),
                  action: () => api.patch(orgPath(`/guests/${g.platform_user_id}/unban`), {}),
                }),
                t("bans.unbanned", { username: g.username }),
                refresh,
                { "aria-label": t("bans.unbanNamed", { guest: named(g) }) },
              ),
            )
          : null,
      ),
    ),
  );
}

// Find a guest (known to Door, or looked up on the platform by username), then ban with a reason.
function banForm(changed) {
  const results = h("ul", { class: "rows picker" });
  const input = h("input", {
    type: "search",
    placeholder: t("bans.findPlaceholder"),
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: "false",
    "aria-label": t("bans.findLabel"),
  });
  liveSearch(input, results, async (q) => {
    const { guests } = await api.get("/guests/" + query({ q, limit: 10 }));
    return [
      ...guests.map((g) => pick(g)),
      h(
        "li",
        { class: "row" },
        h("div", { class: "who muted" }, guests.length ? t("bans.notTheOne") : t("bans.unknown")),
        h(
          "div",
          { class: "act" },
          h(
            "button",
            { type: "button", class: "secondary", onclick: () => fromPlatform(q) },
            t("bans.lookUp", { username: q }),
          ),
        ),
      ),
    ];
  });
  async function fromPlatform(username) {
    let guest;
    try {
      guest = await findOrAddGuest(username);
    } catch (error) {
      return toast(problemText(error), "error");
    }
    await ban(guest);
  }
  function pick(guest) {
    return h(
      "li",
      { class: "row" },
      h(
        "div",
        { class: "who" },
        h("span", { class: "name" }, shortName(guest)),
        h("span", { class: "username" }, "@" + guest.username),
      ),
      h(
        "div",
        { class: "act" },
        h(
          "button",
          {
            type: "button",
            class: "danger",
            "aria-label": t("bans.banNamed", { guest: named(guest) }),
            onclick: () => ban(guest),
          },
          t("bans.banButton"),
        ),
      ),
    );
  }
  async function ban(guest) {
    const done = await ask({
      title: t("bans.banTitle", { name: shortName(guest), org: session.org.name }),
      message: t("bans.banText"),
      input: { label: t("common.reasonLabel"), required: true, limits: (await limits("ban_guest")).reason },
      confirm: t("bans.ban"),
      danger: true,
      action: (reason) => api.patch(orgPath(`/guests/${guest.platform_user_id}/ban`), { reason }),
    });
    if (done) {
      toast(t("bans.done", { username: guest.username }));
      input.value = "";
      results.replaceChildren();
      changed();
    }
  }
  return h("section", { class: "panel" }, h("h2", {}, t("bans.formTitle")), input, results);
}
