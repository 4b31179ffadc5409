"""The browser door keeps its list and follows it by changes: the first load is the whole list, every poll
after it asks `?since=` the version it holds; after an offline spell, and after a reload, it catches up by
a delta (the list kept on the device, IndexedDB), and shows what other doors did meanwhile."""

import json
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from browser.support import KEPT, counter, door_page, row, wait_for
from doorapp.models import MeetupGuest

pytestmark = pytest.mark.browser


class Polls:
    """The door list's answers the page gets, read as (the `since` it asked, or None; the status; `full`)."""

    def __init__(self, page):
        self.page, self.replies, self.read = page, [], []
        page.on("response", lambda reply: self.replies.append(reply))

    @property
    def seen(self):
        for reply in self.replies[len(self.read) :]:
            url = urlsplit(reply.url)
            if not url.path.endswith("/guests") or reply.request.method != "GET":
                self.read.append(None)
                continue
            since = parse_qs(url.query).get("since", [None])[0]
            full = json.loads(reply.body()).get("full") if reply.status == 200 else None
            self.read.append((since, reply.status, full))
        return [answer for answer in self.read if answer]

    def until(self, found, seconds=10):
        """Let the page run until found(seen) is true (events reach Python while Playwright is called)."""
        for _ in range(seconds * 10):
            if found(self.seen):
                return self.seen
            self.page.wait_for_timeout(100)
        raise AssertionError(f"not seen in time: {self.seen}")


def test_the_door_follows_changes_across_an_offline_spell_and_a_reload(
    browser, make_user, org, crowd, token_for, api
):
    page = door_page(browser, make_user, org, crowd, token_for)
    polls = Polls(page)
    expect(row(page, "grace_0")).to_be_visible()
    base = f"/organizations/{org.id}/meetups/{crowd.id}/guests"
    first, second = polls.until(lambda seen: len(seen) >= 2)[:2]
    assert second[0] is not None, "every poll asks for the changes since the version it holds"

    api.post_json(f"{base}/2000/checkin", {})  # another door checks grace_0 in
    page.keyboard.type("grace_0")
    expect(row(page, "grace_0")).to_contain_text("#1")
    assert any(full is False for _, status, full in polls.seen if status == 200)
    assert all(since for since, _, _ in polls.seen)  # never the whole list again

    page.context.set_offline(True)
    offline = len(polls.seen)  # failed polls are no answers
    api.post_json(f"{base}/2001/checkin", {})
    api.patch_json(f"/organizations/{org.id}/guests/2002/ban", {"reason": "Shouted at the host"})
    page.wait_for_timeout(2500)  # a few polls fail meanwhile
    page.context.set_offline(False)
    page.keyboard.press("Escape")
    expect(counter(page, "arrived")).to_have_text("2")
    back = polls.seen[offline:]
    assert back and all(since for since, _, _ in back) and (None, 200, True) not in back
    assert [full for _, status, full in back if status == 200] == [False]  # one delta caught up

    listed = MeetupGuest.select().where(MeetupGuest.meetup == crowd).count()
    wait_for(lambda: page.evaluate(KEPT, str(crowd.id)) == listed)
    page.context.set_offline(True)  # away for a while; meanwhile other doors go on
    api.post_json(f"{base}/2003/checkin", {})
    api.post_json(f"/organizations/{org.id}/meetups/{crowd.id}/local-walkins", {"displayname": "Ana Lima"})
    page.context.set_offline(False)
    reloaded = Polls(page)
    page.reload()  # the phone comes back and opens the door again: the kept list, then the changes since
    expect(counter(page, "arrived")).to_have_text("4")
    page.keyboard.type("ana lima")
    expect(page.locator("#door-results > [role=row]").first).to_contain_text("Ana Lima")
    page.keyboard.press("Escape")
    page.keyboard.type("oliver_2")  # banned while the door was away
    expect(row(page, "oliver_2")).to_contain_text("BANNED")
    since, status, full = reloaded.until(lambda seen: seen)[0]
    assert since is not None and (status, full) == (200, False), f"after the reload, a delta: {reloaded.seen}"


APPLIED = """async ({ first, delta, whole, queries }) => {
  const { DoorList } = await import("/static/door/list.js");
  const followed = new DoorList();
  followed.load(first);
  for (const query of queries) followed.query(query); // searched before: nothing of it may outlive the delta
  followed.apply(delta);
  const fresh = new DoorList();
  fresh.load(whole);
  const found = (list, query, filter) =>
    list.query(query, filter, 3).results.map((e) => e.guest.platform_user_id);
  return {
    searches: queries.flatMap((query) => ["all", "arrived", "expected"].map((filter) =>
      [found(followed, query, filter), found(fresh, query, filter)])),
    counts: [followed.tally(), fresh.tally()],
    version: followed.version,
  };
}"""


RSVPED = (datetime.now(UTC) - timedelta(days=3)).strftime("%Y-%m-%dT18:00:00Z")  # orders nothing here


def entry(guest_id, name, arrived=None):
    guest = {"platform_user_id": guest_id, "username": name.lower().replace(" ", "_"), "displayname": name}
    rsvp = {"has_arrived": arrived is not None, "arrival_order": arrived, "arrival_time": None}
    rsvp.update(cancelled_rsvp=False, is_walkin=False, waitlisted=False, guests_count=0, checked_in_by=None)
    rsvp.update(guests_brought=0 if arrived else None, rsvp_time=RSVPED)
    return {"guest": {**guest, "is_banned": False, "ban_reason": None, "is_local": False}, "rsvp": rsvp}


def test_a_list_kept_by_deltas_searches_as_the_whole_list_does(browser):
    """The door keeps its entries in their order by name as deltas rename, add and remove them: every search
    then finds what it finds on the whole list, in the same order."""
    names = ["Ana Lima", "Bo Chen", "Ana Lima", "Carla Ruiz", "Anders Berg", "Zoë Müller", "Bea Ávila"]
    first = [entry(i + 1, name) for i, name in enumerate(names)]
    counts = {"rsvps": 7, "cancelled": 0, "walkins": 0, "arrived": 0, "waitlisted": 0, "people": 0}
    changed = [entry(2, "Álvaro Bo"), entry(8, "Ana Lima"), entry(9, "Anaïs Roy"), entry(4, "Carla Ruiz", 1)]
    delta = {"version": "2.a.0", "full": False, "guests": changed, "removed": [6], "counts": counts}
    kept = {e["guest"]["platform_user_id"]: e for e in first}
    kept.update((e["guest"]["platform_user_id"], e) for e in changed)
    del kept[6]
    whole = {"version": "2.a.0", "full": True, "guests": list(kept.values()), "removed": [], "counts": counts}
    queries = ["", "a", "an", "ana", "ana l", "b", "bo", "carla", "z", "ál"]
    page = browser.page()
    seen = page.evaluate(
        APPLIED,
        {"first": {"guests": first, "counts": counts}, "delta": delta, "whole": whole, "queries": queries},
    )
    assert all(followed == fresh for followed, fresh in seen["searches"]), seen["searches"]
    assert seen["counts"][0] == seen["counts"][1] and seen["version"] == "2.a.0"
