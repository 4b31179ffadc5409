"""docs/several-machines.md, run as written: the settings and the nginx configuration are read from the
page (only the addresses, ports and certificate are ours), two independent `doorapp serve` (a data folder
each, as on two machines) share one PostgreSQL, and every request goes through nginx."""

import os
import re
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import requests
from doors import PASSWORD, doorapp
from helpers import DOORAPP, Served, at_once, door_env
from nginx import Nginx
from nginx import missing as nginx_missing

PAGE = Path(__file__).parent.parent / "docs" / "several-machines.md"
EVENT = "https://demo.door.invalid/night-owls/board-games"  # an event of the demo platform
OTHER_KEY = "a-signing-key-of-its-own-that-is-long-enough-for-hs256"


def block(language):
    """The page's one fenced block of `language`."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.S | re.M)
    assert len(blocks) == 1, f"{PAGE.name} should have one {language} block, not {len(blocks)}"
    return blocks[0]


def documented(text, ours):
    """`text` with each example of the page replaced by ours; each must be there, once."""
    for example, value in ours.items():
        assert text.count(example) == 1, f"{example!r} is no longer in {PAGE.name}"
        text = text.replace(example, value)
    return text


class Machine:
    """`doorapp serve` with `env`; restarted on the port it took first."""

    def __init__(self, env):
        self.env = env
        self.start()
        self.address = self.url.removeprefix("http://")
        self.env = {**env, "DOOR_PORT": self.address.rsplit(":", 1)[1]}

    def start(self):
        self.served = Served([DOORAPP, "serve"], door_env(**self.env))
        self.url = self.served.url

    def answered(self, request_id):
        """Whether this machine's log has `request_id` (written as its answer leaves)."""
        return any(f"] {request_id} " in line for line in list(self.served.log))

    def stop(self, signum=signal.SIGTERM):
        if self.served.process.poll() is None:
            self.served.process.send_signal(signum)
        return self.served.process.wait(timeout=15)


@dataclass
class Layout:
    url: str  # the balancer's
    balancer: Nginx
    machines: list
    settings: dict

    @property
    def certificate(self):
        return self.balancer.certificate

    def get(self, path, **options):
        return requests.get(f"{self.url}{path}", verify=self.certificate, timeout=15, **options)

    def post(self, path, **options):
        return requests.post(f"{self.url}{path}", verify=self.certificate, timeout=15, **options)

    def sign_in(self, url=None, username="root", **headers):
        """The Authorization header of a session made through `url` (default: the balancer)."""
        form = {"username": username, "password": PASSWORD}
        reply = requests.post(
            f"{url or self.url}/auth/token", data=form, headers=headers, verify=self.certificate, timeout=15
        )
        assert reply.status_code == 200, reply.text
        return {"Authorization": f"Bearer {reply.json()['access_token']}"}

    def served_by(self, request_ids):
        """Which machines answered the requests of these ids (their logs are read for up to 10 s: a busy
        machine may write late)."""
        found, deadline = {}, time.monotonic() + 10
        while len(found) < len(request_ids) and time.monotonic() < deadline:
            for request_id in request_ids:
                for m, machine in enumerate(self.machines):
                    if machine.answered(request_id):
                        found[request_id] = m
            time.sleep(0.02)
        assert len(found) == len(request_ids), "a request is in no machine's log"
        return set(found.values())

    def new_meetup(self, root):
        """A new org's meetup (of the demo platform): the URL of its door list."""
        slug = f"org-{uuid.uuid4().hex[:8]}"
        org = self.post("/organizations/", json={"name": slug, "slug": slug}, headers=root)
        assert org.status_code == 201, org.text
        org_id = org.json()["id"]
        meetup = self.post(f"/organizations/{org_id}/meetups/", json={"platform_url": EVENT}, headers=root)
        assert meetup.status_code == 201, meetup.text
        return f"/organizations/{org_id}/meetups/{meetup.json()['id']}"


@pytest.fixture(scope="module")
def layout(postgres, tmp_path_factory):
    reason = nginx_missing()
    if reason:
        if os.environ.get("DOOR_REQUIRE_NGINX") == "1":
            pytest.fail(f"DOOR_REQUIRE_NGINX=1 but {reason}")
        pytest.skip(f"the several-machines page is not tried: {reason}")
    database, balancer = postgres.database(postgres.template), Nginx()
    settings = documented(
        block("sh"),
        {
            "postgresql://door:PASSWORD@db.example.org:5432/door": database,
            "DOOR_HOST=0.0.0.0": "DOOR_HOST=127.0.0.1",  # nothing of a test is open to the network
            "DOOR_PORT=8080": "DOOR_PORT=0",
            "DOOR_TRUSTED_PROXIES=10.0.0.2": "DOOR_TRUSTED_PROXIES=127.0.0.1",
            "https://door.example.org/": f"https://127.0.0.1:{balancer.port}/",
        },
    )
    settings = dict(re.findall(r"^export (\w+)=(\S+)$", settings, re.M))
    folders = [tmp_path_factory.mktemp("machine") for _ in range(2)]
    first = door_env(**settings, DOOR_DATA_DIR=str(folders[0]))
    made = doorapp(first, "create-admin", "root", "--password-stdin", stdin=PASSWORD + "\n")
    assert made.returncode == 0, made.stderr
    machines = [Machine({**settings, "DOOR_DATA_DIR": str(folder)}) for folder in folders]
    try:
        conf = documented(
            block("nginx"),
            {
                "10.0.0.11:8080": machines[0].address,
                "10.0.0.12:8080": machines[1].address,
                "listen 443 ssl;": f"listen 127.0.0.1:{balancer.port} ssl;",
                "/etc/ssl/door/fullchain.pem": balancer.certificate,
                "/etc/ssl/door/privkey.pem": balancer.key,
            },
        )
        balancer.start(conf)
        yield Layout(f"https://127.0.0.1:{balancer.port}", balancer, machines, settings)
    finally:
        balancer.stop()
        for machine in machines:
            machine.stop(signal.SIGKILL)
        postgres.drop(database)


def tagged():
    return {"X-Request-ID": uuid.uuid4().hex}


def test_a_session_made_on_one_machine_is_honoured_on_the_other_twenty_times_in_a_row(layout):
    token = layout.sign_in(layout.machines[0].url)  # made by the first machine, not through the balancer
    tags = [tagged() for _ in range(20)]
    answers = [layout.get("/auth/userinfo", headers={**token, **tag}) for tag in tags]
    assert [a.status_code for a in answers] == [200] * 20, [a.text for a in answers if a.status_code != 200]
    assert {a.json()["username"] for a in answers} == {"root"}
    assert layout.served_by([tag["X-Request-ID"] for tag in tags]) == {0, 1}


def test_the_phones_screen_of_every_machine_shows_the_balancers_address(layout):
    root = layout.sign_in()
    shown = [layout.get("/phones", headers=root).json()["urls"] for _ in range(2)]
    assert [[u["url"] for u in urls] for urls in shown] == [[layout.settings["DOOR_PUBLIC_URL"]]] * 2


def test_a_check_in_shows_in_every_machines_door_list_at_once(layout):
    root = layout.sign_in()
    meetup = layout.new_meetup(root)
    listed = [layout.get(f"{meetup}/guests", headers=root) for _ in range(2)]  # both machines render it
    etag = listed[0].headers["ETag"]
    assert {r.headers["ETag"] for r in listed} == {etag}
    walked_in = layout.post(f"{meetup}/local-walkins", json={"displayname": "Ona"}, headers=root)
    assert walked_in.status_code == 201, walked_in.text
    seen = []
    for _ in range(4):  # a door polls; each poll may go anywhere, and every one after the walk-in has it
        tag = tagged()
        poll = layout.get(f"{meetup}/guests", headers={**root, **tag, "If-None-Match": etag})
        seen.append(
            (
                tag["X-Request-ID"],
                poll.status_code,
                poll.status_code == 200 and poll.json()["counts"]["arrived"],
            )
        )
    assert {(status, arrived) for _, status, arrived in seen} == {(200, 1)}, seen
    assert layout.served_by([request_id for request_id, _, _ in seen]) == {0, 1}


def test_failed_sign_ins_are_counted_across_machines(layout):
    username, phone = f"target-{uuid.uuid4().hex[:6]}", {"X-Forwarded-For": "198.51.100.7"}
    made = layout.post("/auth/register", json={"username": username, "password": PASSWORD})
    assert made.status_code == 201, made.text
    tags = [tagged() for _ in range(10)]
    form = {"username": username, "password": "not the password at all"}
    wrong = [layout.post("/auth/token", data=form, headers={**phone, **tag}).status_code for tag in tags]
    assert wrong == [401] * 10
    assert layout.served_by([tag["X-Request-ID"] for tag in tags]) == {0, 1}
    locked = [layout.post("/auth/token", data=form, headers=phone) for _ in range(2)]  # on either machine
    assert [(r.status_code, r.json()["code"]) for r in locked] == [(429, "rate_limited")] * 2


def test_a_machine_with_another_signing_key_refuses_to_start_in_one_line(layout, tmp_path):
    env = door_env(**layout.settings, DOOR_DATA_DIR=str(tmp_path), DOOR_SECRET_KEY=OTHER_KEY)
    started = subprocess.run([DOORAPP, "serve"], capture_output=True, text=True, env=env, timeout=60)
    lines = [line for line in started.stderr.splitlines() if line.strip()]
    assert started.returncode != 0 and len(lines) == 1, started.stderr
    with psycopg.connect(layout.settings["DATABASE_URL"]) as connection:
        [kept] = connection.execute("SELECT secret FROM signing_key").fetchone()
    assert lines[0] == re.search(r"^\s*(DOOR_SECRET_KEY differs .*)$", PAGE.read_text(), re.M)[1]  # as quoted
    assert OTHER_KEY not in started.stderr
    assert kept not in started.stderr + started.stdout


def test_a_machine_restarted_under_traffic_loses_no_request(layout):
    root = layout.sign_in()
    meetup, stop, replies = layout.new_meetup(root), threading.Event(), []

    def door(name):  # a door letting people in one after another, never sending one again
        number = 0
        while not stop.is_set():
            number += 1
            try:
                person = {"displayname": f"{name} {number}"}
                reply = layout.post(f"{meetup}/local-walkins", json=person, headers=root)
                replies.append((reply.status_code, reply.text[:200]))
            except requests.RequestException as error:
                replies.append((None, repr(error)))

    doors = [threading.Thread(target=door, args=(name,)) for name in ("Ada", "Bea")]
    for thread in doors:
        thread.start()
    time.sleep(0.5)
    first = layout.machines[0]
    assert first.stop(signal.SIGTERM) == 0
    first.start()
    time.sleep(0.5)
    stop.set()
    for thread in doors:
        thread.join(timeout=30)
    failed = [reply for reply in replies if reply[0] != 201]
    assert len(replies) > 10 and not failed, (failed, layout.balancer.errors())
    arrived = layout.get(f"{meetup}/guests", headers=root).json()["guests"]
    assert sorted(g["rsvp"]["arrival_order"] for g in arrived if g["rsvp"]["has_arrived"]) == list(
        range(1, len(replies) + 1)
    )


def test_forty_check_ins_with_a_machine_killed_halfway_are_numbered_once_each(layout):
    """Last: it leaves one machine down. A door sends again, with its Idempotency-Key, whatever got no
    answer or a 502 (the killed machine's requests in flight)."""
    root = layout.sign_in()
    meetup, answered = layout.new_meetup(root), []
    keys = [uuid.uuid4().hex for _ in range(40)]

    def check_in(i):
        for _ in range(150):
            try:
                reply = layout.post(
                    f"{meetup}/local-walkins",
                    json={"displayname": f"Guest {i:02}"},
                    headers={**root, "Idempotency-Key": keys[i]},
                )
            except requests.ConnectionError:
                reply = None
            if reply is not None and reply.status_code == 201:
                answered.append(i)
                return reply.json()
            assert reply is None or reply.status_code in (502, 503, 504), reply.text
            time.sleep(0.1)
        raise AssertionError(f"check-in {i} was never answered")

    def kill_halfway():
        while len(answered) < 20:
            time.sleep(0.002)
        layout.machines[1].stop(signal.SIGKILL)

    killer = threading.Thread(target=kill_halfway)
    killer.start()
    entries = at_once(40, check_in)
    killer.join(timeout=30)
    assert layout.machines[1].served.process.poll() is not None  # it was killed while doors checked in
    assert sorted(e["rsvp"]["arrival_order"] for e in entries) == list(range(1, 41))
    events = layout.get(
        "/organizations/" + meetup.split("/")[2] + "/events/",
        params={"type": "WALKIN", "meetup_id": meetup.split("/")[4], "limit": 200},
        headers=root,
    ).json()
    names = sorted(e["guest"]["displayname"] for e in events["events"])
    assert events["total"] == 40 and names == [f"Guest {i:02}" for i in range(40)]
    listed = layout.get(f"{meetup}/guests", headers=root).json()
    assert listed["counts"]["arrived"] == 40
