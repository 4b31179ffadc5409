"""`doorapp serve --workers 2` as a new user meets it, on SQLite and on PostgreSQL: a fresh database is set up
with the printed code, the browser app is served, and two doors whose requests go to different processes
see each other's check-ins within two seconds."""

import os
import re
import signal
import time

import pytest
import requests
from helpers import DOORAPP, ENGINES, PASSWORD, SECRET, served
from playwright.sync_api import expect

from browser.support import PHONE, Browser, screenshot

pytestmark = ENGINES
WITHIN_MS = 2_000


@pytest.fixture(autouse=True)
def root():
    """No site admin made beforehand: this database is set up as a new user sets it up."""


def api(door, method, path, token=None, **options):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    reply = requests.request(method, door.url + path, headers=headers, timeout=30, **options)
    assert reply.ok, (path, reply.status_code, reply.text)
    return reply.json()


def set_up(door):
    """A fresh Door set up as a new user does it: the site admin olga from the printed code, her org and a
    meetup of the demo's board games night. (olga's token, the org, the meetup, its door list)."""
    demo = next(line.strip() for line in door.lines if line.strip().endswith("/board-games"))
    olga = {"username": "olga", "password": PASSWORD}
    api(door, "POST", "/setup", json={"code": door.setup_code, **olga})
    token = api(door, "POST", "/auth/token", data=olga)["access_token"]
    org = api(door, "POST", "/organizations/", token, json={"name": "Night Owls", "slug": "night-owls"})
    meetup = api(door, "POST", f"/organizations/{org['id']}/meetups/", token, json={"platform_url": demo})
    listed = api(door, "GET", f"/organizations/{org['id']}/meetups/{meetup['id']}/guests", token)["guests"]
    return token, org, meetup, listed


LOGGED = re.compile(r"doorapp\[(\d+)\] (\S+) \S+ (\S+) (\d+)$")  # pid, request id, path, status


def logged(door):
    """(pid, request id, path, status) of each request in the server's log so far, in order."""
    return [m.groups() for m in (LOGGED.search(line.rstrip()) for line in list(door.log)) if m]


def wait_for(found, seconds=5):
    """found()'s first true answer within `seconds` (the log arrives through a pipe)."""
    deadline = time.monotonic() + seconds
    while not (answer := found()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert answer, "not found in the log in time"
    return answer


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


def row(page, username):
    return page.locator("#door-results > [role=row]").filter(has=page.get_by_text(f"@{username}", exact=True))


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
