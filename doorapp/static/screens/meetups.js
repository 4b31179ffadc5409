// The current organization's meetups: open a door screen, create one from a platform URL or from a file
// (screens/meetups-file.js), finalize and unfinalize (admins).
import { api } from "../core/api.js";
import { busy, field, formatDate, formValues, h, toast } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { confirmFinalize } from "../shared/finalize.js";
import { fileForm } from "./meetups-file.js";
import { listPanel } from "../shared/list-screen.js";
import { doorHash, isOrgAdmin, orgPath, platformInfo, session } from "../core/session.js";
import { problemText, t } from "../core/i18n.js";

export async function list(view, params, ctx) {
  const meetups = listPanel(ctx, {
    title: t("meetups.title", { org: session.org.name }),
    kind: "cards",
    load: async () => (await api.get(orgPath("/meetups/"))).meetups,
    empty: t("meetups.empty"),
    render: (items, refresh) => items.map((m) => card(m, refresh, ctx)),
  });
  const create = h("section", { class: "panel new-meetup" }, h("h2", {}, t("meetups.new")));
  // a long list puts the form far down: one tap takes there
  meetups.panel.querySelector("h1").after(
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          onclick: () => {
            create.scrollIntoView({ block: "start" });
            create.querySelector("input")?.focus({ preventScroll: true });
          },
        },
        t("meetups.new"),
      ),
    ),
  );
  view.append(meetups.panel, create);
  const ways = [
    ["platform", t("meetups.fromPlatform"), await createForm(ctx)],
    ["file", t("meetups.fromFile"), await fileForm(ctx)],
  ];
  const tabs = h("div", { class: "chips ways", role: "radiogroup", "aria-label": t("meetups.new") });
  const choose = (chosen) => {
    for (const [way, , pane] of ways) pane.hidden = way !== chosen;
    for (const chip of tabs.children) chip.setAttribute("aria-checked", String(chip.dataset.way === chosen));
  };
  tabs.append(
    ...ways.map(([way, label]) =>
      h(
        "button",
        { type: "button", class: "chip", role: "radio", dataset: { way }, onclick: () => choose(way) },
        label,
      ),
    ),
  );
  create.append(tabs, ...ways.map(([, , pane]) => pane));
  choose("platform");
  await meetups.refresh();
}

function card(meetup, refresh, ctx) {
  const c = meetup.counts;
  return h(
    "article",
    { class: "card meetup", dataset: { meetup: meetup.id } },
    h(
      "div",
      { class: "card-main" },
      h("h2", {}, h("a", { href: doorHash(meetup.org_id, meetup.id) }, meetup.name)),
      h("p", { class: "muted" }, formatDate(meetup.date), meetupBadge(meetup)),
      !meetup.last_synced_at
        ? h("p", { class: "stats never-synced" }, t("meetups.neverSynced"))
        : h(
            "p",
            { class: "stats" },
            t("meetups.stats", {
              arrived: c.arrived,
              rsvps: t("meetups.rsvps", { count: c.rsvps }),
              walkins: t("meetups.walkins", { count: c.walkins }),
            }),
          ),
    ),
    h("div", { class: "actions" }, cardActions(meetup, refresh, ctx)),
  );
}

// Open the door, the summary; sync a list never synced; for admins, a door pass and finalize.
function cardActions(meetup, refresh, ctx) {
  const actions = [
    h(
      "a",
      { class: "button primary", href: doorHash(meetup.org_id, meetup.id) },
      meetup.is_finalized ? t("meetups.open") : t("meetups.openDoor"),
    ),
    h("a", { class: "button secondary", href: `#/meetups/${meetup.id}/summary` }, t("meetups.summary")),
  ];
  if (!meetup.last_synced_at && !meetup.is_finalized) actions.unshift(syncButton(meetup, refresh));
  if (isOrgAdmin() && !meetup.is_finalized) {
    // a phone at this door without an account (screens/passes.js)
    actions.push(h("a", { class: "button secondary", href: `#/passes/${meetup.id}` }, t("passes.new")));
  }
  if (isOrgAdmin()) actions.push(finalizeButton(meetup, refresh, ctx));
  return actions;
}

// " · Cancelled" or " · Finalized", else nothing.
function meetupBadge(meetup) {
  if (meetup.cancelled_at) return [" · ", h("span", { class: "badge warn" }, t("meetup.cancelled"))];
  if (meetup.is_finalized) return [" · ", h("span", { class: "badge" }, t("meetup.finalized"))];
  return null;
}

function syncButton(meetup, refresh) {
  return h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: (event) =>
        busy(event.currentTarget, null, async () => {
          const result = await api.post(orgPath(`/meetups/${meetup.id}/sync`), {});
          toast(t("meetups.synced", { name: meetup.name, count: result.total }));
          refresh();
        }),
    },
    t("meetups.syncNow"),
  );
}

function finalizeButton(meetup, refresh, ctx) {
  const finalize = !meetup.is_finalized;
  return h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: async () => {
        const done = await confirmFinalize(
          meetup,
          finalize,
          t(finalize ? "meetups.finalizeTitle" : "meetups.unfinalizeTitle", { name: meetup.name }),
        );
        if (done && finalize) ctx.navigate(`#/meetups/${meetup.id}/summary`);
        else if (done) refresh();
      },
    },
    t(finalize ? "meetups.finalizeButton" : "meetups.unfinalizeButton"),
  );
}

async function createForm(ctx) {
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary" }, t("meetups.create"));
  const limit = await limits("create_meetup");
  const urlField = field(t("meetups.url"), {
    name: "platform_url",
    type: "url",
    required: true,
    ...limit.platform_url,
    placeholder: "https://…",
    autocomplete: "off",
    spellcheck: "false",
  });
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    urlField,
    field(t("meetups.name"), { name: "name", ...limit.name, autocomplete: "off" }, t("meetups.nameHint")),
    errors,
    h("div", { class: "actions" }, submit),
  );
  const examples = h("div");
  try {
    const platform = await platformInfo();
    if (platform.example_urls && platform.example_urls.length) {
      examples.append(
        h("p", { class: "hint" }, t("meetups.examples")),
        h(
          "ul",
          { class: "examples" },
          platform.example_urls.map((url) =>
            h(
              "li",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "link",
                  onclick: () => {
                    form.elements.platform_url.value = url;
                    form.elements.platform_url.focus();
                  },
                },
                shortUrl(url),
              ),
            ),
          ),
        ),
      );
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
        toast(
          t("meetups.syncFailed", { name: meetup.name, problem: problemText(meetup.sync_error) }),
          "error",
        );
      }
      ctx.navigate(doorHash(meetup.org_id, meetup.id));
    });
  });
  return h("div", {}, examples, form);
}

function shortUrl(url) {
  try {
    return new URL(url).pathname.replace(/^\//, "");
  } catch {
    return url;
  }
}
