"""The signing key (doorapp/keys.py) as machines share it: SQLite keeps secret.key; on PostgreSQL the
database keeps the key, so independent servers (a data folder each) sign and verify alike; DOOR_SECRET_KEY
still wins, and a machine whose key is not its database's refuses to start; `doorapp rotate-key` ends
every session, on every machine, and the machines that did not rotate take the new key up."""

from contextlib import ExitStack

import jwt
import psycopg
import pytest
import requests
from doors import PASSWORD, doorapp, sign_in
from helpers import DOORAPP, Served, at_once, door_env, served

OTHER_KEY = "another-signing-key-that-is-long-enough-for-hs256"
ROTATED = "Door's signing key was changed (doorapp rotate-key)"
DEMO_EVENT = "https://demo.door.invalid/night-owls/summer-social"


def settings(folder, database_url=None, **more):
    """A machine's environment: its own data folder, the shared database when given."""
    return {"DOOR_DATA_DIR": str(folder), **({"DATABASE_URL": database_url} if database_url else {}), **more}


def start(stack, env):
    return stack.enter_context(served(DOORAPP, "serve", "--port", "0", env=env))


def with_admin(env):
    made = doorapp(door_env(**env), "create-admin", "root", "--password-stdin", stdin=PASSWORD + "\n")
    assert made.returncode == 0, made.stderr


def userinfo(url, headers):
    return requests.get(f"{url}/auth/userinfo", headers=headers, timeout=10)


@pytest.fixture
def database(postgres):
    url = postgres.database(postgres.template)
    yield url
    postgres.drop(url)


def kept_key(database_url):
    """(secret, fingerprint) as the database keeps them."""
    with psycopg.connect(database_url) as connection:
        return connection.execute("SELECT secret, fingerprint FROM signing_key").fetchone()


def test_machines_on_one_postgresql_share_the_key_it_keeps_and_rotate_it_together(database, tmp_path):
    first, second = settings(tmp_path / "a", database), settings(tmp_path / "b", database)
    with_admin(first)
    with ExitStack() as stack:
        a, b = start(stack, first), start(stack, second)
        token = sign_in(a.url, "root")
        assert [userinfo(b.url, token).status_code for _ in range(5)] == [200] * 5
        assert not (tmp_path / "a" / "secret.key").exists() and not (tmp_path / "b" / "secret.key").exists()
        secret, _ = kept_key(database)
        assert jwt.decode(token["Authorization"][7:], secret, algorithms=["HS256"])["sub"] == "root"

        rotated = doorapp(door_env(**first), "rotate-key")
        assert rotated.returncode == 0 and "every session has ended" in rotated.stdout, rotated.stderr
        assert kept_key(database)[0] != secret and secret not in rotated.stdout
        for url in (a.url, b.url):  # b has not read the new key yet: the database ended the session
            ended = userinfo(url, token)
            assert (ended.status_code, ended.json()["code"]) == (401, "invalid_token")
            assert "sign in again" in ended.json()["detail"]
        fresh = sign_in(b.url, "root")  # signed with the new key, read at sign-in
        assert userinfo(a.url, fresh).status_code == 200  # a reads the new key when a token names it
        again = sign_in(a.url, "root")
        assert userinfo(b.url, again).status_code == 200
        assert (userinfo(a.url, token).status_code, userinfo(a.url, token).json()["detail"][:51]) == (
            401,
            ROTATED,
        )


def test_two_machines_started_at_once_on_an_empty_database_make_one_key(postgres, tmp_path):
    empty = postgres.database()  # not migrated: both start migrating it at the same moment
    envs = [door_env(**settings(tmp_path / name, empty)) for name in ("a", "b")]
    machines = at_once(2, lambda i: Served([DOORAPP, "serve", "--port", "0"], envs[i]))
    try:
        code = [m.setup_code for m in machines if m.setup_code]
        assert len(code) == 1
        made = requests.post(
            f"{machines[0].url}/setup",
            json={"code": code[0], "username": "root", "password": PASSWORD},
            timeout=10,
        )
        assert made.status_code == 201, made.text
        assert userinfo(machines[1].url, sign_in(machines[0].url, "root")).status_code == 200
        assert userinfo(machines[0].url, sign_in(machines[1].url, "root")).status_code == 200
    finally:
        for machine in machines:
            assert machine.stop() == 0
        postgres.drop(empty)


def test_a_rotated_sqlite_key_is_taken_up_by_the_running_server(tmp_path):
    env = settings(tmp_path)
    with_admin(env)
    key = tmp_path / "secret.key"
    with ExitStack() as stack:
        door = start(stack, env)
        token, before = sign_in(door.url, "root"), key.read_text()
        rotated = doorapp(door_env(**env), "rotate-key")
        assert rotated.returncode == 0 and "every session has ended" in rotated.stdout, rotated.stderr
        assert key.read_text() != before and before.strip() not in rotated.stdout
        assert userinfo(door.url, token).status_code == 401
        fresh = sign_in(door.url, "root")
        assert userinfo(door.url, fresh).status_code == 200
        secret = key.read_text().strip()
        assert jwt.decode(fresh["Authorization"][7:], secret, algorithms=["HS256"])["sub"] == "root"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("secret.key")] == ["secret.key"]


def refusal(env):
    """A start that must fail: its one line on standard error."""
    started = doorapp(door_env(**env), "serve", "--port", "0")
    lines = [line for line in started.stderr.splitlines() if line.strip()]
    assert started.returncode != 0 and len(lines) == 1 and "Traceback" not in started.stderr, started.stderr
    return lines[0]


def test_a_machine_whose_key_differs_from_its_databases_refuses_to_start_without_showing_either(
    database, tmp_path
):
    with ExitStack() as stack:
        start(stack, settings(tmp_path / "a", database))  # the database keeps the key it made
        secret, _ = kept_key(database)
        said = refusal(settings(tmp_path / "b", database, DOOR_SECRET_KEY=OTHER_KEY))
    assert "DOOR_SECRET_KEY differs" in said and OTHER_KEY not in said and secret not in said


def test_machines_that_sign_with_door_secret_key_agree_through_its_fingerprint(database, tmp_path):
    first = settings(tmp_path / "a", database, DOOR_SECRET_KEY=OTHER_KEY)
    with_admin(first)
    secret, fingerprint = kept_key(database)
    assert secret is None and OTHER_KEY not in fingerprint  # the key itself stays in the environment
    said = refusal(settings(tmp_path / "b", database))
    assert "sign with a DOOR_SECRET_KEY" in said
    with ExitStack() as stack:
        a = start(stack, first)
        b = start(stack, settings(tmp_path / "b", database, DOOR_SECRET_KEY=OTHER_KEY))
        assert userinfo(b.url, sign_in(a.url, "root")).status_code == 200

        new_key = OTHER_KEY.replace("another", "a-newer")
        rotated = doorapp(door_env(**{**first, "DOOR_SECRET_KEY": new_key}), "rotate-key")
        assert rotated.returncode == 0 and "restart them" in rotated.stdout, rotated.stderr
        stale = requests.post(
            f"{a.url}/auth/token", data={"username": "root", "password": PASSWORD}, timeout=10
        )  # a machine still on the old key signs no one in: its tokens would be refused elsewhere
        assert (stale.status_code, stale.json()["code"]) == (503, "service_unavailable")
        c = start(stack, settings(tmp_path / "c", database, DOOR_SECRET_KEY=new_key))
        assert userinfo(c.url, sign_in(c.url, "root")).status_code == 200
    assert "DOOR_SECRET_KEY differs" in refusal(first)
    kept = doorapp(door_env(**settings(tmp_path / "a", database)), "rotate-key")  # back to the database's key
    assert kept.returncode == 0 and "unset DOOR_SECRET_KEY on every machine" in kept.stdout, kept.stderr
    assert kept_key(database)[0] is not None
    with ExitStack() as stack:
        a = start(stack, settings(tmp_path / "a", database))
        assert userinfo(a.url, sign_in(a.url, "root")).status_code == 200


def test_rotate_key_ends_every_door_pass_on_every_machine_at_its_next_request(database, tmp_path):
    """A lost phone is out after one rotate-key: its pass ends with the key, on the machine that rotated
    and on one that has not read the new key yet, and a pairing code not yet used pairs nobody."""
    first, second = settings(tmp_path / "a", database), settings(tmp_path / "b", database)
    with_admin(first)
    with ExitStack() as stack:
        a, b = start(stack, first), start(stack, second)
        root = sign_in(a.url, "root")
        org = requests.post(
            f"{a.url}/organizations/", json={"name": "Owls", "slug": "owls"}, headers=root, timeout=10
        )
        url = f"{a.url}/organizations/{org.json()['id']}"
        made = requests.post(
            f"{url}/meetups/", json={"platform_url": DEMO_EVENT}, headers=root, timeout=10
        ).json()
        door = f"/organizations/{org.json()['id']}/meetups/{made['id']}/guests"
        passes = [
            requests.post(f"{url}/passes", json={"label": f"Phone {n}"}, headers=root, timeout=10)
            for n in (1, 2)
        ]
        paired = requests.post(
            f"{b.url}/auth/pass", json={"code": passes[0].json()["pairing"]["code"]}, timeout=10
        )
        phone = {"Authorization": f"Bearer {paired.json()['access_token']}"}
        assert [requests.get(m.url + door, headers=phone, timeout=10).status_code for m in (a, b)] == [
            200,
            200,
        ]
        rotated = doorapp(door_env(**first), "rotate-key")
        assert rotated.returncode == 0, rotated.stderr
        for machine in (b, a):  # b has not read the new key: the pass's row says it ended
            ended = requests.get(machine.url + door, headers=phone, timeout=10)
            assert (ended.status_code, ended.json()["code"]) == (401, "pass_ended")
        unused = requests.post(
            f"{b.url}/auth/pass", json={"code": passes[1].json()["pairing"]["code"]}, timeout=10
        )
        assert (unused.status_code, unused.json()["code"]) == (403, "invalid_pass_code")
        root = sign_in(a.url, "root")
        listed = requests.get(f"{url}/passes", headers=root, timeout=10).json()["passes"]
        assert all(p["revoked_at"] for p in listed)
        audit = requests.get(
            f"{url}/events/", params={"type": "PASS_REVOKED"}, headers=root, timeout=10
        ).json()
        assert sorted(e["details"]["label"] for e in audit["events"]) == ["Phone 1", "Phone 2"]
