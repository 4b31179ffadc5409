// What the door does (mixed into DoorScreen by screen.js): check in (with the ban override, and past the
// room's capacity when a person says why), undo with a reason, link a guest let in by name, sync, update from
// a newer file and finalize. Check-ins, undos and the room's comings and goings (room.js) go through
// core/queue.js.
import { api } from "../core/api.js";
import { ask, formatTime, h, toast } from "../core/dom.js";
import { problemText, t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import * as queue from "../core/queue.js";
import { isPass, orgPath } from "../core/session.js";
import { confirmFinalize } from "../shared/finalize.js";
import { updateFromFile } from "../shared/import.js";
import { actorName, named } from "../shared/names.js";
import { tagChip } from "../shared/tags.js";
import { askArrival } from "./heads.js";
import { isOutside } from "./list.js";

export const actions = {
  onQueue(event) {
    const { state, item, answer } = event;
    if (item && item.meetup !== this.meetup.id) return;
    if (state === "sent" && item.kind === "left") this.countedOut(item.body.people);
    if (state === "sent" && answer && answer.guest) this.sentRow(event);
    this.announceSettled(event);
    this.renderQueue();
    this.renderCounters();
    this.renderResults();
  },

  // A guest's action Door took: their row as it answered, and a word when no one here waits for it.
  sentRow({ id, item, answer }) {
    this.patch(answer);
    if (this.live.has(id)) return;
    this.announce(
      answer.rsvp.has_arrived
        ? t("door.sentNumbered", { action: describe(item), order: answer.rsvp.arrival_order })
        : t("door.sent", { action: describe(item) }),
      "ok",
    );
  },

  // An action refused, done already, or failed: said unless this door waits for it (a failure always).
  announceSettled({ id, state, item, problem }) {
    const waited = this.live.has(id);
    if (state === "refused" && !waited)
      this.announce(t("door.wasRefused", { action: describe(item), problem: problemText(problem) }), "error");
    // a check-in sent late for a guest another door let in meanwhile: they are in, which is no refusal
    if (state === "already" && !waited) this.announce(alreadyIn(item.guest, problem), "warn");
    if (state === "failed")
      this.announce(t("door.failed", { action: describe(item), count: item.failures }), "error");
  },

  // Enter, or a row's first button: check in; for an arrival who stepped out, back in.
  async act(entry) {
    const { guest, rsvp } = entry;
    if (this.meetup.is_finalized) return toast(t("door.finalizedClosed"), "error");
    if (isOutside(rsvp)) return this.backIn(entry); // queued behind a step out not sent yet, if need be
    if (entry.pending)
      return this.announce(
        t("door.pendingWaiting", { guest: named(guest), what: t(`door.pending.${entry.pending}`) }),
        "warn",
      );
    if (rsvp.has_arrived) return this.announce(alreadyIn(guest, rsvp), "warn");
    // a door pass never lets a banned guest in: it says so at once, not after asking how many came
    if (guest.is_banned && isPass()) return this.override(guest, guest.ban_reason);
    const brought = await askArrival(entry); // on the waitlist, or RSVP'd with guests: the door says first
    if (brought === null) return this.search.focus();
    return this.letIn(entry, brought);
  },

  // Check in a guest and the `brought` people with them: past a ban when the door confirms, past the room's
  // capacity when a person says why.
  letIn({ guest, rsvp }, brought) {
    const people = 1 + (brought ?? rsvp.guests_count ?? 0);
    const admit = (extra) =>
      this.admitting(guest, people, (more) => this.checkIn(guest, brought, { ...extra, ...more }));
    if (guest.is_banned) return this.override(guest, guest.ban_reason, admit);
    return admit({});
  },

  // A banned guest: nothing happens unless the door confirms.
  // `then({force: true})` runs on "Check in anyway".
  async override(guest, reason, then) {
    if (isPass())
      return this.announce(
        t("door.bannedPass", { guest: named(guest), reason: reason || t("door.noReason") }),
        "error",
      );
    const ok = await ask({
      title: t("door.bannedTitle", { guest: named(guest) }),
      message: h(
        "div",
        { class: "ban-reason" },
        h("strong", {}, t("common.reason")),
        " ",
        reason || t("door.noReason"),
      ),
      confirm: t("door.checkInAnyway"),
      danger: true,
    });
    if (ok) await then({ force: true });
    else this.search.focus();
  },

  // Let `people` in through `go(extra)`: at once while the room has space for them, as Door last said (with
  // what this door did since, so an offline door stops at capacity too); past it only when a person says
  // why (a door pass cannot), and Door decides again when it gets the action.
  admitting(guest, people, go) {
    const { inside, capacity } = this.state.tally();
    if (capacity === null || capacity === undefined || inside + people <= capacity) return go({});
    return this.pastCapacity(guest, { inside, capacity }, go);
  },

  async pastCapacity(guest, { inside, capacity }, go) {
    if (isPass())
      return this.announce(t("door.fullPass", { guest: named(guest), inside, capacity }), "error");
    const reason = await ask({
      title: t("door.fullTitle", { inside, capacity }),
      message: t("door.fullText", { guest: named(guest) }),
      input: {
        label: t("common.reasonLabel"),
        required: true,
        placeholder: t("door.fullPlaceholder"),
        limits: (await limits("check_in_guest")).reason,
      },
      confirm: t("door.letInAnyway"),
      danger: true,
    });
    if (reason) return go({ force_capacity: true, reason });
    this.search.focus();
  },

  // Send one action through the queue; `done(answer)` on success. Refusals the door can act on at once
  // (a ban, already in) are handled here; a lost answer leaves the action pending, never "nothing changed".
  async send(action, done) {
    const id = queue.randomKey();
    this.sentQuery = this.search.value;
    this.live.add(id);
    const outcome = await queue.submit({ id, meetup: this.meetup.id, ...action });
    this.live.delete(id);
    if (outcome.state === "sent") return done(outcome.answer);
    // in already (refused() says by whom); not queued
    if (outcome.state === "already") return outcome.problem;
    if (outcome.state !== "refused") {
      // no answer: it may have landed or not; the queue will know
      this.nextGuest();
      this.renderQueue();
      this.renderCounters();
      this.renderResults();
      return this.announce(t("door.notConfirmed", { action: describe(action) }), "warn");
    }
    // refused while the door waited: handled here, not in "needs attention" (an ended pass's stay: the
    // screen that says so lists them)
    if (outcome.problem.code !== "pass_ended") queue.dismiss(id);
    return outcome.problem;
  },

  // `brought`: how many of the guest's RSVP'd guests came (undefined: Door counts all of them); `extra`: the
  // overrides a person confirmed ({force} for a ban, {force_capacity, reason} for a full room)
  async checkIn(guest, brought, extra = {}) {
    const body = { ...extra, ...(brought === undefined ? {} : { guests_brought: brought }) };
    const problem = await this.send(
      {
        kind: "checkin",
        method: "POST",
        path: `${this.base}/guests/${guest.platform_user_id}/checkin`,
        body,
        guest,
      },
      (entry) => this.checkedIn(entry, extra.force),
    );
    if (problem) this.refused(problem, guest, (more) => this.checkIn(guest, brought, { ...extra, ...more }));
    this.search.focus();
  },

  // Ready for the next guest: the search is emptied, unless the door has started typing for them meanwhile.
  nextGuest() {
    if (this.search.value === this.sentQuery) this.search.value = "";
    this.flushSearch();
  },

  // What the door says once a guest is in: their number, and what the organization keeps on them (its
  // tags and note: "Speaker", "step-free entrance"), so nobody has to ask.
  checkedIn(entry, force) {
    this.patch(entry);
    const said = {
      guest: named(entry.guest),
      order: entry.rsvp.arrival_order,
      count: entry.rsvp.guests_brought,
    };
    const { tags = [], note } = entry.guest;
    this.announce(
      [
        t(
          force ? "door.checkedInForced" : entry.rsvp.guests_count ? "door.checkedInWith" : "door.checkedIn",
          said,
        ),
        ...tags.map((tag) => [" ", tagChip(tag)]),
        note ? ` · ${note}` : "",
      ],
      "ok",
    );
    this.nextGuest();
  },

  refused(problem, guest, retry) {
    if (problem.code === "guest_banned") return this.override(guest, problem.ban_reason, retry);
    if (problem.code === "capacity_reached" && retry) return this.pastCapacity(guest, problem, retry);
    if (problem.code === "already_checked_in") this.announce(alreadyIn(guest, problem), "warn");
    else {
      const text = problemText(problem); // named, so the door knows which guest it was about
      this.announce(
        text.includes(named(guest)) ? text : t("door.guestProblem", { guest: named(guest), problem: text }),
        "error",
      );
    }
    this.poll();
  },

  async undo(entry) {
    const { guest, rsvp } = entry;
    const reason = await ask({
      title: t("door.undoTitle", { guest: named(guest) }),
      message: t("door.undoText", { order: rsvp.arrival_order, time: formatTime(rsvp.arrival_time) }),
      input: {
        label: t("common.reasonLabel"),
        required: true,
        placeholder: t("door.undoPlaceholder"),
        limits: (await limits("undo_check_in")).reason,
      },
      confirm: t("door.undoConfirm"),
      danger: true,
    });
    if (reason) {
      const problem = await this.send(
        {
          kind: "undo",
          method: "PATCH",
          path: `${this.base}/guests/${guest.platform_user_id}/undo-checkin`,
          body: { reason },
          guest,
        },
        (undone) => {
          this.patch(undone);
          this.announce(t("door.undone", { guest: named(guest) }), "warn");
        },
      );
      if (problem) this.refused(problem, guest);
    }
    this.search.focus();
  },

  // A guest let in by name turns out to be on the platform: their entry and bans move to that account.
  async link(guest) {
    const linked = await ask({
      title: t("door.linkTitle", { guest: named(guest) }),
      message: t("door.linkText"),
      input: {
        label: t("door.platformUsername"),
        required: true,
        limits: (await limits("link_local_guest")).username,
      },
      confirm: t("door.link"),
      action: (username) => api.patch(orgPath(`/guests/${guest.platform_user_id}/link`), { username }),
    });
    if (linked) {
      this.announce(
        t("door.linked", {
          name: guest.displayname,
          guest: named({ ...guest, is_local: false, username: linked }),
        }),
        "ok",
      );
      this.poll();
    }
    this.search.focus();
  },

  async sync(button) {
    button.disabled = true;
    this.announce(t("sync.running"), "info", true);
    try {
      const result = await api.post(`${this.base}/sync`, {});
      this.announce(t("sync.done", result), "ok");
      await this.reload();
    } catch (error) {
      this.announce(problemText(error), "error");
      if (error.code === "meetup_finalized") this.poll();
    } finally {
      button.disabled = false;
    }
  },

  async importNewer() {
    if (await updateFromFile(this.meetup)) await this.reload();
    this.search.focus();
  },

  async setFinalized(finalize) {
    const changed = await confirmFinalize(
      this.meetup,
      finalize,
      t(finalize ? "door.finalizeTitle" : "door.unfinalizeTitle"),
    );
    if (changed) {
      this.meetup = changed;
      this.renderHead();
      this.renderResults();
    }
  },
};

// "already in, #N, by X at T": what the door needs to tell an arrived guest from a namesake.
function alreadyIn(guest, arrival) {
  const params = {
    guest: named(guest),
    order: arrival.arrival_order,
    time: formatTime(arrival.arrival_time),
  };
  return arrival.checked_in_by
    ? t("door.alreadyInBy", { ...params, username: actorName(arrival.checked_in_by) })
    : t("door.alreadyIn", params);
}

export function describe(item) {
  if (item.kind === "left") return t("door.describe.left", { count: item.body.people });
  const who = named(item.guest);
  const key = {
    checkin: "door.describe.checkin",
    undo: "door.describe.undo",
    walkin: "door.describe.walkin",
    local: "door.describe.walkin",
    exit: "door.describe.exit",
    reenter: "door.describe.reenter",
  }[item.kind];
  return key ? t(key, { guest: who }) : who;
}
