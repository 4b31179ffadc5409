// A guest's history in the current organization (#/guests/{platform_user_id}, admins): meetups attended,
// no-shows, last visit, the repeat no-show mark and the ban history; the organization's tags and note on
// them, which its door rows show; and the person's data: Export (a file of everything the organization
// holds about them) and Erase... (all of it, now).
import { api, download } from "../core/api.js";
import { ask, clear, formatDate, formatDay, formatStamp, h, toast } from "../core/dom.js";
import { formatNumber, problemText, t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { orgPath, session } from "../core/session.js";
import { editGuestTags, tagChip } from "../shared/tags.js";
import { outcomeBadge } from "../shared/outcome.js";
import { handle, shortName } from "../shared/names.js";

export async function screen(view, [guestId], ctx) {
  const [history, kept] = await Promise.all([
    api.get(orgPath(`/guests/${guestId}/history`)),
    api.get(orgPath(`/guests/${guestId}/tags`)),
  ]);
  if (!ctx.alive) return;
  const { guest } = history;
  const tiles = [
    [t("outcome.attended"), formatNumber(history.attended), "ok"],
    [t("summary.noShows"), formatNumber(history.no_shows), history.no_shows ? "danger" : ""],
    [t("outcome.excused"), formatNumber(history.excused)],
    [t("guest.lastVisit"), history.last_visit ? formatDay(history.last_visit) : t("guest.never"), "date"],
  ];
  view.append(
    h(
      "section",
      { class: "panel summary" },
      h("h1", {}, shortName(guest)),
      h("p", { class: "muted" }, handle(guest), " · ", t("guest.id", { id: String(guest.platform_user_id) })),
      history.is_banned
        ? h("div", { class: "alert error" }, t("guest.bannedHere"), " ", history.ban_reason)
        : null,
      history.repeat_no_show
        ? h(
            "div",
            { class: "alert warn" },
            t("guest.repeatNoShow", { count: history.recent_no_shows, recent: history.recent }),
            " ",
            t("guest.repeatNote"),
          )
        : null,
      h(
        "div",
        { class: "tiles" },
        tiles.map(([label, value, kind]) =>
          h(
            "div",
            { class: `tile ${kind || ""}` },
            h("span", { class: "value" }, String(value)),
            h("span", { class: "label" }, label),
          ),
        ),
      ),
      personalData(view, guest, history, ctx),
    ),
    tagsPanel(guest, kept),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, t("nav.meetups")),
      history.meetups.length
        ? h(
            "ol",
            { class: "rows" },
            history.meetups.map((m) =>
              h(
                "li",
                { class: "row" },
                h(
                  "div",
                  { class: "who" },
                  h("a", { class: "name", href: `#/meetups/${m.meetup_id}/summary` }, m.name),
                  outcomeBadge(m.outcome),
                  m.guests_count ? h("span", { class: "tag" }, `+${m.guests_count}`) : null,
                ),
                h("div", { class: "state" }, formatDate(m.date)),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("guest.noMeetups")),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, t("nav.bans")),
      history.bans.length
        ? h(
            "ol",
            { class: "rows" },
            history.bans.map((b) =>
              h(
                "li",
                { class: "row" },
                h(
                  "div",
                  { class: "who" },
                  h(
                    "span",
                    { class: "badge" },
                    b.event_type === "BAN" ? t("guest.banned") : t("guest.unbanned"),
                  ),
                  h("span", { class: "muted" }, formatStamp(b.timestamp)),
                ),
                b.reason ? h("div", { class: "reason" }, t("common.reason"), " ", b.reason) : null,
              ),
            ),
          )
        : h("p", { class: "muted" }, t("guest.neverBanned")),
    ),
  );
}

// What the door shows of them, and the button that changes it.
function tagsPanel(guest, kept) {
  const shown = h("div");
  const draw = ({ tags, note }) =>
    clear(
      shown,
      tags.length || note
        ? [h("p", { class: "who" }, tags.map(tagChip)), note ? h("p", { class: "note" }, note) : null]
        : h("p", { class: "muted" }, t("tags.guestNone")),
    );
  draw(kept);
  return h(
    "section",
    { class: "panel guest-tags" },
    h("h2", {}, t("tags.guestPanel")),
    shown,
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: async () => {
          const saved = await editGuestTags(guest);
          if (saved) {
            draw(saved);
            toast(t("tags.guestSaved", { name: guest.displayname || guest.username }));
          }
        },
      },
      t("tags.guestButton"),
    ),
  );
}

// The person's data in this organization: a file of all of it, or all of it gone (after a confirmation
// that says what goes, what stays, and that backups forget it within 14 days).
function personalData(view, guest, history, ctx) {
  const path = orgPath(`/guests/${guest.platform_user_id}`);
  const name = shortName(guest);
  const exportButton = h(
    "button",
    {
      type: "button",
      class: "secondary",
      "aria-label": t("guest.exportNamed", { name }),
      onclick: () =>
        download(`${path}/export`, "application/json").catch((error) => toast(problemText(error), "error")),
    },
    t("guest.export"),
  );
  const eraseButton = h(
    "button",
    {
      type: "button",
      class: "danger",
      "aria-label": t("guest.eraseNamed", { name }),
      onclick: async () => {
        let erased = null;
        const what = h(
          "div",
          { class: "stack" },
          h("p", {}, t("guest.eraseText", { name, org: session.org.name, count: history.meetups.length })),
          h(
            "ul",
            {},
            [t("guest.eraseEntries"), t("guest.eraseBan"), t("guest.eraseEvents")].map((line) =>
              h("li", {}, line),
            ),
          ),
          h("p", {}, t("guest.eraseKept")),
          h("p", {}, t("guest.eraseBackups")),
        );
        const done = await ask({
          title: t("guest.eraseTitle", { name }),
          message: what,
          confirm: t("guest.erase"),
          danger: true,
          input: {
            label: t("guest.eraseReason"),
            required: true,
            limits: (await limits("erase_guest")).reason,
          },
          action: async (reason) => {
            erased = await api.post(`${path}/erase`, { reason });
          },
        });
        if (!done || !ctx.alive) return;
        clear(
          view,
          h(
            "section",
            { class: "panel erased", role: "status" },
            h("h1", {}, t("guest.erasedTitle")),
            h("p", {}, t("guest.erasedText", { org: session.org.name })),
            h(
              "p",
              {},
              ["entries", "bans", "events"]
                .map((key) => `${t(`detail.${key}`)}: ${formatNumber(erased[key])}`)
                .join(" · "),
            ),
            h("p", { class: "muted" }, t("guest.eraseBackups")),
            h("a", { class: "button secondary", href: "#/meetups" }, t("door.backToMeetups")),
          ),
        );
      },
    },
    t("guest.eraseButton"),
  );
  return h("div", { class: "actions" }, exportButton, eraseButton);
}
