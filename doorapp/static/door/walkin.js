// The walk-in dialog (mixed into DoorScreen by screen.js): a guest at the door who is not on the list, asked
// for as the platform knows guests (GET /platform's guest_lookup), or let in by name.
import { ApiProblem, isOffline } from "../core/api.js";
import { ask, h } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { platformInfo } from "../core/session.js";
import { findOrAddGuest } from "../shared/guests.js";

// What the dialog asks for, as GET /platform's `guest_lookup` says the platform finds a guest.
const BY_USERNAME = { asked: "door.platformUsername", text: "walkin.text" };
const BY_MEMBER_ID = { asked: "walkin.meetupId", text: "walkin.textMeetup" };

export const walkIns = {
  // A walk-in, starting from what was typed: a platform username (looked up, then added and checked in in
  // one action that a ban refuses before anything is added), or the name of a person not on the platform.
  async walkIn() {
    const lookup = (await platformInfo().catch(() => ({}))).guest_lookup === "member_id" ? BY_MEMBER_ID : BY_USERNAME;
    const local = h("input", { type: "checkbox", name: "local" });
    let found = null;
    const value = await ask({
      title: t("walkin.title"),
      message: t(lookup.text),
      extra: h("label", { class: "check" }, local, " ", t("walkin.local")),
      input: { label: t("walkin.label", { asked: t(lookup.asked) }), required: true, value: this.search.value.trim(),
        limits: (await limits("create_guest")).username },
      confirm: t("walkin.confirm"),
      action: async (typed) => {
        if (local.checked) return;
        if (isOffline()) throw new ApiProblem({ detail: t("walkin.offline") });
        found = await findOrAddGuest(typed);
      },
    });
    if (!value) return this.search.focus();
    if (local.checked) return this.letInByName(value);
    const onList = this.state.find(found.platform_user_id);
    if (onList) return this.act(onList); // on the list already: simply checked in
    return this.addWalkIn(found, false);
  },

  async addWalkIn(guest, force) {
    const problem = await this.send({ kind: "walkin", method: "POST", path: `${this.base}/guests/${guest.platform_user_id}/add-walkin`,
      body: { check_in: true, force }, guest }, (entry) => this.checkedIn(entry, force));
    if (problem && problem.code === "already_on_list") {
      await this.poll();
      const entry = this.state.find(guest.platform_user_id);
      if (entry) return this.act(entry);
    }
    if (problem) this.refused(problem, guest, (again) => this.addWalkIn(guest, again));
  },

  async letInByName(displayname) {
    const guest = { displayname, username: "", is_local: true };
    const problem = await this.send({ kind: "local", method: "POST", path: `${this.base}/local-walkins`,
      body: { displayname }, guest }, (entry) => this.checkedIn(entry, false));
    if (problem) this.refused(problem, guest);
  },
};
