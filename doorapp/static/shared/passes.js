// Door passes as the Passes and Phones screens list them: a table an organizer revokes from (a lost phone is
// Phones, then Revoke), and revoking one.
import { api } from "../core/api.js";
import { ask, formatStamp, h, toast } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { orgPath } from "../core/session.js";

const COLUMNS = [
  "passes.label",
  "passes.meetup",
  "passes.madeBy",
  "passes.paired",
  "passes.lastSeen",
  "passes.checkIns",
];

export const ended = (pass, now = Date.now()) => Boolean(pass.revoked_at) || Date.parse(pass.ends_at) <= now;

// The passes as a table (on a phone, css/after.css shows each as labelled lines: `data-label`); `names` maps
// a meetup's id to its name; `refresh()` runs after a revoke.
export function passTable(passes, names, refresh) {
  const now = Date.now();
  const cell = (column, text) => h("td", column === 0 ? {} : { "data-label": t(COLUMNS[column]) }, text);
  return h(
    "table",
    { class: "list" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        [...COLUMNS, "passes.status"].map((key) => h("th", {}, t(key))),
      ),
    ),
    h(
      "tbody",
      {},
      passes.map((pass) =>
        h(
          "tr",
          { dataset: { pass: String(pass.id) } },
          cell(0, pass.label),
          cell(1, pass.meetup_id ? names.get(pass.meetup_id) || "" : t("passes.everyMeetup")),
          cell(2, pass.created_by.username),
          cell(3, pass.paired_at ? formatStamp(pass.paired_at) : t("passes.notPaired")),
          cell(4, pass.last_seen_at ? formatStamp(pass.last_seen_at) : "—"),
          cell(5, String(pass.check_ins)),
          h(
            "td",
            {},
            ended(pass, now)
              ? h("span", { class: "badge" }, t(pass.revoked_at ? "passes.revoked" : "passes.ended"))
              : h(
                  "button",
                  {
                    type: "button",
                    class: "danger small",
                    "aria-label": t("passes.revokeNamed", { label: pass.label }),
                    onclick: () => revoke(pass, refresh),
                  },
                  t("passes.revoke"),
                ),
          ),
        ),
      ),
    ),
  );
}

async function revoke(pass, refresh) {
  const done = await ask({
    title: t("passes.revokeTitle", { label: pass.label }),
    message: t("passes.revokeText"),
    confirm: t("passes.revoke"),
    danger: true,
    action: () => api.del(orgPath(`/passes/${pass.id}`)),
  });
  if (!done) return;
  toast(t("passes.revokedToast", { label: pass.label }));
  await refresh();
}
