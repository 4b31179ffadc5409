"""The door list by changes: `?since=<version>` answers only what changed (the rows, `removed`, the whole
counts and state), or the whole list for a version it cannot say that of; every change a door row shows
reaches the delta, and a door that follows the deltas holds the list a plain GET answers."""

import http.client
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from helpers import ENGINES, SECRET, follow, meetup_csv

from doorapp.access import issue_token
from doorapp.db import utcnow, write
from doorapp.models import Guest, Meetup, MeetupGuest, Org, changes


@pytest.fixture
def config(config, fake_platform):
    return fake_platform.configure(config)


def moment(**offset):
    """ISO 8601 of now plus `offset` (timedelta's keywords): meetups are dated from now, never fixed."""
    return (datetime.now(UTC) + timedelta(**offset)).strftime("%Y-%m-%dT%H:%M:%SZ")


class Night:
    """An org's meetups on the fake platform, made through the API, and what the door does to them."""

    def __init__(self, fake, org, door, boss):
        self.fake, self.org, self.door, self.boss = fake, org, door, boss
        self.ids = {}
        for n in range(1, 13):
            fake.add_user(n, f"member{n}", f"Member {n}")

    def meetup(self, name, rsvps, **offset):
        url = self.fake.add_event("night-owls", name, name.title(), moment(**offset), rsvps)
        made = self.door.post_json(
            f"/organizations/{self.org.id}/meetups/", {"platform_url": url}, status=201
        )
        self.ids[name] = made.json["id"]
        return made.json

    def path(self, name):
        return f"/organizations/{self.org.id}/meetups/{self.ids[name]}"

    def entry(self, name, guest):
        return f"{self.path(name)}/guests/{guest}"

    def get(self, name, since=None, status=200, **headers):
        query = {"since": since} if since is not None else {}
        return self.door.get(f"{self.path(name)}/guests", query, headers=headers, status=status)

    def check_in(self, name, guest):
        return self.door.post_json(f"{self.entry(name, guest)}/checkin", {}).json

    def by_name(self, name, displayname):
        local = self.door.post_json(
            f"{self.path(name)}/local-walkins", {"displayname": displayname}, status=201
        )
        return local.json["guest"]["platform_user_id"]

    def org_guest(self, guest):
        return f"/organizations/{self.org.id}/guests/{guest}"


@pytest.fixture
def night(fake_platform, org, door, boss):
    """Tonight (begun an hour ago: members 1-6), last week (1-4) and last month (5) on the fake platform."""
    night = Night(fake_platform, org, door, boss)
    night.meetup("tonight", range(1, 7), hours=-1)
    night.meetup("last-week", range(1, 5), days=-7)
    night.meetup("last-month", [5], days=-30)
    return night


def test_a_check_in_is_sent_as_that_guests_row_with_the_whole_counts(night):
    first = night.get("tonight")
    assert first.json["full"] is True and first.headers["ETag"] == f'W/"{first.json["version"]}"'
    night.check_in("tonight", 2)
    reply = night.get("tonight", since=first.json["version"])
    delta = reply.json
    assert (delta["full"], delta["removed"], delta["total"]) == (False, [], 6)
    assert [g["guest"]["platform_user_id"] for g in delta["guests"]] == [2]
    assert delta["guests"][0]["rsvp"]["arrival_order"] == 1
    assert delta["counts"]["arrived"] == 1 and delta["meetup"] == first.json["meetup"]
    assert reply.headers["ETag"] == f'W/"{delta["version"]}"' and delta["version"] != first.json["version"]
    assert follow(follow(None, first.json), delta) == follow(None, night.get("tonight").json)


def test_nothing_changed_is_304_to_its_etag_and_else_an_empty_delta(night):
    version = night.get("tonight").json["version"]
    again = night.get("tonight", since=version).json
    assert (again["version"], again["full"], again["guests"], again["removed"]) == (version, False, [], [])
    night.get("tonight", since=version, status=304, **{"If-None-Match": f'W/"{version}"'})
    night.get("tonight", status=304, **{"If-None-Match": f'W/"{version}"'})


@pytest.mark.parametrize(
    "since", ["", "abc", "1.2", "1.g.0", "1.2.3.4", "-1.0.0", "1 .2.3", "9" * 16 + ".1.0"]
)
def test_a_since_that_is_no_version_is_422(night, since):
    problem = night.get("tonight", since=since, status=422).json
    assert problem["code"] == "validation_error" and problem["errors"][0]["loc"] == ["query", "since"]


def test_a_version_this_list_never_had_is_answered_whole(night):
    night.meetup("twin", range(1, 3), days=3)  # dated after tonight: tonight's version stays
    number = int(night.get("tonight").json["version"].split(".")[0])
    with write():
        while Meetup.get_by_id(night.ids["twin"]).door_list_version < number:
            changes.state(night.ids["twin"])
    tonight, twin = night.get("tonight").json["version"], night.get("twin").json["version"]
    assert tonight.split(".")[0] == twin.split(".")[0] and tonight != twin
    number, salt, pending = tonight.split(".")
    for since in (twin, f"{int(number) + 1}.{salt}.{pending}", f"{number}.{int(salt, 16) ^ 1:x}.{pending}"):
        answer = night.get("tonight", since=since).json
        assert answer["full"] is True and answer["version"] == tonight and len(answer["guests"]) == 6


def every_guest(answer):
    return {g["guest"]["platform_user_id"] for g in answer["guests"]} | set(answer["removed"])


def excuse(night, name, guest):
    return night.boss.patch_json(f"{night.entry(name, guest)}/excuse", {"reason": "A cold"})


# Each: (before the door takes the list, the change, what the door's next delta says changed: the guests
# whose rows it sends or removes, or "whole" for the whole list)
CHANGES = {
    "check-in": (None, lambda n: n.check_in("tonight", 1), {1}),
    "undo": (
        lambda n: n.check_in("tonight", 1),
        lambda n: n.door.patch_json(f"{n.entry('tonight', 1)}/undo-checkin", {"reason": "Wrong one"}),
        {1},
    ),
    "platform walk-in": (
        lambda n: n.door.post_json("/guests/", {"username": "member9"}, status=201),
        lambda n: n.door.post_json(f"{n.entry('tonight', 9)}/add-walkin", {"check_in": True}, status=201),
        {9},
    ),
    "walk-in by name": (None, lambda n: n.by_name("tonight", "Ana Lima"), "by name"),
    "heads": (
        lambda n: n.check_in("tonight", 2),
        lambda n: n.boss.patch_json(f"{n.entry('tonight', 2)}/guests-brought", {"guests_brought": 0}),
        {2},
    ),
    "ban": (None, lambda n: n.boss.patch_json(f"{n.org_guest(3)}/ban", {"reason": "Rude"}), {3}),
    "unban": (
        lambda n: n.boss.patch_json(f"{n.org_guest(3)}/ban", {"reason": "Rude"}),
        lambda n: n.boss.patch(f"{n.org_guest(3)}/unban"),
        {3},
    ),
    "a check-in last week (history)": (None, lambda n: n.check_in("last-week", 4), {4}),
    "an excuse last week (history)": (None, lambda n: excuse(n, "last-week", 3), {3}),
    "link": (lambda n: n.by_name("tonight", "Ana Lima"), None, "linked"),
    "sync": (
        lambda n: n.fake.set_rsvps("night-owls", "tonight", [1, 2, 3, 4, 5, 11]),
        lambda n: n.door.post(f"{n.path('tonight')}/sync"),
        {6, 11},
    ),
    "a rename by another org's sync": (None, None, "renamed"),
    "an erasure": (None, lambda n: n.boss.post_json(f"{n.org_guest(3)}/erase", {"reason": "Asked to"}), {3}),
    "finalize": (None, lambda n: n.boss.patch(f"{n.path('tonight')}/finalize"), set()),
    "unfinalize": (
        lambda n: n.boss.patch(f"{n.path('tonight')}/finalize"),
        lambda n: n.boss.patch(f"{n.path('tonight')}/unfinalize"),
        set(),
    ),
    "finalize last week": (None, lambda n: n.boss.patch(f"{n.path('last-week')}/finalize"), set()),
    "unfinalize last week": (
        lambda n: n.boss.patch(f"{n.path('last-week')}/finalize"),
        lambda n: n.boss.patch(f"{n.path('last-week')}/unfinalize"),
        "whole",
    ),
    "cancel last month": (
        None,
        lambda n: n.boss.patch_json(f"{n.path('last-month')}/cancel", {"reason": "Snow"}),
        "whole",
    ),
    "an earlier meetup made": (None, lambda n: n.meetup("yesterday", [1, 7], days=-1), "whole"),
    "an earlier meetup deleted": (
        lambda n: n.meetup("yesterday", [1, 7], days=-1),
        lambda n: n.boss.delete(n.path("yesterday"), status=204),
        "whole",
    ),
}


@ENGINES
@pytest.mark.parametrize("change", list(CHANGES))
def test_every_change_a_door_row_shows_reaches_the_delta(night, change, make_user, as_user):
    before, act, expected = CHANGES[change]
    if before:
        before(night)
    held = follow(None, night.get("tonight").json)
    if expected == "by name":
        expected = {act(night)}
    elif expected == "linked":  # the local guest leaves the list, the platform guest is on it
        local = [i for i in held["guests"] if i < 0][0]
        night.boss.patch_json(f"{night.org_guest(local)}/link", {"username": "member10"})
        expected = {local, 10}
    elif expected == "renamed":  # in another org, a sync renames member 2, who is on tonight's list here
        other = Org.create(name="Early Birds", slug="early-birds")
        theirs = as_user(make_user("eve", org=other))
        url = night.fake.add_event("early-birds", "brunch", "Brunch", moment(days=2), [2])
        night.fake.add_user(2, "member2", "Member Two")
        theirs.post_json(f"/organizations/{other.id}/meetups/", {"platform_url": url}, status=201)
        expected = {2}
    else:
        act(night)
    delta = night.get("tonight", since=held["version"]).json
    assert delta["full"] is (expected == "whole"), delta["full"]
    if expected != "whole":
        assert every_guest(delta) == expected
    if change in ("link", "an erasure"):  # the guest let in by name, the erased one: gone from the list
        assert delta["removed"] == [min(expected)]
    held = follow(held, delta)
    assert held == follow(None, night.get("tonight").json)
    assert held["total"] == len(held["guests"])


@ENGINES
def test_a_newer_file_reaches_the_delta_of_a_list_from_a_file(night):
    people = [("Ana García", 1, "Yes", 0), ("Bo Li", 2, "Yes", 1), ("Cy Ode", 3, "Waitlist", 0)]
    made = night.boss.post(
        f"/organizations/{night.org.id}/meetups/import",
        {"name": "From a file", "date": moment(hours=-2)},
        upload_files=[("file", "list.csv", meetup_csv(people))],
        status=201,
    ).json["meetup"]
    night.ids["file"] = made["id"]
    held = follow(None, night.get("file").json)
    newer = [
        ("Ana García", 1, "No", 0),
        ("Bo Li", 2, "Yes", 2),
        ("Cy Ode", 3, "Waitlist", 0),
        ("Di Um", 4, "Yes", 0),
    ]
    night.boss.post(f"{night.path('file')}/import", upload_files=[("file", "list.csv", meetup_csv(newer))])
    delta = night.get("file", since=held["version"]).json
    assert delta["full"] is False and len(delta["guests"]) == 3  # Ana cancelled, Bo's guests, Di new
    assert follow(held, delta) == follow(None, night.get("file").json)


@ENGINES
def test_a_meetup_that_begins_changes_the_history_of_the_lists_dated_after_it(night, boss):
    """Nothing is written when a meetup's date passes, but from then it is over and counts in the history
    of the lists dated after it: their version changes then, and a door holding one is sent it whole."""
    night.meetup("soon", [1, 2], minutes=20)
    night.meetup("later", [1, 2, 3], minutes=40)
    held = follow(None, night.get("later").json)
    assert night.get("later", since=held["version"]).json["guests"] == []
    no_shows = held["guests"][1]["guest"]["history"]["recent_no_shows"]
    with time_machine.travel(utcnow().replace(tzinfo=UTC) + timedelta(minutes=30)):  # within the tokens' hour
        delta = night.get("later", since=held["version"]).json
        assert delta["full"] is True and delta["version"] != held["version"]
        after = follow(held, delta)
        assert after == follow(None, night.get("later").json)
        assert after["guests"][1]["guest"]["history"]["recent_no_shows"] == no_shows + 1  # 1 missed soon


def wire_size(base_url, path, token):
    """Bytes on the wire of a gzipped answer: status line, headers and body as sent."""
    host = base_url.removeprefix("http://")
    connection = http.client.HTTPConnection(host, timeout=30)
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"})
    reply = connection.getresponse()
    body = reply.read()
    assert reply.status == 200 and reply.getheader("Content-Encoding") == "gzip"
    head = len(f"HTTP/1.1 {reply.status} {reply.reason}\r\n") + 2
    return head + sum(len(k) + len(v) + 4 for k, v in reply.getheaders()) + len(body)


def test_one_check_in_on_a_list_of_5000_is_under_2_kb_on_the_wire(live_server, night, staff):
    tonight = Meetup.get_by_id(night.ids["tonight"])
    Guest.insert_many(
        [{"platform_user_id": 100 + i, "username": f"guest_number_{i}", "displayname": f"Guest Number {i}"}
         for i in range(4994)]
    ).execute()  # fmt: skip
    MeetupGuest.insert_many([{"meetup": tonight.id, "guest": 100 + i} for i in range(4994)]).execute()
    with write():
        changes.whole([tonight.id])  # as an import of them does
    path = f"{night.path('tonight')}/guests"
    token = issue_token(SECRET, staff, 5)
    version = night.get("tonight").json["version"]
    assert night.get("tonight").json["total"] == 5000
    assert wire_size(live_server, path, token) > 50_000  # the whole list, gzipped
    night.check_in("tonight", 2)
    assert wire_size(live_server, f"{path}?since={version}", token) < 2048


def test_changes_are_kept_15_minutes_and_10000_versions(night):
    """A door holding a version more than 10,000 changes and 15 minutes old is sent the whole list; one
    holding a version within either is sent what changed."""
    tonight = Meetup.get_by_id(night.ids["tonight"])
    oldest = night.get("tonight").json["version"]
    start = utcnow().replace(tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        with write():
            for _ in range(10_000):
                changes.state(tonight.id)
        assert night.get("tonight", since=oldest).json["full"] is False  # 10,000 back, but not 15 minutes
        clock.move_to(start + timedelta(minutes=16))
        kept = night.get("tonight").json["version"]
        with write():
            for _ in range(changes.PRUNE_EVERY):  # the list's changes are pruned at a multiple of this
                changes.state(tonight.id)
        assert night.get("tonight", since=oldest).json["full"] is True
        assert night.get("tonight", since=kept).json["full"] is False  # within the last 10,000
