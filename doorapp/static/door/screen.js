// The door screen of one meetup (#/orgs/{org_id}/meetups/{meetup_id}): live counters, search as you type,
// keyboard check-in, ban override, undo with a reason, walk-ins and sync. The door keeps its list and polls
// it every second by changes (`?since=` the version it holds, with If-None-Match): a check-in, finalize, ban
// or sync anywhere shows here within two seconds, and costs this door that row, not the whole list.
// Check-ins, walk-ins and undos go through core/queue.js: a blip delays them, never loses or doubles them.
// The list is kept on the device (core/kept.js), so the door keeps working (and reloads, where a service
// worker keeps the shell) while the network is down, and catches up by changes when it is back.
//
// This file holds the screen's state, its poll and its selection; the rest of the screen is one module per
// concern, mixed into DoorScreen: view.js (what it draws), row.js (one row of the list), status.js (the
// status line: network, queue and the last message), actions.js (check-in, undo, link, sync, finalize),
// room.js (stepping out and back in, someone left, the capacity), walkin.js (the walk-in dialog), keys.js
// (the keyboard shortcuts, one table) and list.js (the list's rule: what a search finds and what Enter may
// act on, and the counts).
import { api } from "../core/api.js";
import { h } from "../core/dom.js";
import { problemText, t } from "../core/i18n.js";
import { keep, kept } from "../core/kept.js";
import { doorHash, isPass, orgPath, session, setOrg } from "../core/session.js";
import { actions } from "./actions.js";
import { keyHandler } from "./keys.js";
import { DoorList, idOf } from "./list.js";
import { room } from "./room.js";
import { rows } from "./row.js";
import { status } from "./status.js";
import { SHOWN, view } from "./view.js";
import { walkIns } from "./walkin.js";

const POLL_MS = 1000;

// #/meetups/{meetup_id}, the door's address before it carried its org: the org is found (the current one
// first, then the others this user can see) and the address replaced.
export async function redirect(view, [meetupId], ctx) {
  const orgs = [session.org, ...session.orgs.filter((o) => o !== session.org)].filter(Boolean);
  for (const org of orgs) {
    try {
      await api.get(orgPath(`/meetups/${meetupId}`, org));
      return ctx.redirect(doorHash(org.id, meetupId));
    } catch (error) {
      const last = error.status === 0 && (await kept(meetupId));
      if (last) return ctx.redirect(doorHash(last.meetup.org_id, meetupId));
      if (error.status !== 404 && error.status !== 403) throw error;
    }
  }
  notFound(view);
}

function notFound(view) {
  view.append(
    h(
      "section",
      { class: "panel" },
      h("h1", {}, t("door.notFound")),
      h("p", {}, t("door.notFoundText")),
      h("a", { class: "button secondary", href: "#/meetups" }, t("door.backToMeetups")),
    ),
  );
}

export async function screen(view, [orgId, meetupId], ctx) {
  const org = setOrg(orgId) || session.orgs.find((o) => o.id === orgId) || { id: orgId };
  const last = kept(meetupId); // the list as this device held it, read meanwhile
  const meetup = await loadMeetup(org, meetupId, last);
  ctx.renderTop();
  if (!meetup && isPass()) return ctx.redirect("#/door-meetups"); // not one of the pass's open meetups
  if (!meetup) return notFound(view);
  new DoorScreen(view, meetup, ctx, await last).start();
}

// The meetup from Door, or as this device held it when Door cannot be reached; null when there is none.
async function loadMeetup(org, meetupId, last) {
  try {
    return await api.get(orgPath(`/meetups/${meetupId}`, org));
  } catch (error) {
    const held = error.status === 0 ? await last : null;
    if (held) return held.meetup;
    if (error.status !== 404 && error.status !== 403) throw error;
    return null;
  }
}

class DoorScreen {
  constructor(view, meetup, ctx, last) {
    this.view = view;
    this.meetup = meetup;
    this.ctx = ctx;
    this.base = orgPath(`/meetups/${meetup.id}`, { id: meetup.org_id });
    this.state = new DoorList();
    this.loaded = false;
    if (last) {
      // the list as last held shows at once; the first poll brings it up to date
      this.state.load(last.list);
      this.loaded = true;
    }
    this.filter = "all";
    this.results = []; // the first SHOWN results of the search, of `total`
    this.total = 0;
    this.selectedId = null;
    this.chosen = false; // the selection was moved by the user (arrows, a tap): Enter acts on it
    this.live = new Set(); // queue items this screen is waiting on (it tells their outcome itself)
    this.fetchId = 0; // stale-response guard: answers to requests older than `floor` are dropped
    this.floor = 0;
    this.polling = false;
    this.pollError = null;
  }

  start() {
    document.title = t("door.pageTitle", { name: this.meetup.name });
    document.body.dataset.screen = "door";
    this.build();
    this.renderCounters();
    this.renderResults();
    this.poll();
    this.loadNotice();
    const timer = setInterval(() => this.poll(), POLL_MS);
    const keys = keyHandler(this);
    const visible = () => {
      if (!document.hidden) this.poll();
    };
    const queued = (event) => this.onQueue(event.detail);
    const network = () => this.renderNetwork();
    document.addEventListener("keydown", keys);
    document.addEventListener("visibilitychange", visible);
    window.addEventListener("door:queue", queued);
    window.addEventListener("door:offline", network);
    window.addEventListener("door:online", network);
    this.ctx.leave.push(() => {
      clearInterval(timer);
      document.removeEventListener("keydown", keys);
      document.removeEventListener("visibilitychange", visible);
      window.removeEventListener("door:queue", queued);
      window.removeEventListener("door:offline", network);
      window.removeEventListener("door:online", network);
      document.title = t("app.title");
      delete document.body.dataset.screen;
    });
  }

  // --- the list -------------------------------------------------------------------------------------

  // What changed since the version this door holds (the whole list the first time, or when Door cannot say).
  async poll() {
    if (this.polling || !this.ctx.alive) return;
    this.polling = true;
    const id = ++this.fetchId;
    const since = this.state.version;
    try {
      const answer = await api.get(
        `${this.base}/guests${since ? `?since=${encodeURIComponent(since)}` : ""}`,
        { etag: since ? `W/"${since}"` : null },
      );
      this.pollError = null;
      if (id < this.floor || !this.ctx.alive || answer.notModified || this.state.version !== since) return;
      this.showList(answer.data, since);
    } catch (error) {
      this.pollFailed(error);
    } finally {
      this.polling = false;
    }
  }

  // A poll's answer: the list as it now is, kept on the device and drawn.
  showList(data, since) {
    this.state.apply(data);
    this.loaded = true;
    keep(this.meetup, data, since);
    this.meetupChanged(data.meetup);
    this.renderChips();
    this.renderCounters();
    this.renderResults();
  }

  pollFailed(error) {
    if (error.status === 404 && this.ctx.alive) this.ctx.navigate("#/meetups");
    // a door pass for every open meetup: this one was finalized or cancelled, so the others are offered
    else if (error.code === "pass_not_allowed" && isPass() && this.ctx.alive)
      this.ctx.navigate("#/door-meetups");
    else if (error.status >= 400 && error.status !== 401 && this.pollError !== error.detail) {
      this.pollError = error.detail; // say it once, not every second
      this.announce(problemText(error), "error");
    }
    // a lost connection shows the banner (core/api.js); the next tick tries again
  }

  // The organization's notice to the people at its door, in the head's details (none: nothing there).
  async loadNotice() {
    try {
      const { notice } = await api.get(orgPath("/privacy/notice", { id: this.meetup.org_id }));
      if (!notice || !this.ctx.alive) return;
      this.notice = notice;
      this.renderHead();
    } catch {
      // offline, or a pass that ended: the door works without it
    }
  }

  // Finalize, unfinalize and syncs come with the list: every door sees them with the next poll.
  meetupChanged(state) {
    if (!state) return;
    const m = this.meetup;
    if (["is_finalized", "cancelled_at", "last_synced_at"].every((key) => state[key] === m[key])) return;
    this.meetup = { ...m, ...state };
    this.renderHead();
  }

  // Door changed the list (a sync, a newer file): read what changed at once, dropping answers begun before.
  async reload() {
    this.floor = this.fetchId + 1;
    await this.poll();
  }

  // A change this screen made: show it at once, and drop poll answers that started before it.
  patch(entry) {
    this.floor = this.fetchId + 1;
    this.state.put(entry);
    this.renderCounters();
    this.renderResults();
  }

  // Every keystroke searches at once: 2,000 guests take a few milliseconds (bench/door-screen).
  flushSearch() {
    this.selectedId = null;
    this.chosen = false;
    if (this.hinted) this.unannounce(); // the namesakes' hint was about the search before this one
    this.hinted = false;
    this.openStatus(false); // the results are what the door looks at while typing
    this.renderResults();
  }

  setFilter(value) {
    this.filter = value;
    for (const chip of this.chips.children)
      chip.setAttribute("aria-checked", String(chip.dataset.filter === value));
    this.renderResults();
    this.search.focus();
  }

  select(id, chosen = false) {
    this.selectedId = id;
    this.chosen = chosen;
    for (const li of this.list.children)
      li.setAttribute("aria-selected", String(li.dataset.guest === String(id)));
    const row = this.list.querySelector("[aria-selected=true] > [role=gridcell]");
    if (row)
      this.search.setAttribute("aria-activedescendant", row.id); // a screen reader reads the selected row
    else this.search.removeAttribute("aria-activedescendant");
  }

  move(step) {
    const shown = this.results.slice(0, SHOWN);
    if (!shown.length) return;
    const at = shown.findIndex((e) => idOf(e) === this.selectedId);
    const next =
      at < 0 ? (step > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + step));
    this.select(idOf(shown[next]), true);
    this.list.children[next]?.scrollIntoView({ block: "nearest" });
  }

  selected() {
    return this.results.find((e) => idOf(e) === this.selectedId) || null;
  }

  // Enter (the phone's Go): acts only on a clear choice: the exact username, the only result, or a row
  // the user picked. With namesakes it moves the selection and says why, so nobody checks in the wrong one.
  enter() {
    const entry = this.chosen ? this.selected() : this.target;
    if (entry) return this.act(entry);
    const shown = this.results.slice(0, SHOWN);
    if (!shown.length) return;
    const next = (shown.findIndex((e) => idOf(e) === this.selectedId) + 1) % shown.length;
    this.select(idOf(shown[next]));
    this.list.children[next]?.scrollIntoView({ block: "nearest" });
    this.announce(t("door.namesakes", { count: this.total }), "warn");
    this.hinted = true;
  }
}

Object.assign(DoorScreen.prototype, view, rows, status, actions, room, walkIns);
