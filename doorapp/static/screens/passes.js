// Door passes: an org admin makes one (#/passes, or #/passes/{meetup_id} from a meetup's card) and shows its
// QR code to a volunteer's phone; the phone opens the pairing address (#/pass/{code}), which exchanges the
// code for the pass's token and lands on the door; #/pass-ended tells the phone its pass ended, and what it
// did not send. #/door-meetups lets a pass for every open meetup pick one.
import { api, token } from "../core/api.js";
import { ask, busy, clear, field, formatStamp, formValues, h, toast } from "../core/dom.js";
import { problemText, t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { items } from "../core/queue.js";
import { doorHash, orgPath, passHome, session } from "../core/session.js";
import { joinFigure, lanHelp } from "../shared/join.js";
import { named } from "../shared/names.js";
import { noticeDetails } from "../shared/notice.js";
import { passTable } from "../shared/passes.js";

export async function manage(view, [meetupId], ctx) {
  const [{ meetups }, limit, access] = await Promise.all([
    api.get(orgPath("/meetups/")),
    limits("create_pass"),
    api.get("/phones"),
  ]);
  if (!ctx.alive) return;
  const names = new Map(meetups.map((m) => [m.id, m.name]));
  const list = h("div", { class: "passes" });
  const made = h("div", { "aria-live": "polite" });
  const refresh = async () => {
    const { passes } = await api.get(orgPath("/passes"));
    if (!ctx.alive) return;
    const now = Date.now();
    const live = passes.filter(
      (p) => p.meetup_id && p.meetup_id === meetupId && !p.revoked_at && Date.parse(p.ends_at) > now,
    );
    clear(
      list,
      passes.length ? passTable(passes, names, refresh) : h("p", { class: "muted" }, t("passes.none")),
      live.length > 1
        ? h(
            "div",
            { class: "actions" },
            h(
              "button",
              {
                type: "button",
                class: "danger",
                onclick: () => revokeAll(meetupId, names.get(meetupId), refresh),
              },
              t("passes.revokeAll", { meetup: names.get(meetupId) }),
            ),
          )
        : null,
    );
  };
  const open = meetups.filter((m) => !m.is_finalized);
  view.append(
    h(
      "section",
      { class: "panel" },
      h("h1", {}, t("passes.title")),
      h("p", {}, t("passes.intro")),
      access.urls.length ? null : lanHelp(access.open_to_lan, t("passes.cannotText")),
      form(open, meetupId, limit, made, refresh),
      made,
    ),
    h("section", { class: "panel" }, h("h2", {}, t("passes.listTitle")), list),
  );
  await refresh();
}

function form(open, meetupId, limit, made, refresh) {
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary" }, t("passes.create"));
  const options = [...open.map((m) => [m.id, m.name]), ["", t("passes.everyMeetup")]];
  const meetup = field(t("passes.meetup"), { tag: "select", name: "meetup_id", options });
  meetup.querySelector("select").value = open.some((m) => m.id === meetupId) ? meetupId : (open[0]?.id ?? "");
  const element = h(
    "form",
    { class: "stack", novalidate: true },
    field(t("passes.label"), {
      name: "label",
      required: true,
      ...limit.label,
      autocomplete: "off",
      placeholder: t("passes.labelExample"),
    }),
    meetup,
    field(t("passes.endsAt"), { name: "ends_at", type: "datetime-local" }, t("passes.endsHint")),
    errors,
    h("div", { class: "actions" }, submit),
  );
  element.addEventListener("submit", (event) => {
    event.preventDefault();
    const { label, meetup_id: chosen, ends_at: ends } = formValues(element);
    const body = { label: label.trim(), meetup_id: chosen || null };
    if (ends) body.ends_at = new Date(ends).toISOString();
    busy(submit, errors, async () => {
      const pass = await api.post(orgPath("/passes"), body);
      clear(made, pairing(pass));
      made.scrollIntoView({ block: "center" }); // the code to scan, in view at once
      element.reset();
      await refresh();
    });
  });
  return element;
}

// The pairing address of a new pass: its QR code for the phone's camera, and the link to copy; or, while only
// this computer can open Door (no code: no phone could open it), how to let phones in.
function pairing(pass) {
  const {
    label,
    ends_at: ends,
    pairing: { url, qr_svg, expires_at: expires, open_to_lan: lan },
  } = pass;
  if (!qr_svg) return lanHelp(lan, t("passes.cannotText"));
  return joinFigure(
    { url, qr_svg },
    {
      alt: t("passes.qr", { label }),
      label: t("passes.link"),
      title: t("passes.scan", { label }),
      hints: [
        t("passes.once", { time: formatStamp(expires) }),
        t("passes.ends", { time: formatStamp(ends) }),
      ],
    },
  );
}

async function revokeAll(meetupId, meetup, refresh) {
  let revoked = 0;
  const done = await ask({
    title: t("passes.revokeAll", { meetup }),
    message: t("passes.revokeText"),
    confirm: t("passes.revoke"),
    danger: true,
    action: async () => {
      ({ revoked } = await api.del(orgPath(`/meetups/${meetupId}/passes`)));
    },
  });
  if (!done) return;
  toast(t("passes.revokedAll", { count: revoked }));
  await refresh();
}

// #/pass/{code}: the phone exchanges the code and lands on the door; where the organization wrote a notice
// to the people at its door, the phone shows it first, with the way on to the door. Opened where somebody is
// signed in, it asks first: the pass takes this browser's session.
export async function pair(view, [code], ctx) {
  const status = h("p", { class: "muted", role: "status" }, t("pass.pairing"));
  const panel = h("section", { class: "panel" }, h("h1", {}, t("pass.title")), status);
  view.append(panel);
  if (session.user && !session.user.pass) {
    const ok = await ask({
      title: t("pass.title"),
      message: t("pass.replaces", { username: session.user.username }),
      confirm: t("pass.useHere"),
    });
    if (!ok) return ctx.navigate("#/");
  }
  try {
    const answer = await api.post("/auth/pass", { code }, { auth: false });
    token.set(answer.access_token);
    await ctx.refresh(); // the session of the pass, then its home: the door of its meetup
    const { notice } = await api.get(orgPath("/privacy/notice")).catch(() => ({ notice: "" }));
    if (!ctx.alive) return;
    if (!notice) return ctx.navigate(passHome());
    clear(
      panel,
      h("h1", {}, t("pass.title")),
      h("p", { role: "status" }, t("pass.paired", { label: answer.pass.label })),
      noticeDetails(notice, true),
      h("a", { class: "button primary wide", href: passHome() }, t("pass.toDoor")),
    );
  } catch (error) {
    if (!ctx.alive) return;
    clear(
      panel,
      h("h1", {}, t("pass.title")),
      h("div", { class: "alert error", role: "alert" }, problemText(error)),
      h("p", {}, t("pass.askAgain")),
    );
  }
}

// #/pass-ended: what a phone shows once its pass was revoked, ran out or its meetup was finalized, with the
// door actions it made that were never sent.
export function ended(view) {
  const unsent = items().filter(
    (item) => String(item.user).startsWith("pass ") && item.problem?.code === "pass_ended",
  );
  view.append(
    h(
      "section",
      { class: "panel pass-ended" },
      h("h1", {}, t("pass.endedTitle")),
      h("p", {}, t("pass.endedText")),
      unsent.length
        ? h(
            "div",
            { class: "alert error", role: "alert" },
            t("pass.unsent", { count: unsent.length }),
            h(
              "ul",
              {},
              unsent.map((item) => h("li", {}, item.guest ? named(item.guest) : item.body.displayname || "")),
            ),
          )
        : null,
    ),
  );
}

// #/door-meetups: the open meetups a pass for every meetup may work, each with its door.
export async function meetups(view, params, ctx) {
  const { meetups: open } = await api.get(orgPath("/meetups/"));
  if (!ctx.alive) return;
  view.append(
    h(
      "section",
      { class: "panel" },
      h("h1", {}, t("pass.chooseMeetup")),
      open.length
        ? h(
            "ul",
            { class: "examples" },
            open.map((m) =>
              h("li", {}, h("a", { class: "button primary", href: doorHash(m.org_id, m.id) }, m.name)),
            ),
          )
        : h("p", { class: "muted" }, t("pass.noMeetups")),
    ),
  );
}
