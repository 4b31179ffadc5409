// The walk-in dialog (mixed into DoorScreen by screen.js): a guest at the door who is not on the list. As the
// door types, it offers the platform members Door knows who match (GET .../walkin-matches; one tap adds and
// checks one in, and a ban still asks for the override), a look-up on the platform of what was typed when it
// looks like what the platform finds a guest by (GET /platform's guest_lookup: a username, or on Meetup a
// member id or profile address), and, always, letting in by name a person with no platform account.
import { ApiProblem, api, isOffline, query } from "../core/api.js";
import { ask, busy, clear, debounce, h } from "../core/dom.js";
import { problemText, t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { platformInfo } from "../core/session.js";
import { findOrAddGuest } from "../shared/guests.js";
import { handle, shortName } from "../shared/names.js";

const MATCHES = 8; // what fits above a phone's keyboard, and enough to pick a namesake from
const WAIT_MS = 200; // as the door's own search

// How the platform finds a guest (GET /platform's `guest_lookup`): what the field asks for, whether the typed
// text can be that, and how the look-up button names it.
const BY_USERNAME = {
  asked: "door.platformUsername",
  notFound: "walkin.notFound",
  fits: (typed) => /^@?\S+$/.test(typed),
  handle: (typed) => "@" + typed.replace(/^@/, ""),
};
const BY_MEMBER_ID = {
  asked: "walkin.meetupId",
  notFound: "walkin.notFoundMeetup",
  fits: (typed) => /^(\d{1,19}|https?:\/\/\S+)$/.test(typed),
  handle: (typed) => typed,
};

export const walkIns = {
  // A walk-in, starting from what was typed in the door's search: a member Door knows (tapped in the list),
  // one the platform finds by what was typed, or the name of a person who is not on the platform.
  async walkIn() {
    const lookup =
      (await platformInfo().catch(() => ({}))).guest_lookup === "member_id" ? BY_MEMBER_ID : BY_USERNAME;
    let enter = null;
    const box = h("div", { class: "walkin" });
    const chosen = await ask({
      title: t("walkin.title"),
      input: {
        label: t("walkin.label", { asked: t(lookup.asked) }),
        value: this.search.value.trim(),
        limits: (await limits("create_guest")).username,
      },
      confirm: null,
      after: box,
      ready: ({ input, close }) => {
        enter = this.walkInChoices(box, input, close, lookup);
      },
      submit: () => enter(),
    });
    if (!chosen) return this.search.focus();
    if (chosen.name)
      return this.admitting({ displayname: chosen.name, is_local: true }, 1, (extra) =>
        this.letInByName(chosen.name, extra),
      );
    const onList = this.state.find(chosen.guest.platform_user_id);
    if (onList) return this.act(onList); // on the list already: simply checked in
    return this.admitting(chosen.guest, 1, (extra) => this.addWalkIn(chosen.guest, extra));
  },

  // What the dialog offers (drawn in `box`) for the text in `input`, redrawn as it changes;
  // `close({guest} or {name})` picks.
  // Returns what Enter in the field does: take the first choice offered, the first match once it is of this
  // text, else the look-up (letting in by name is always a tap of its own).
  walkInChoices(box, input, close, lookup) {
    const status = h("p", { class: "hint", role: "status" });
    const list = h("ul", { class: "matches", "aria-label": t("walkin.matchesLabel") });
    const lookupButton = h("button", { type: "button", class: "secondary", onclick: () => lookUp() });
    const problem = h("div");
    const byName = h("button", {
      type: "button",
      class: "secondary",
      onclick: () => close({ name: typed() }),
    });
    clear(
      box,
      status,
      list,
      lookupButton,
      problem,
      h("p", { class: "hint" }, t("walkin.byNameText")),
      byName,
    );
    const typed = () => input.value.trim();
    let controller = null,
      shownFor = null;

    const lookUp = () =>
      busy(lookupButton, problem, async () => {
        if (isOffline()) throw new ApiProblem({ detail: t("walkin.offline") });
        try {
          close({ guest: await findOrAddGuest(typed().replace(/^@/, "")) });
        } catch (error) {
          if (error.code !== "platform_user_not_found") throw error;
          throw new ApiProblem({ detail: t(lookup.notFound, { typed: typed() }) });
        }
      });

    const show = (answer, text) => {
      shownFor = text;
      clear(
        list,
        answer.guests.map((guest) =>
          h(
            "li",
            {},
            this.matchButton(guest, () => close({ guest })),
          ),
        ),
      );
      if (!answer.guests.length) status.textContent = t("walkin.noMatch", { typed: text });
      else if (answer.total > answer.guests.length)
        status.textContent = t("walkin.more", { shown: answer.guests.length, count: answer.total });
      else status.textContent = t("walkin.matches");
    };

    const search = async () => {
      const text = typed();
      if (controller) controller.abort(); // superseded: its answer would be of older text
      controller = null;
      shownFor = null; // the matches shown, and what the status says of them, stay until this text's arrive
      if (!text || isOffline()) {
        status.textContent = text ? t("walkin.searchOffline") : "";
        return clear(list);
      }
      const mine = (controller = new AbortController());
      try {
        show(
          await api.get(`${this.base}/walkin-matches${query({ q: text, limit: MATCHES })}`, {
            signal: mine.signal,
          }),
          text,
        );
      } catch (error) {
        if (mine.signal.aborted) return;
        status.textContent = error.status === 0 ? t("walkin.searchOffline") : problemText(error);
      }
    };

    const redraw = () => {
      const text = typed();
      lookupButton.hidden = !lookup.fits(text);
      lookupButton.textContent = t("walkin.lookUp", { handle: lookup.handle(text) });
      byName.disabled = !text;
      byName.textContent = text ? t("walkin.byName", { name: text }) : t("walkin.byNameEmpty");
      clear(problem);
    };

    const later = debounce(search, WAIT_MS);
    input.addEventListener("input", () => {
      redraw();
      later();
    });
    redraw();
    search();
    return () => {
      const first = shownFor === typed() && list.querySelector("button");
      if (first) first.click();
      else if (!lookupButton.hidden) lookUp();
    };
  },

  // One member offered: name, @username and, when banned here, the ban and its reason.
  matchButton(guest, pick) {
    return h(
      "button",
      { type: "button", class: guest.is_banned ? "match banned" : "match", onclick: pick },
      h("span", { class: "name" }, shortName(guest)),
      h("span", { class: "username" }, handle(guest)),
      guest.is_banned
        ? h("span", { class: "ban" }, h("strong", {}, t("door.banned")), " ", guest.ban_reason || "")
        : null,
    );
  },

  // `extra`: the overrides a person confirmed ({force} for a ban, {force_capacity, reason} for a full room)
  async addWalkIn(guest, extra = {}) {
    const problem = await this.send(
      {
        kind: "walkin",
        method: "POST",
        path: `${this.base}/guests/${guest.platform_user_id}/add-walkin`,
        body: { check_in: true, ...extra },
        guest,
      },
      (entry) => this.checkedIn(entry, extra.force),
    );
    if (problem && problem.code === "already_on_list") {
      await this.poll();
      const entry = this.state.find(guest.platform_user_id);
      if (entry) return this.act(entry);
    }
    if (problem) this.refused(problem, guest, (more) => this.addWalkIn(guest, { ...extra, ...more }));
  },

  async letInByName(displayname, extra = {}) {
    const guest = { displayname, username: "", is_local: true };
    const problem = await this.send(
      {
        kind: "local",
        method: "POST",
        path: `${this.base}/local-walkins`,
        body: { displayname, ...extra },
        guest,
      },
      (entry) => this.checkedIn(entry, false),
    );
    if (problem) this.refused(problem, guest, (more) => this.letInByName(displayname, { ...extra, ...more }));
  },
};
