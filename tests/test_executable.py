"""Smoke test of the one-file executable (dist/door, made by build/build.sh), as a club organizer runs it:
copied alone into an empty folder, started with no arguments and a bare environment, set up and used for a
check-in through the API, then stopped with SIGTERM, leaving nothing in the temporary folder.

Skipped when dist/door has not been built or is older than doorapp/, except in CI, where .ci/run builds it
and sets DOOR_REQUIRE_EXECUTABLE=1 so that a missing executable fails.
"""

import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from helpers import PASSWORD, Served

from doorapp import __version__

BUILT = Path(__file__).parent.parent / "dist" / ("door.exe" if sys.platform == "win32" else "door")


@pytest.fixture
def door(tmp_path):
    """The executable alone in an empty folder; an environment of nothing but PATH and an empty TMPDIR."""
    if not BUILT.exists():
        if os.environ.get("DOOR_REQUIRE_EXECUTABLE") == "1":
            pytest.fail(f"{BUILT} is missing: build/build.sh did not build it")
        pytest.skip(f"{BUILT} is not built; run build/build.sh to smoke-test it")
    sources = [
        path
        for path in (BUILT.parent.parent / "doorapp").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    newest = max(path.stat().st_mtime for path in sources)
    if newest > BUILT.stat().st_mtime and os.environ.get("DOOR_REQUIRE_EXECUTABLE") != "1":
        pytest.skip(f"{BUILT} is older than doorapp/; run build/build.sh to smoke-test it")
    folder, temp = tmp_path / "venue-laptop", tmp_path / "tmp"
    folder.mkdir()
    temp.mkdir()
    program = Path(shutil.copy2(BUILT, folder))
    return program, {"PATH": "/usr/bin:/bin", "TMPDIR": str(temp)}


def test_the_executable_runs_the_door_flow_and_stops_cleanly(door, client):
    program, env = door
    temp = Path(env["TMPDIR"])
    version = subprocess.run(
        [program, "--version"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert (version.returncode, version.stdout) == (0, f"door {__version__}\n")

    server = Served([str(program)], {**env, "DOOR_PORT": "0"})  # no arguments: serve, data beside the program
    try:
        url = server.url
        assert url.startswith("http://127.0.0.1:")
        assert requests.get(f"{url}/ping", timeout=10).json() == {"ping": "pong"}
        health = requests.get(f"{url}/health", timeout=10)
        assert health.status_code == 200 and health.json()["version"] == __version__
        assert health.json()["services"]["database"]["status"] == "healthy"
        for bundled in ("/", "/docs", "/static/swagger-ui/swagger-ui-bundle.js"):
            assert requests.get(f"{url}{bundled}", timeout=10).status_code == 200, bundled
        # Derived from the route table: the same without any .py source in the executable.
        assert requests.get(f"{url}/openapi.json", timeout=10).json() == client.get("/openapi.json").json

        setup = requests.post(
            f"{url}/setup",
            json={"code": server.setup_code, "username": "olga", "password": PASSWORD},
            timeout=10,
        )
        assert setup.status_code == 201
        token = requests.post(
            f"{url}/auth/token", data={"username": "olga", "password": PASSWORD}, timeout=10
        ).json()["access_token"]
        api = requests.Session()
        api.headers["Authorization"] = f"Bearer {token}"
        phones = api.get(f"{url}/phones", timeout=10).json()  # the QR library is bundled; its own name
        port = url.rsplit(":", 1)[1].rstrip("/")  # the command restarts this very door (path, port) open
        assert (
            phones["open_to_lan"]["command"]
            == f"{shlex.quote(str(program))} serve --host 0.0.0.0 --port {port}"
        )
        org = api.post(f"{url}/organizations/", json={"name": "Night Owls", "slug": "night-owls"}, timeout=10)
        assert org.status_code == 201
        meetups = f"{url}/organizations/{org.json()['id']}/meetups/"
        [first_url, *_] = api.get(f"{url}/platform", timeout=10).json()["example_urls"]
        meetup = api.post(meetups, json={"platform_url": first_url}, timeout=10)
        assert meetup.status_code == 201
        meetup_url = f"{meetups}{meetup.json()['id']}"
        assert api.post(f"{meetup_url}/sync", timeout=30).status_code == 200
        guests = api.get(f"{meetup_url}/guests", timeout=10).json()["guests"]
        guest_id = guests[0]["guest"]["platform_user_id"]
        checked_in = api.post(f"{meetup_url}/guests/{guest_id}/checkin", json={}, timeout=10)
        assert checked_in.status_code == 200
        assert checked_in.json()["rsvp"]["has_arrived"] and checked_in.json()["rsvp"]["arrival_order"] == 1
        events = api.get(
            f"{url}/organizations/{org.json()['id']}/events/", params={"type": "CHECK_IN"}, timeout=10
        ).json()["events"]
        assert [(e["event_type"], e["guest"]["platform_user_id"]) for e in events] == [("CHECK_IN", guest_id)]
        # the name search runs on the bundled `regex` (its Unicode script classes)
        found = api.get(f"{url}/guests/", params={"q": guests[0]["guest"]["username"]}, timeout=10).json()
        assert guest_id in [g["platform_user_id"] for g in found["guests"]]

        copied = subprocess.run(
            [program, "backup", f"{program.parent}/copies/"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert copied.returncode == 0, copied.stderr
        assert server.stop() == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    assert "Traceback" not in "".join(server.log)
    assert sorted(p.name for p in program.parent.iterdir()) == ["copies", "door", "door-data"]
    data = program.parent / "door-data"
    assert (data / "door.db").exists() and (data / "secret.key").exists() and not list(data.glob("door.db-*"))
    assert list(temp.iterdir()) == []  # the one-file launcher removed what it unpacked


def test_ctrl_c_in_its_console_stops_it_with_status_0_and_nothing_left(door):
    program, env = door
    server = Served([str(program)], {**env, "DOOR_PORT": "0"}, start_new_session=True)
    try:
        assert requests.get(f"{server.url}/ping", timeout=10).status_code == 200
        os.killpg(server.process.pid, signal.SIGINT)  # a terminal's Ctrl-C: the launcher and Door both get it
        assert server.process.wait(timeout=10) == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    assert "Traceback" not in "".join(server.log)
    assert list(Path(env["TMPDIR"]).iterdir()) == []
