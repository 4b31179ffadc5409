// People in the room (mixed into DoorScreen by screen.js): an arrival steps out and comes back in, keeping
// their number and time; people who leave without being found on the list are counted out ("someone left");
// an admin sets the meetup's capacity. Each goes through core/queue.js like a check-in, so a phone offline
// keeps them in order and Door acts on each once.
import { api } from "../core/api.js";
import { ask, formatTime, h } from "../core/dom.js";
import { formatNumber, problemText, t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { named } from "../shared/names.js";

export const room = {
  async stepOut(entry) {
    const { guest } = entry;
    const problem = await this.send(
      {
        kind: "exit",
        method: "POST",
        path: `${this.base}/guests/${guest.platform_user_id}/exit`,
        body: {},
        guest,
      },
      (answer) => {
        this.patch(answer);
        this.announce(
          t("door.steppedOut", { guest: named(guest), time: formatTime(answer.rsvp.exited_at) }),
          "ok",
        );
        this.nextGuest();
      },
    );
    if (problem) this.refused(problem, guest);
    this.search.focus();
  },

  // Back in (Enter on an arrival who stepped out): the room must have space for them and their guests,
  // as for a check-in.
  backIn(entry, extra = {}) {
    const { guest, rsvp } = entry;
    return this.admitting(guest, 1 + (rsvp.guests_brought ?? 0), async (more) => {
      const body = { ...extra, ...more };
      const problem = await this.send(
        {
          kind: "reenter",
          method: "POST",
          path: `${this.base}/guests/${guest.platform_user_id}/reenter`,
          body,
          guest,
        },
        (answer) => {
          this.patch(answer);
          this.announce(t("door.backIn", { guest: named(guest), order: answer.rsvp.arrival_order }), "ok");
          this.nextGuest();
        },
      );
      if (problem) this.refused(problem, guest, (again) => this.backIn(entry, { ...body, ...again }));
      this.search.focus();
    });
  },

  // Someone left without being found on the list (most guests leave so): the people inside go down by one.
  async someoneLeft() {
    const problem = await this.send(
      { kind: "left", method: "POST", path: `${this.base}/left`, body: { people: 1 }, guest: null },
      () => this.announce(t("door.someoneLeftDone"), "ok"),
    );
    if (problem) this.announce(problemText(problem), "error");
    this.search.focus();
  },

  // Door answered people who left: counted out until its next list counts them.
  countedOut(people) {
    this.floor = this.fetchId + 1;
    this.state.countOut(people);
    this.renderCounters();
  },

  async setCapacity() {
    const counts = this.state.tally();
    const field = (await limits("change_meetup")).capacity;
    const done = await ask({
      title: t("door.capacityTitle"),
      message: t("door.capacityText", { inside: counts.inside }),
      input: {
        label: t("door.capacityLabel"),
        value: counts.capacity === null ? "" : String(counts.capacity),
        limits: { ...field, type: "number", inputmode: "numeric" },
      },
      confirm: t("door.capacitySave"),
      action: (value) => api.patch(this.base, { capacity: value ? Number(value) : null }),
    });
    if (done !== null) {
      this.announce(
        done ? t("door.capacitySet", { capacity: Number(done) }) : t("door.capacityLifted"),
        "ok",
      );
      await this.poll();
    }
    this.search.focus();
  },

  // The counter of people inside: of the capacity when there is one, amber from 90% of it, red at it.
  insideCounter({ inside, capacity }) {
    const share = capacity ? inside / capacity : 0;
    const state = !capacity ? "" : share >= 1 ? " full" : share >= 0.9 ? " near" : "";
    const value = capacity ? t("counter.insideOf", { inside, capacity }) : formatNumber(inside);
    return h(
      "div",
      { class: `counter inside${state}`, dataset: { counter: "inside" } },
      h("span", { class: "value" }, value),
      h("span", { class: "label" }, state === " full" ? t("counter.full") : t("counter.inside")),
    );
  },
};
