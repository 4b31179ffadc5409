"""The browser door keeps its list and follows it by changes: the first load is the whole list, every poll
after it asks `?since=` the version it holds; after an offline spell, and after a reload, it catches up by
a delta (the list kept on the device, IndexedDB), and shows what other doors did meanwhile."""

import json
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
