"""The command line over real processes (README: "Command line"): help, version, serve, create-admin, keys."""

import json
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from dataclasses import fields
from urllib.parse import urlsplit

import jwt
import pytest
import requests
from helpers import DOORAPP, PASSWORD, SECRET, door_env, served

from doorapp import __version__
from doorapp.config import Config


def doorapp(*args, stdin="", **settings):
    return subprocess.run(
        [DOORAPP, *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        env=door_env(**settings),
        timeout=60,
        check=False,
    )


def sign_in(url, username, password=PASSWORD):
    return requests.post(f"{url}/auth/token", data={"username": username, "password": password}, timeout=10)


def test_help_lists_every_setting_and_command():
    shown = doorapp("--help")
    assert shown.returncode == 0
    for setting in fields(Config):
        assert setting.metadata["env"] in shown.stdout
    for command in ("serve", "create-admin", "backup"):
        assert command in shown.stdout
    assert "--no-browser" in doorapp("serve", "--help").stdout


def test_version_from_the_script_and_from_python_m():
    assert doorapp("--version").stdout == f"doorapp {__version__}\n"
    module = subprocess.run(
        [sys.executable, "-m", "doorapp", "--version"],
        capture_output=True,
        text=True,
        env=door_env(),
        timeout=60,
        check=False,
    )
    assert (module.returncode, module.stdout) == (0, f"doorapp {__version__}\n")


def test_no_command_shows_the_help_and_fails():
    shown = doorapp()
    assert shown.returncode == 2 and "usage: doorapp" in shown.stdout


def test_first_start_prints_the_url_and_a_setup_code_that_creates_the_first_admin(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        assert door.url.startswith("http://127.0.0.1:")
        assert door.lines[-1] == f"Door is running at {door.url}/  (Ctrl-C stops it)"
        assert requests.get(f"{door.url}/setup", timeout=10).json() == {"needed": True}
        setup = requests.post(
            f"{door.url}/setup",
            json={"code": door.setup_code, "username": "olga", "password": PASSWORD},
            timeout=10,
        )
        assert setup.status_code == 201 and setup.json()["role"] == "SITE_ADMIN"
        assert sign_in(door.url, "olga").status_code == 200
        assert door.stop() == 0
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        assert door.setup_code is None
        assert not [line for line in door.lines if "Setup code" in line]
        assert requests.get(f"{door.url}/setup", timeout=10).json() == {"needed": False}
        assert door.stop() == 0


def test_a_wrong_setup_code_is_refused(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        wrong = requests.post(
            f"{door.url}/setup",
            json={"code": "AAAA-BBBB-CCCC", "username": "mallory", "password": PASSWORD},
            timeout=10,
        )
        assert (wrong.status_code, wrong.json()["code"]) == (403, "invalid_setup_code")
        assert door.stop() == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_ctrl_c_stop_it_with_status_0_and_no_database_journal_left(tmp_path, signum):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        assert requests.get(f"{door.url}/ping", timeout=10).json() == {"ping": "pong"}
        assert door.stop(signum) == 0
    assert (tmp_path / "door.db").exists() and not list(tmp_path.glob("door.db-*"))  # checkpointed, closed


def refused(url):
    """True once `url`'s port refuses connections (within 3 s)."""
    address, deadline = urlsplit(url), time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address.hostname, address.port), timeout=1).close()
        except ConnectionRefusedError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("workers", ["1", "2"])
def test_on_sigterm_serve_stops_accepting_answers_the_request_it_began_to_read_and_exits_0(tmp_path, workers):
    """What a rolling restart behind a balancer needs: the port refuses new connections at once (the
    balancer tries another machine), and the request already begun is read to its end and answered."""
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path, "--workers", workers) as door:
        body = json.dumps({"code": door.setup_code, "username": "olga", "password": PASSWORD}).encode()
        head = "POST /setup HTTP/1.1\r\nHost: door\r\nContent-Type: application/json\r\n"
        head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        address = urlsplit(door.url)
        with socket.create_connection((address.hostname, address.port), timeout=10) as begun:
            begun.sendall(head.encode() + body[:10])
            time.sleep(0.5)  # the server has read the headers and the body's start
            door.process.send_signal(signal.SIGTERM)
            assert refused(door.url)
            begun.sendall(body[10:])
            answer = b"".join(iter(lambda: begun.recv(65536), b""))
        assert answer.startswith(b"HTTP/1.1 201 "), answer[:200]
        assert door.process.wait(timeout=10) == 0


@pytest.mark.parametrize("workers", ["1", "2"])
def test_what_serve_writes_reaches_the_database_file_within_seconds_not_at_a_requests_checkpoint(
    tmp_path, workers
):
    """SQLite would copy the WAL into door.db only in the commit that fills 1,000 pages of it; serve's
    background checkpoints copy a single write within a few seconds (backup.Checkpointer)."""
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path, "--workers", workers) as door:
        setup = requests.post(
            f"{door.url}/setup",
            json={"code": door.setup_code, "username": "olga", "password": PASSWORD},
            timeout=10,
        )
        assert setup.status_code == 201
        found, deadline = [], time.monotonic() + 10
        while not found and time.monotonic() < deadline:
            time.sleep(0.5)
            shutil.copyfile(tmp_path / "door.db", tmp_path / "file-alone.db")  # without its -wal
            try:
                with sqlite3.connect(tmp_path / "file-alone.db") as copy:
                    found = copy.execute("SELECT username FROM user").fetchall()
            except sqlite3.DatabaseError:  # copied in the middle of a checkpoint; look again
                pass
            (tmp_path / "file-alone.db").unlink()
        assert found == [("olga",)]
        assert door.stop() == 0


def test_create_admin_works_while_the_service_runs(tmp_path):
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        created = doorapp(
            "create-admin", "ada", "--password-stdin", "--data-dir", tmp_path, stdin=PASSWORD + "\n"
        )
        assert (created.returncode, created.stdout) == (0, "Created site admin 'ada'.\n")
        token = sign_in(door.url, "ada").json()["access_token"]
        me = requests.get(
            f"{door.url}/auth/userinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10
        ).json()
        assert (me["username"], me["role"], me["is_approved"]) == ("ada", "SITE_ADMIN", True)
        assert requests.get(f"{door.url}/setup", timeout=10).json() == {"needed": False}
        assert door.stop() == 0


def test_create_admin_refuses_a_bad_password_or_a_taken_name_clearly(tmp_path):
    short = doorapp("create-admin", "ada", "--password-stdin", "--data-dir", tmp_path, stdin="short\n")
    assert short.returncode == 1
    assert short.stderr.startswith("Could not create 'ada': ") and "15" in short.stderr
    assert "Traceback" not in short.stderr
    assert (
        doorapp("create-admin", "ada", "--password-stdin", "--data-dir", tmp_path, stdin=PASSWORD).returncode
        == 0
    )
    taken = doorapp("create-admin", "ada", "--password-stdin", "--data-dir", tmp_path, stdin=PASSWORD)
    assert taken.returncode == 1 and "taken" in taken.stderr


def test_create_admin_without_a_terminal_or_stdin_flag_says_what_to_do(tmp_path):
    refused = doorapp("create-admin", "ada", "--data-dir", tmp_path)
    assert refused.returncode == 1 and "--password-stdin" in refused.stderr


def test_the_generated_signing_key_is_readable_by_its_owner_only_and_kept(tmp_path):
    assert (
        doorapp("create-admin", "ada", "--password-stdin", "--data-dir", tmp_path, stdin=PASSWORD).returncode
        == 0
    )
    key = tmp_path / "secret.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert len(key.read_text().strip()) >= 32
    before = key.read_text()
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        assert sign_in(door.url, "ada").status_code == 200
        assert door.stop() == 0
    assert key.read_text() == before


def test_a_short_door_secret_key_is_refused_clearly(tmp_path):
    refused = doorapp("serve", "--port", "0", "--data-dir", tmp_path, DOOR_SECRET_KEY="too-short")
    assert refused.returncode == 1
    assert refused.stderr.strip() == "DOOR_SECRET_KEY must be at least 32 bytes long."


def test_door_secret_key_signs_the_tokens_and_no_key_file_is_written(tmp_path):
    with served(
        DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path, env={"DOOR_SECRET_KEY": SECRET}
    ) as door:
        assert (
            requests.post(
                f"{door.url}/setup",
                json={"code": door.setup_code, "username": "olga", "password": PASSWORD},
                timeout=10,
            ).status_code
            == 201
        )
        token = sign_in(door.url, "olga").json()["access_token"]
        assert door.stop() == 0
    assert not (tmp_path / "secret.key").exists()
    assert jwt.decode(token, SECRET, algorithms=["HS256"])["sub"] == "olga"


def test_settings_come_from_the_environment(tmp_path):
    with served(DOORAPP, "serve", env={"DOOR_PORT": "0", "DOOR_DATA_DIR": str(tmp_path)}) as door:
        assert requests.get(f"{door.url}/health", timeout=10).status_code == 200
        assert door.stop() == 0
    assert (tmp_path / "door.db").exists()


def test_a_bad_number_setting_is_refused_clearly(tmp_path):
    refused = doorapp("serve", "--data-dir", tmp_path, DOOR_PORT="eighty")
    assert refused.returncode == 1 and "DOOR_PORT must be a number" in refused.stderr


def test_a_postgresql_backup_pg_dump_cannot_make_says_why_and_leaves_no_file(tmp_path):
    refused = doorapp("backup", tmp_path / "copy.dump", DATABASE_URL="postgresql://door@127.0.0.1:1/door")
    assert refused.returncode == 1
    assert "pg_dump" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "copy.dump").exists()


def test_an_unknown_database_url_is_refused_plainly(tmp_path):
    refused = doorapp(
        "create-admin",
        "alice",
        "--password-stdin",
        "--data-dir",
        tmp_path,
        stdin=PASSWORD,
        DATABASE_URL="mysql://door@localhost/door",
    )
    assert refused.returncode == 1
    assert refused.stderr == (
        "DATABASE_URL must be sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/NAME.\n"
    )


@pytest.mark.parametrize(
    "typed", [str.lower, lambda code: code.replace("-", " "), lambda code: code.replace("-", "")]
)
def test_the_setup_code_is_taken_as_a_person_types_it(tmp_path, typed):
    """In lower case, with spaces instead of dashes, or run together: the code printed, read off a screen."""
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        setup = requests.post(
            f"{door.url}/setup",
            json={"code": f" {typed(door.setup_code)} ", "username": "olga", "password": PASSWORD},
            timeout=10,
        )
        assert setup.status_code == 201, setup.text
        assert door.stop() == 0
