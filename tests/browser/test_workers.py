"""`doorapp serve --workers 2` as a new user meets it, on SQLite and on PostgreSQL: a fresh database is set up
with the printed code, the browser app is served, and two doors whose requests go to different processes
see each other's check-ins within two seconds."""

import os
import signal

import pytest
from helpers import DOORAPP, ENGINES, SECRET, served
from playwright.sync_api import expect

from browser.support import PHONE, Browser, logged, row, screenshot, set_up, wait_for

pytestmark = ENGINES
WITHIN_MS = 2_000


@pytest.fixture(autouse=True)
def root():
    """No site admin made beforehand: this database is set up as a new user sets it up."""


def checked_in_by(door, request_id, guest_id):
    """The pid of the worker that answered this door's check-in of the guest."""
    checkin = f"/{guest_id}/checkin"
    return wait_for(
        lambda: [
            int(pid)
            for pid, rid, path, status in logged(door)
            if rid == request_id and path.endswith(checkin) and status == "200"
        ]
    )[0]


def answered_by_another_after(door, request_id, door_list, guest_id, writer):
    """Whether another worker than `writer` answered this door's list after the guest's check-in."""
    lines = logged(door)
    at = next(i for i, (_, _, path, _) in enumerate(lines) if path.endswith(f"/{guest_id}/checkin"))
    return any(
        int(pid) != writer and rid == request_id and path.endswith(door_list)
        for pid, rid, path, _ in lines[at + 1 :]
    )


def open_door(browser, name, token, meetup_id):
    """A door screen whose requests carry X-Request-ID `name` (Door logs it), each on a connection of its
    own (`Connection: close`): when one worker is stopped, the next request goes to the other."""
    page = browser.page(token=token, viewport=PHONE, path=None)
    page.context.set_extra_http_headers({"X-Request-ID": name, "Connection": "close"})
    page.goto(f"/#/meetups/{meetup_id}")
    return page


def test_two_doors_on_two_worker_processes_see_each_others_check_ins_within_two_seconds(
    chromium, tmp_path, database_url
):
    settings = {"DOOR_SECRET_KEY": SECRET, **({"DATABASE_URL": database_url} if database_url else {})}
    command = (DOORAPP, "serve", "--workers", "2", "--port", "0", "--data-dir", tmp_path / "data")
    with served(*command, env=settings) as door:
        token, org, meetup, listed = set_up(door)
        door_list = f"/meetups/{meetup['id']}/guests"
        ids = {entry["guest"]["username"]: entry["guest"]["platform_user_id"] for entry in listed}
        first, second = list(ids)[:2]

        browser = Browser(chromium, door.url)
        try:
            doors = {name: open_door(browser, name, token, meetup["id"]) for name in ("door-a", "door-b")}
            for page in doors.values():
                expect(row(page, first)).to_contain_text("Expected")
            for actor, watcher, username in (("door-a", "door-b", first), ("door-b", "door-a", second)):
                doors[actor].keyboard.type(username)
                doors[actor].keyboard.press("Enter")
                expect(row(doors[actor], username)).to_contain_text("arrived")
                # the worker that checked the guest in stops; the watcher's next polls go to the other one
                writer = checked_in_by(door, actor, ids[username])
                os.kill(writer, signal.SIGSTOP)
                try:
                    expect(row(doors[watcher], username)).to_contain_text("arrived", timeout=WITHIN_MS)
                    guest_id = ids[username]
                    wait_for(lambda: answered_by_another_after(door, watcher, door_list, guest_id, writer))
                finally:
                    os.kill(writer, signal.SIGCONT)
            screenshot(doors["door-b"], f"workers-{'postgresql' if database_url else 'sqlite'}")
        finally:
            browser.close()
        assert door.stop() == 0
    assert not browser.problems, browser.problems
