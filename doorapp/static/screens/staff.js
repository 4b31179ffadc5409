// Staff accounts (site admins): approve and revoke, global role, disable and enable, recovery codes.
import { api } from "../core/api.js";
import { ask, clear, copyText, formatDate, formatStamp, h, toast } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { session } from "../core/session.js";
import { problemText, t, tn } from "../core/i18n.js";

export async function list(view, params, ctx) {
  const pending = h("div");
  const all = h("div");
  const title = h("h1", {}, t("staff.waiting"));
  view.append(
    h("section", { class: "panel" }, title, pending),
    h("section", { class: "panel" }, h("h2", {}, t("staff.all")), all),
  );
  const render = async () => {
    const [waiting, everyone] = await Promise.all([api.get("/staff/pending"), api.get("/staff/")]);
    if (!ctx.alive) return;
    title.textContent = waiting.total
      ? t("staff.waitingCount", { count: waiting.total })
      : t("staff.waiting");
    ctx.renderTop(); // the count on the Staff tab
    clear(
      pending,
      waiting.users.length
        ? h(
            "ul",
            { class: "rows" },
            waiting.users.map((u) => row(u, render, true)),
          )
        : h("p", { class: "muted" }, t("staff.nobodyWaiting")),
    );
    clear(
      all,
      h(
        "ul",
        { class: "rows" },
        everyone.users.map((u) => row(u, render, false)),
      ),
    );
  };
  await render();
}

function status(user) {
  if (user.is_disabled) return h("span", { class: "badge danger" }, t("staff.disabled"));
  if (!user.is_approved) return h("span", { class: "badge warn" }, t("staff.pending"));
  return h("span", { class: "badge ok" }, t("staff.active"));
}

function row(user, changed, pendingList) {
  const self = user.id === session.user.id;
  const patch = async (path, body, message) => {
    try {
      await api.patch(`/staff/${user.id}/${path}`, body);
      toast(message);
      changed();
    } catch (error) {
      toast(problemText(error), "error");
      changed();
    }
  };
  const actions = [];
  if (pendingList) {
    actions.push(...approval(user, patch)); // the full list below shows the "pending" badge
  } else {
    if (user.is_approved && !self) {
      actions.push(
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            "aria-label": t("staff.revokeNamed", { username: user.username }),
            onclick: async () => {
              if (
                await ask({
                  title: t("staff.revokeTitle", { username: user.username }),
                  message: t("staff.revokeText"),
                  confirm: t("staff.revoke"),
                  danger: true,
                })
              ) {
                patch("approve", { is_approved: false }, t("staff.revoked", { username: user.username }));
              }
            },
          },
          t("staff.revoke"),
        ),
      );
    }
    actions.push(
      h(
        "select",
        {
          "aria-label": t("staff.globalRole", { username: user.username }),
          disabled: self,
          onchange: (e) =>
            patch("role", { role: e.target.value }, t("staff.roleChanged", { username: user.username })),
        },
        [
          ["USER", "staff.user"],
          ["SITE_ADMIN", "staff.siteAdmin"],
        ].map(([v, key]) => h("option", { value: v, selected: v === user.role }, t(key))),
      ),
    );
    if (user.is_disabled) {
      actions.push(
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            "aria-label": t("staff.enableNamed", { username: user.username }),
            onclick: () => patch("enable", {}, t("staff.enabled", { username: user.username })),
          },
          t("staff.enable"),
        ),
      );
    } else if (!self) {
      actions.push(
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            "aria-label": t("staff.disableNamed", { username: user.username }),
            onclick: async () => {
              const reason = await ask({
                title: t("staff.disableTitle", { username: user.username }),
                message: t("staff.disableText"),
                input: {
                  label: t("staff.reasonOptional"),
                  required: false,
                  limits: (await limits("disable_staff")).reason,
                },
                confirm: t("staff.disable"),
                danger: true,
              });
              if (reason !== null)
                patch(
                  "disable",
                  reason ? { reason } : {},
                  t("staff.disabledToast", { username: user.username }),
                );
            },
          },
          t("staff.disable"),
        ),
      );
    }
    actions.push(
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          "aria-label": t("staff.recoveryCodeNamed", { username: user.username }),
          onclick: () => recoveryCode(user),
        },
        t("auth.recoveryCode"),
      ),
    );
  }
  return h(
    "li",
    { class: "row", dataset: { user: String(user.id) } },
    h(
      "div",
      { class: "who" },
      h("span", { class: "name" }, user.username),
      status(user),
      user.role === "SITE_ADMIN" ? h("span", { class: "tag" }, t("staff.siteAdminTag")) : null,
      self ? h("span", { class: "tag" }, t("common.you")) : null,
    ),
    h(
      "div",
      { class: "state muted" },
      t("staff.registered", { date: formatDate(user.created_at) }),
      user.is_disabled && user.disabled_reason
        ? [" · ", t("staff.disabledReason", { reason: user.disabled_reason })]
        : "",
    ),
    h("div", { class: "act" }, actions),
  );
}

// Approve, and in the same step add to an organization (the current one preselected) with a role.
function approval(user, patch) {
  const org = h(
    "select",
    {
      "aria-label": t("staff.orgFor", { username: user.username }),
      onchange: () => {
        role.disabled = !org.value;
      },
    },
    h("option", { value: "" }, t("staff.noOrg")),
    session.orgs.map((o) =>
      h("option", { value: o.id, selected: o.id === session.org?.id }, t("staff.addTo", { org: o.name })),
    ),
  );
  const role = h(
    "select",
    { "aria-label": t("staff.roleThere", { username: user.username }), disabled: !org.value },
    [
      ["STAFF", "staff.asStaff"],
      ["ADMIN", "staff.asAdmin"],
    ].map(([v, key]) => h("option", { value: v }, t(key))),
  );
  const approve = () => {
    if (!org.value)
      return patch("approve", { is_approved: true }, t("staff.approved", { username: user.username }));
    const name = session.orgs.find((o) => o.id === org.value).name;
    return patch(
      "approve",
      { is_approved: true, org_id: org.value, role: role.value },
      t("staff.approvedInto", {
        username: user.username,
        org: name,
        role: role.selectedOptions[0].textContent,
      }),
    );
  };
  return [
    org,
    role,
    h(
      "button",
      {
        type: "button",
        class: "primary",
        "aria-label": t("staff.approveNamed", { username: user.username }),
        onclick: approve,
      },
      t("staff.approve"),
    ),
  ];
}

async function recoveryCode(user) {
  const go = await ask({
    title: t("staff.newCodeTitle", { username: user.username }),
    message: t("staff.newCodeText"),
    confirm: t("staff.generate"),
  });
  if (!go) return;
  let answer;
  try {
    answer = await api.post(`/staff/${user.id}/recovery-code`, {});
  } catch (error) {
    return toast(problemText(error), "error");
  }
  const codeInput = h("input", {
    class: "code",
    readonly: true,
    value: answer.code,
    "aria-label": t("auth.recoveryCode"),
  });
  const copied = h("span", { class: "muted", "aria-live": "polite" });
  await ask({
    title: t("staff.codeTitle", { username: answer.username }),
    message: h(
      "div",
      {},
      h(
        "p",
        {},
        ...tn("staff.codeText", {
          username: h("strong", {}, answer.username),
          until: formatStamp(answer.expires_at),
        }),
      ),
      h(
        "div",
        { class: "inline" },
        codeInput,
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            onclick: async () => {
              copied.textContent = (await copyText(answer.code, codeInput))
                ? t("common.copied")
                : t("staff.selectToCopy");
            },
          },
          t("common.copy"),
        ),
      ),
      copied,
      h("p", { class: "hint" }, t("staff.codeHint", { link: t("auth.forgot") })),
    ),
    confirm: t("staff.done"),
    cancel: null,
  });
}
