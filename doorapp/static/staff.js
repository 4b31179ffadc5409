// Staff accounts (site admins): approve and revoke, global role, disable and enable, recovery codes.
import { api } from "./api.js";
import { ask, clear, copyText, formatDate, formatStamp, h, toast } from "./dom.js";
import { session } from "./session.js";

export async function list(view, params, ctx) {
  const pending = h("div");
  const all = h("div");
  const title = h("h1", {}, "Waiting for approval");
  view.append(
    h("section", { class: "panel" }, title, pending),
    h("section", { class: "panel" }, h("h2", {}, "All staff accounts"), all));
  const render = async () => {
    const [waiting, everyone] = await Promise.all([api.get("/staff/pending"), api.get("/staff/")]);
    if (!ctx.alive) return;
    title.textContent = waiting.total ? `Waiting for approval (${waiting.total})` : "Waiting for approval";
    ctx.renderTop(); // the count on the Staff tab
    clear(pending, waiting.users.length
      ? h("ul", { class: "rows" }, waiting.users.map((u) => row(u, render, true)))
      : h("p", { class: "muted" }, "Nobody is waiting."));
    clear(all, h("ul", { class: "rows" }, everyone.users.map((u) => row(u, render, false))));
  };
  await render();
}

function status(user) {
  if (user.is_disabled) return h("span", { class: "badge danger" }, "disabled");
  if (!user.is_approved) return h("span", { class: "badge warn" }, "pending");
  return h("span", { class: "badge ok" }, "active");
}

function row(user, changed, pendingList) {
  const self = user.id === session.user.id;
  const patch = async (path, body, message) => {
    try {
      await api.patch(`/staff/${user.id}/${path}`, body);
      toast(message);
      changed();
    } catch (error) {
      toast(error.detail, "error");
      changed();
    }
  };
  const actions = [];
  if (pendingList) {
    actions.push(...approval(user, patch)); // the full list below shows the "pending" badge
  } else {
    if (user.is_approved && !self) {
      actions.push(h("button", { type: "button", class: "secondary", onclick: async () => {
        if (await ask({ title: `Revoke the approval of ${user.username}?`, message: "They cannot sign in or use Door until approved again.", confirm: "Revoke", danger: true })) {
          patch("approve", { is_approved: false }, `${user.username} is no longer approved.`);
        }
      } }, "Revoke"));
    }
    actions.push(h("select", { "aria-label": `Global role of ${user.username}`, disabled: self, onchange: (e) =>
      patch("role", { role: e.target.value }, `${user.username}'s role changes at their next sign-in.`) },
    [["USER", "User"], ["SITE_ADMIN", "Site admin"]].map(([v, t]) => h("option", { value: v, selected: v === user.role }, t))));
    if (user.is_disabled) {
      actions.push(h("button", { type: "button", class: "secondary", onclick: () => patch("enable", {}, `${user.username} is enabled.`) }, "Enable"));
    } else if (!self) {
      actions.push(h("button", { type: "button", class: "secondary", onclick: async () => {
        const reason = await ask({ title: `Disable ${user.username}?`, message: "The account stops working at once; its history is kept.",
          input: { label: "Reason (optional)", required: false }, confirm: "Disable", danger: true });
        if (reason !== null) patch("disable", reason ? { reason } : {}, `${user.username} is disabled.`);
      } }, "Disable"));
    }
    actions.push(h("button", { type: "button", class: "secondary", onclick: () => recoveryCode(user) }, "Recovery code"));
  }
  return h("li", { class: "row", dataset: { user: String(user.id) } },
    h("div", { class: "who" }, h("span", { class: "name" }, user.username), status(user),
      user.role === "SITE_ADMIN" ? h("span", { class: "tag" }, "site admin") : null,
      self ? h("span", { class: "tag" }, "you") : null),
    h("div", { class: "state muted" }, `Registered ${formatDate(user.created_at)}`,
      user.is_disabled && user.disabled_reason ? ` · disabled: ${user.disabled_reason}` : ""),
    h("div", { class: "act" }, actions));
}

// Approve, and in the same step add to an organization (the current one preselected) with a role.
function approval(user, patch) {
  const org = h("select", { "aria-label": `Organization for ${user.username}`, onchange: () => { role.disabled = !org.value; } },
    h("option", { value: "" }, "No organization"),
    session.orgs.map((o) => h("option", { value: o.id, selected: o.id === session.org?.id }, `Add to ${o.name}`)));
  const role = h("select", { "aria-label": `Role of ${user.username} there`, disabled: !org.value },
    [["STAFF", "as staff"], ["ADMIN", "as admin"]].map(([v, t]) => h("option", { value: v }, t)));
  const approve = () => {
    if (!org.value) return patch("approve", { is_approved: true }, `${user.username} is approved.`);
    const name = session.orgs.find((o) => o.id === org.value).name;
    return patch("approve", { is_approved: true, org_id: org.value, role: role.value },
      `${user.username} is approved and added to ${name} ${role.selectedOptions[0].textContent}.`);
  };
  return [org, role, h("button", { type: "button", class: "primary", onclick: approve }, "Approve")];
}

async function recoveryCode(user) {
  const go = await ask({ title: `New recovery code for ${user.username}?`,
    message: "Any earlier code stops working at once. The code is shown only now; pass it on in person.",
    confirm: "Generate" });
  if (!go) return;
  let answer;
  try {
    answer = await api.post(`/staff/${user.id}/recovery-code`, {});
  } catch (error) {
    return toast(error.detail, "error");
  }
  const codeInput = h("input", { class: "code", readonly: true, value: answer.code, "aria-label": "Recovery code" });
  const copied = h("span", { class: "muted", "aria-live": "polite" });
  await ask({
    title: `Recovery code for ${answer.username}`,
    message: h("div", {},
      h("p", {}, "Give this code to ", h("strong", {}, answer.username), ". It is shown only once, and it is valid until ",
        formatStamp(answer.expires_at), "."),
      h("div", { class: "inline" }, codeInput,
        h("button", { type: "button", class: "secondary", onclick: async () => {
          copied.textContent = (await copyText(answer.code, codeInput)) ? "Copied." : "Select the code and copy it.";
        } }, "Copy")),
      copied,
      h("p", { class: "hint" }, "They use it on the sign-in page under “Forgot your password?”.")),
    confirm: "Done", cancel: null,
  });
}
