"""The door list's promise, checked against a model: random door and admin actions from several clients
(check-ins, undos, walk-ins, heads, bans, excuses, links, newer files, finalizing, meetups made and
deleted) while a door follows the list by deltas; whenever the door's version is a plain GET's, the two
lists are the same. In-process on SQLite and PostgreSQL, and through real servers (`serve --workers 2`)
with the actions sent at once from several connections, so both processes answer them."""

import random
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import requests
from doors import PASSWORD, Door, doorapp, environment, sign_in
from helpers import ENGINES, follow, meetup_csv

SPECIAL = ["img_tag", "script_tag", "zalgo", "mixed_rtl", "zoë_m", "bobby_tables", "long_name", "big_id"]


def moment(**offset):
    return (datetime.now(UTC) + timedelta(**offset)).strftime("%Y-%m-%dT%H:%M:%SZ")


def people(count, rng=None):
    """A guest list file's rows: (name, member number, RSVP, guests); with `rng`, a newer one of it."""
    rows = []
    for n in range(1, count + 1):
        status, guests = ("Waitlist" if n % 9 == 4 else "Yes"), n % 5 == 2
        if rng and rng.random() < 0.15:
            status = rng.choice(["Yes", "No", "Waitlist"])
            guests = rng.choice([0, 1, 2])
        rows.append((f"Guest {n} Example", n, status, int(guests)))
    if rng:
        rows += [(f"Newcomer {n}", 100 + n, "Yes", 0) for n in range(rng.randint(0, 3))]
    return rows


class Api:
    """One client of Door: `send(method, path, json=, files=, data=, params=, headers=)` -> (status, JSON
    or None, headers), over WebTest in-process or over requests to a server."""

    def __init__(self, send):
        self.send = send

    @classmethod
    def webtest(cls, app):
        def send(method, path, json=None, files=None, data=None, params=None, headers=None):
            options = {"headers": headers or {}, "expect_errors": True}
            if files:
                reply = app.post(path, data or {}, upload_files=[("file", *files["file"][:2])], **options)
            elif json is not None:
                reply = getattr(app, f"{method.lower()}_json")(path, json, **options)
            elif method == "GET":
                reply = app.get(path, params or {}, **options)
            else:
                reply = getattr(app, method.lower())(path, **options)
            body = reply.json if reply.body and "json" in reply.content_type else None
            return reply.status_int, body, reply.headers

        return cls(send)

    @classmethod
    def served(cls, base, auth):
        session = requests.Session()

        def send(method, path, json=None, files=None, data=None, params=None, headers=None):
            reply = session.request(
                method, base + path, json=json, files=files, data=data, params=params,
                headers={**auth, **(headers or {})}, timeout=60,
            )  # fmt: skip
            body = reply.json() if reply.content and "json" in reply.headers.get("Content-Type", "") else None
            return reply.status_code, body, reply.headers

        return cls(send)

    def ok(self, method, path, **options):
        """Send; a 5xx fails the test (4xx are answers too: the model acts blindly)."""
        status, body, headers = self.send(method, path, **options)
        assert status < 500, (method, path, status, body)
        return status, body, headers


class World:
    """An org with tonight's meetup (from a file; followed) and last week's (the same people: history), made
    through the API by `admin`; the random actions on them."""

    def __init__(self, admin, org_id, rng, meetups=None):
        self.admin, self.org, self.rng = admin, org_id, rng
        self.tonight, self.last_week = meetups or (
            self.imported("Tonight", people(40), hours=-1),
            self.imported("Last week", people(25), days=-7),
        )
        self.made = []  # meetups made by the actions, to delete or cancel

    def imported(self, name, rows, **offset):
        status, body, _ = self.admin.ok(
            "POST",
            f"/organizations/{self.org}/meetups/import",
            data={"name": name, "date": moment(**offset)},
            files={"file": ("list.csv", meetup_csv(rows), "text/csv")},
        )
        assert status == 201, body
        return f"/organizations/{self.org}/meetups/{body['meetup']['id']}"

    def guests(self, api, meetup):
        return [g["guest"]["platform_user_id"] for g in api.ok("GET", f"{meetup}/guests")[1]["guests"]]

    def act(self, door, admin):
        """One random action of a door or an admin."""
        rng = self.rng
        meetup = self.tonight if rng.random() < 0.8 else self.last_week
        guest = rng.choice(self.guests(door, meetup))
        entry = f"{meetup}/guests/{guest}"
        action = rng.choices(list(ACTIONS), weights=[weight for weight, _ in ACTIONS.values()])[0]
        ACTIONS[action][1](self, door, admin, meetup, entry, guest)
        return action


def walk_in(world, door, admin, meetup, entry, guest):
    username = world.rng.choice(SPECIAL)
    status, body, _ = door.ok("POST", "/guests/", json={"username": username})
    known = body if status == 201 else body.get("guest", {})
    if known.get("platform_user_id"):
        check_in = world.rng.random() < 0.7
        door.ok(
            "POST", f"{meetup}/guests/{known['platform_user_id']}/add-walkin", json={"check_in": check_in}
        )


def link(world, door, admin, meetup, entry, guest):
    local = [i for i in world.guests(door, meetup) if i < 0]
    if local:
        username = world.rng.choice(SPECIAL)
        admin.ok(
            "PATCH",
            f"/organizations/{world.org}/guests/{world.rng.choice(local)}/link",
            json={"username": username},
        )


def newer_file(world, door, admin, meetup, entry, guest):
    rows = people(40, world.rng)
    admin.ok("POST", f"{world.tonight}/import", files={"file": ("newer.csv", meetup_csv(rows), "text/csv")})


def finalize(world, door, admin, meetup, entry, guest):
    admin.ok("PATCH", f"{meetup}/{world.rng.choice(['finalize', 'unfinalize'])}")


def made_or_gone(world, door, admin, meetup, entry, guest):
    if world.made and world.rng.random() < 0.6:
        gone = world.made.pop()
        if world.rng.random() < 0.5:
            admin.ok("DELETE", gone)
        else:
            admin.ok("PATCH", f"{gone}/cancel", json={"reason": "Snow"})
    else:
        world.made.append(world.imported("Another night", people(8), days=-world.rng.randint(2, 5)))


def guest_path(world, guest):
    return f"/organizations/{world.org}/guests/{guest}"


# name: (weight, action(world, door, admin, meetup, entry, guest)); door and admin are Api clients
ACTIONS = {
    "check in": (30, lambda w, d, a, m, e, g: d.ok("POST", f"{e}/checkin", json={})),
    "undo": (10, lambda w, d, a, m, e, g: d.ok("PATCH", f"{e}/undo-checkin", json={"reason": "Wrong one"})),
    "walk-in": (6, walk_in),
    "by name": (5, lambda w, d, a, m, e, g: d.ok("POST", f"{m}/local-walkins", json={"displayname": "Ana"})),
    "heads": (4, lambda w, d, a, m, e, g: a.ok("PATCH", f"{e}/guests-brought", json={"guests_brought": 0})),
    "ban": (4, lambda w, d, a, m, e, g: a.ok("PATCH", f"{guest_path(w, g)}/ban", json={"reason": "Rude"})),
    "unban": (4, lambda w, d, a, m, e, g: a.ok("PATCH", f"{guest_path(w, g)}/unban")),
    "excuse": (
        4,
        lambda w, d, a, m, e, g: a.ok("PATCH", f"{w.last_week}/guests/{g}/excuse", json={"reason": "Flu"}),
    ),
    "link": (3, link),
    "newer file": (2, newer_file),
    "finalize": (2, finalize),
    "made or gone": (2, made_or_gone),
}


class Follower:
    """A door that keeps the list and polls it by deltas, with If-None-Match, as the browser app does; it
    compares what it holds with a plain GET whenever their versions are the same."""

    def __init__(self, api, meetup):
        self.api, self.path, self.held, self.compared = api, f"{meetup}/guests", None, 0

    def poll(self):
        if self.held is None:
            self.held = follow(None, self.api.ok("GET", self.path)[1])
            return
        version = self.held["version"]
        status, answer, headers = self.api.ok(
            "GET", self.path, params={"since": version}, headers={"If-None-Match": f'W/"{version}"'}
        )
        if status == 304:
            return
        assert status == 200 and headers["ETag"] == f'W/"{answer["version"]}"'
        self.held = follow(self.held, answer)

    def check(self):
        """Poll, then compare with a plain GET when it is at the same version; True when compared."""
        self.poll()
        plain = follow(None, self.api.ok("GET", self.path)[1])
        if plain["version"] != self.held["version"]:
            return False
        assert self.held == plain
        assert plain["total"] == len(plain["guests"])
        self.compared += 1
        return True


@ENGINES
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_door_following_the_deltas_holds_the_list_through_random_actions(
    seed, app, org, make_user, as_user
):
    door = Api.webtest(as_user(make_user("sam", org=org)))
    admin = Api.webtest(as_user(make_user("ada", org=org, role="ADMIN")))
    world = World(admin, str(org.id), random.Random(seed))
    follower = Follower(door, world.tonight)
    follower.poll()
    done = set()
    for _ in range(120):
        done.add(world.act(door, admin))
        if world.rng.random() < 0.5:  # sometimes several changes in one delta
            assert follower.check()
    assert follower.check()
    assert len(done) >= 8 and follower.compared >= 30


@pytest.fixture(params=["sqlite", "postgresql"])
def served(request, tmp_path):
    """`serve --workers 2` on a database of its own, with a site admin `root` and an org."""
    database_url = None
    if request.param == "postgresql":
        server = request.getfixturevalue("postgres")
        database_url = server.database(server.template)
    env = environment(tmp_path, database_url)
    assert doorapp(env, "create-admin", "root", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    door = Door(env)
    root = sign_in(door.url, "root")
    org = requests.post(
        f"{door.url}/organizations/", json={"name": "Owls", "slug": "owls"}, headers=root, timeout=30
    )
    yield door, root, org.json()["id"]
    door.stop()
    if database_url:
        server.drop(database_url)


def test_a_door_following_the_deltas_through_two_processes_misses_no_change(served):
    """Actions from three connections at once (the kernel hands them to either process) while a door
    follows the list, on its own connections too: no change committed while an answer was read is ever
    skipped."""
    door, root, org_id = served
    world = World(Api.served(door.url, root), org_id, random.Random(7))
    follower = Follower(Api.served(door.url, root), world.tonight)
    follower.poll()
    stop, failures = threading.Event(), []

    def actor(n):
        clients = [Api.served(door.url, root) for _ in range(2)]  # a door's and an admin's connections
        mine = World(clients[1], org_id, random.Random(n), (world.tonight, world.last_week))
        try:
            while not stop.is_set():
                mine.act(*clients)
                time.sleep(mine.rng.random() / 20)  # a door's pace, with moments the follower sees still
        except Exception as error:  # told by the assertion below, with the thread's failure
            failures.append(error)

    actors = [threading.Thread(target=actor, args=(n,)) for n in range(3)]
    for thread in actors:
        thread.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not failures:
        follower.check()
    stop.set()
    for thread in actors:
        thread.join(timeout=60)
    assert not failures, failures
    assert follower.check(), "once the actions stopped, the door and a plain GET are at one version"
    assert follower.compared >= 3
