"""The second hardening round, tried through `doorapp serve --workers 2` on SQLite and PostgreSQL: a guest
let in by name stays in the organization whose door let them in."""

from concurrent.futures import ThreadPoolExecutor

import argon2
import pytest
import requests
from helpers import DOORAPP, ENGINES, PASSWORD, SECRET, auth, next_week, served

from doorapp import access
from doorapp.app import create_app
from doorapp.config import Config
from doorapp.db import db
from doorapp.models import Ban, Guest, Meetup, MeetupGuest, Membership, Org, User

pytestmark = ENGINES


@pytest.fixture
def two_orgs(tmp_path, database_url):
    """A data folder with orgs A and B (a meetup each) and mia: member of A, ADMIN of B; then
    (the server's settings, the data, mia's headers)."""
    data_dir = tmp_path / "data"
    create_app(Config(data_dir=data_dir, secret_key=SECRET, database_url=database_url))
    made = {}
    for name in ("a", "b"):
        org = Org.create(name=f"Org {name}", slug=f"org-{name}")
        made[name] = Meetup.create(org=org, name=name, date=next_week(), platform_url=f"https://x/y/{name}")
    mia = User.create(username="mia", password_hash="x", is_approved=True)
    Membership.create(org=made["a"].org_id, user=mia, role="STAFF")
    Membership.create(org=made["b"].org_id, user=mia, role="ADMIN")
    headers = auth(mia)
    db.close()
    settings = {"DOOR_SECRET_KEY": SECRET, **({"DATABASE_URL": database_url} if database_url else {})}
    command = (DOORAPP, "serve", "--workers", "2", "--port", "0", "--data-dir", data_dir)
    return command, settings, made, headers


def reopen(command, settings):
    """The served database, opened in this process to look at it."""
    create_app(Config(data_dir=command[-1], secret_key=SECRET, database_url=settings.get("DATABASE_URL")))


def test_a_guest_let_in_by_name_is_not_found_by_any_other_organization(two_orgs):
    command, settings, meetups, headers = two_orgs
    a, b = meetups["a"], meetups["b"]
    with served(*command, env=settings) as door:
        url = f"{door.url}/organizations"
        at_a = f"{url}/{a.org_id}/meetups/{a.id}"
        local = requests.post(
            f"{at_a}/local-walkins", json={"displayname": "Ana"}, headers=headers, timeout=30
        )
        assert local.status_code == 201, local.text
        local_id = local.json()["guest"]["platform_user_id"]
        version = requests.get(f"{at_a}/guests", headers=headers, timeout=30).headers["ETag"]
        in_b = f"{url}/{b.org_id}"
        tries = [
            ("post", f"{in_b}/meetups/{b.id}/guests/{local_id}/add-walkin", {}),
            ("post", f"{in_b}/meetups/{b.id}/guests/{local_id}/checkin", {}),
            ("patch", f"{in_b}/meetups/{b.id}/guests/{local_id}/excuse", {"reason": "x"}),
            ("patch", f"{in_b}/guests/{local_id}/ban", {"reason": "Loud"}),
            ("patch", f"{in_b}/guests/{local_id}/unban", None),
            ("patch", f"{in_b}/guests/{local_id}/link", {"username": "bobby_tables"}),
            ("get", f"{in_b}/guests/{local_id}/history", None),
            ("get", f"{in_b}/events/guests/{local_id}", None),
        ]
        for method, path, body in tries:
            reply = requests.request(method, path, json=body, headers=headers, timeout=30)
            assert (reply.status_code, reply.json()["code"]) == (404, "not_found"), (path, reply.text)
        assert requests.get(f"{at_a}/guests", headers=headers, timeout=30).headers["ETag"] == version
        # at A's own door it is a guest like any other
        mine = requests.get(f"{url}/{a.org_id}/guests/{local_id}/history", headers=headers, timeout=30)
        assert mine.status_code == 403  # mia is no ADMIN of A: the rule first, as for every guest
        assert door.stop() == 0
    reopen(command, settings)
    assert [e.meetup_id for e in MeetupGuest.select().where(MeetupGuest.guest == local_id)] == [a.id]
    assert str(Guest.get_by_id(local_id).org_id) == str(a.org_id)
    db.close()


def test_linking_moves_only_the_path_organizations_entries_and_bans(two_orgs):
    """A guest crossed into another org before this round (B's list and ban, kept by the migration's
    owner rule) is linked by its own org A: only A's entry and ban move, and A's door lists move on."""
    command, settings, meetups, headers = two_orgs
    a, b = meetups["a"], meetups["b"]
    reopen(command, settings)
    local = Guest.create_local("Ana", a.org_id)
    for meetup in (a, b):
        MeetupGuest.create(meetup=meetup, guest=local, is_walkin=True)
    for meetup in (a, b):
        Ban.create(org=meetup.org_id, guest=local, reason=f"in {meetup.name}")
    Membership.update(role="ADMIN").where(Membership.org == a.org_id).execute()
    db.close()
    with served(*command, env={**settings, "PLATFORM": "demo"}) as door:
        at_a = f"{door.url}/organizations/{a.org_id}"
        lists = {m.name: f"{door.url}/organizations/{m.org_id}/meetups/{m.id}/guests" for m in (a, b)}
        before = {n: requests.get(u, headers=headers, timeout=30).headers["ETag"] for n, u in lists.items()}
        linked = requests.patch(
            f"{at_a}/guests/{local.platform_user_id}/link",
            json={"username": "bobby_tables"},
            headers=headers,
            timeout=30,
        )
        after = {n: requests.get(u, headers=headers, timeout=30).headers["ETag"] for n, u in lists.items()}
        assert door.stop() == 0
    assert linked.status_code == 200, linked.text
    assert after["a"] != before["a"] and after["b"] == before["b"]
    reopen(command, settings)
    platform_id = linked.json()["platform_user_id"]
    owners = {str(e.meetup.org_id): e.guest_id for e in MeetupGuest.select()}
    bans = {str(ban.org_id): ban.guest_id for ban in Ban.select()}
    db.close()
    assert owners == {str(a.org_id): platform_id, str(b.org_id): local.platform_user_id}
    assert bans == owners


def test_control_characters_and_long_names_are_422_or_counted_never_a_500(two_orgs):
    """NUL before sign-in and in names and reasons, on both engines: 422 `control_characters`; a sign-in
    name of 400 characters is an ordinary wrong sign-in (its rate-limit key fits the column)."""
    command, settings, meetups, headers = two_orgs
    b = meetups["b"]
    with served(*command, env=settings) as door:
        at_b = f"{door.url}/organizations/{b.org_id}"
        sends = [
            ("post", "/auth/token", {"data": {"username": "a\x00b", "password": "x"}}, None),
            ("post", "/auth/verify-recovery-code", {"json": {"username": "a\x00b", "code": "1"}}, None),
            ("post", "/auth/register", {"json": {"username": "ann", "password": "a\x00" * 8}}, None),
            ("get", "/guests/by-username/a%00b", {}, headers),
            ("post", f"{at_b}/meetups/{b.id}/local-walkins", {"json": {"displayname": "A\x00na"}}, headers),
            ("patch", f"{at_b}/guests/1/ban", {"json": {"reason": "Loud\x1b[2J"}}, headers),
            ("post", f"{at_b}/meetups/", {"json": {"platform_url": "https://x/\x00"}}, headers),
            ("get", "/guests/", {"params": {"q": "a\x00"}}, headers),
        ]
        for method, path, send, auth_headers in sends:
            url = path if path.startswith("http") else door.url + path
            reply = requests.request(method, url, headers=auth_headers, timeout=30, **send)
            rules = [e["ctx"].get("rule") for e in reply.json().get("errors", [])]
            assert (reply.status_code, rules) == (422, ["control_characters"]), (path, reply.text)
        long = requests.post(
            f"{door.url}/auth/token", data={"username": "n" * 400, "password": "x"}, timeout=30
        )
        assert (long.status_code, long.json()["code"]) == (401, "invalid_credentials")
        assert door.stop() == 0
    assert not [line for line in door.log if "Traceback" in line or " 500 " in line]


def test_a_demoted_site_admin_is_signed_out_and_cannot_promote_themselves_back(two_orgs):
    command, settings, _, _ = two_orgs
    reopen(command, settings)
    boss = User.create(username="boss", password_hash="x", is_approved=True, role="SITE_ADMIN")
    vic = User.create(username="vic", password_hash="x", is_approved=True, role="SITE_ADMIN")
    boss_headers, vic_headers = auth(boss), auth(vic)
    db.close()
    with served(*command, env=settings) as door:
        demoted = requests.patch(
            f"{door.url}/staff/{vic.id}/role", json={"role": "USER"}, headers=boss_headers, timeout=30
        )
        back = requests.patch(
            f"{door.url}/staff/{vic.id}/role", json={"role": "SITE_ADMIN"}, headers=vic_headers, timeout=30
        )
        assert door.stop() == 0
    assert demoted.status_code == 200 and (back.status_code, back.json()["code"]) == (401, "invalid_token")


@pytest.mark.parametrize(
    ("name", "status"),
    [("r\u043e\u043et", 422), ("p\u0430ypal", 422), ("\u0410\u043b\u0435\u043a\u0441\u0435\u0439", 201)]
    + [
        ("\u5c71\u7530\u305f\u308d\u3046", 201),
        ("\u0391\u03b8\u03b7\u03bd\u03ac", 201),
        ("zo\u00eb_99", 201),
    ],
)
def test_a_username_mixing_scripts_is_refused_one_in_its_own_script_welcome(two_orgs, name, status):
    command, settings, _, _ = two_orgs
    with served(*command, env=settings) as door:
        reply = requests.post(
            f"{door.url}/auth/register", json={"username": name, "password": PASSWORD}, timeout=30
        )
        assert door.stop() == 0
    assert reply.status_code == status, reply.text
    if status == 422:
        assert reply.json()["errors"][0]["ctx"] == {"rule": "username_confusable"}


def sign_in(url, username, password=PASSWORD, client="203.0.113.1"):
    return requests.post(
        f"{url}/auth/token",
        data={"username": username, "password": password},
        headers={"X-Forwarded-For": client},
        timeout=30,
    )


@pytest.fixture
def ann(two_orgs):
    """Two workers behind a trusted proxy, and ann, who signs in with PASSWORD: (the server's command,
    settings)."""
    command, settings, _, _ = two_orgs
    reopen(command, settings)
    User.create(username="ann", password_hash=access.hash_secret(PASSWORD), is_approved=True)
    db.close()
    return command, {**settings, "DOOR_TRUSTED_PROXIES": "127.0.0.1"}


def test_right_passwords_count_too_and_wrong_current_ones_never_lock_the_sign_in(ann):
    command, settings = ann
    with served(*command, env=settings) as door:
        token = sign_in(door.url, "ann").json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        wrong = {"current_password": "not it at all", "new_password": "a brand new password for ann"}
        changes = [
            requests.patch(f"{door.url}/auth/password", json=wrong, headers=headers, timeout=30).status_code
            for _ in range(11)
        ]
        assert changes == [401] * 10 + [429]
        signed_in = [sign_in(door.url, "ann").status_code for _ in range(29)]  # 30 with the first
        assert signed_in == [200] * 29
        over = sign_in(door.url, "ann")
        other_address = sign_in(door.url, "ann", client="203.0.113.2")
        assert door.stop() == 0
    assert over.status_code == 429 and "Retry-After" in over.headers
    assert other_address.status_code == 429  # per username too


def test_a_flood_of_sign_ins_waits_a_bounded_time_for_the_hasher_then_gets_429(ann):
    command, settings = ann
    # 48 people whose hashes were made with costlier parameters than today's (verifying one takes about
    # a fifth of a second): the hasher, not the rate limits' durable writes before it, is what they wait for
    costly = argon2.PasswordHasher(time_cost=8, memory_cost=64 * 1024, parallelism=1).hash(PASSWORD)
    reopen(command, settings)
    User.insert_many(
        [{"username": f"flood{n}", "password_hash": costly, "is_approved": True} for n in range(48)]
    ).execute()
    db.close()
    with served(*command, env=settings) as door:

        def flood(n):
            reply = sign_in(door.url, f"flood{n}", client=f"198.51.100.{n}")
            return reply.status_code, reply.elapsed.total_seconds(), reply.json().get("detail", "")

        with ThreadPoolExecutor(48) as pool:
            answers = list(pool.map(flood, range(48)))
        assert door.stop() == 0
    assert max(seconds for _, seconds, _ in answers) < 10
    assert {status for status, _, _ in answers} == {200, 429}, answers
    assert all("busy checking passwords" in detail for status, _, detail in answers if status == 429), answers


def test_platform_look_ups_of_unknown_names_are_limited_per_account(ann):
    command, settings = ann
    with served(*command, env=settings) as door:
        headers = {"Authorization": f"Bearer {sign_in(door.url, 'ann').json()['access_token']}"}

        def look_up(name):
            return requests.post(f"{door.url}/guests/", json={"username": name}, headers=headers, timeout=30)

        found = look_up("bobby_tables")
        misses = [look_up(f"nobody_at_all_{n}").status_code for n in range(31)]
        assert door.stop() == 0
    assert found.status_code == 201  # a look-up that finds someone is not counted
    assert misses == [404] * 30 + [429]
