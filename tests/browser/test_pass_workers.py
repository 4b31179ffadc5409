"""A door pass on `doorapp serve --workers 2` over PostgreSQL, in Chromium: a phone pairs on one worker
process and checks a guest in, the organizer revokes the pass on the other, and the phone's next request,
answered by the worker it paired on, shows that the pass has ended."""

import os
import signal
from contextlib import contextmanager

import pytest
import requests
from helpers import DOORAPP, SECRET, served
from playwright.sync_api import expect

from browser.support import (
    DOOR_LIST,
    PHONE,
    Browser,
    api,
    logged,
    pairing_path,
    row,
    screenshot,
    set_up,
    wait_for,
)

pytestmark = [pytest.mark.browser, pytest.mark.parametrize("engine", ["postgresql"], indirect=True)]


@pytest.fixture(autouse=True)
def root():
    """No site admin made beforehand: this database is set up as a new user sets it up."""


def answered(door, request_id, path_end, status):
    """The pids of the workers that answered requests `request_id` to a path ending in `path_end` with
    `status`, in the log so far."""
    return [
        int(pid)
        for pid, rid, path, said in logged(door)
        if rid == request_id and path.endswith(path_end) and said == status
    ]


@contextmanager
def stopped(pid):
    """The worker `pid` stopped (SIGSTOP): new connections go to the other one."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_a_pass_paired_on_one_worker_and_revoked_on_the_other_ends_at_once(chromium, tmp_path, database_url):
    settings = {"DOOR_SECRET_KEY": SECRET, "DATABASE_URL": database_url}
    command = (DOORAPP, "serve", "--workers", "2", "--port", "0", "--data-dir", tmp_path / "data")
    with served(*command, env=settings) as door:
        token, org, meetup, listed = set_up(door)
        first, second = [entry["guest"]["username"] for entry in listed[:2]]
        passes = f"/organizations/{org['id']}/passes"
        made = api(door, "POST", passes, token, json={"label": "Maria's phone", "meetup_id": meetup["id"]})

        browser = Browser(chromium, door.url)
        try:
            phone = browser.page(viewport=PHONE, path=None, touch=True)
            phone.context.set_extra_http_headers({"X-Request-ID": "phone", "Connection": "close"})
            phone.goto(pairing_path(made))
            expect(row(phone, first)).to_contain_text("Expected")
            paired_on = wait_for(lambda: answered(door, "phone", "/auth/pass", "200"))[0]
            phone.keyboard.type(first)
            phone.keyboard.press("Enter")
            expect(row(phone, first)).to_contain_text("arrived")
            # its list stays as it is (a poll would hear of the revoke first): the next action hears it
            phone.route(DOOR_LIST, lambda route: route.fulfill(status=304))

            with stopped(paired_on):  # the revoke goes to the other worker
                revoke = {"Authorization": f"Bearer {token}", "X-Request-ID": "revoke", "Connection": "close"}
                reply = requests.delete(f"{door.url}{passes}/{made['id']}", headers=revoke, timeout=30)
                assert reply.status_code == 204, reply.text
            revoked_on = wait_for(lambda: answered(door, "revoke", f"/passes/{made['id']}", "204"))[0]
            assert revoked_on != paired_on

            with stopped(revoked_on):  # the phone's next request goes to the worker it paired on
                phone.keyboard.press("Escape")
                phone.keyboard.type(second)
                phone.keyboard.press("Enter")
                expect(phone.get_by_role("heading", name="This door pass has ended")).to_be_visible()
            assert wait_for(lambda: answered(door, "phone", "/checkin", "401")) == [paired_on]
            screenshot(phone, "pass-workers-ended")
            assert phone.evaluate("localStorage.getItem('auth_token')") is None
        finally:
            browser.close()
        check_ins = api(door, "GET", f"/organizations/{org['id']}/events/?type=CHECK_IN", token)["events"]
        assert [event["actor"]["pass"]["label"] for event in check_ins] == ["Maria's phone"]
        assert door.stop() == 0
    assert not browser.problems, browser.problems
