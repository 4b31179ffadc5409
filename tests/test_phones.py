"""How phones join (issue 9, item 6): the address `serve` prints and GET /phones answers, with its QR code.
Over real `doorapp serve` processes: what is printed and what the running server says must agree."""

import os
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import requests
from helpers import DOORAPP, PASSWORD, door_env, served

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = str(Path(DOORAPP).parent)


def open_to_lan(command):
    return (
        "Only this computer can open Door. To let phones on the venue network in, start it with "
        f"`{command}` (or set DOOR_HOST=0.0.0.0)."
    )


def phones_seen_by_an_admin(door):
    """GET /phones on the served Door as the site admin made with the setup code it printed."""
    admin = {"code": door.setup_code, "username": "olga", "password": PASSWORD}
    requests.post(f"{door.url}/setup", json=admin, timeout=10).raise_for_status()
    token = requests.post(
        f"{door.url}/auth/token", data={"username": "olga", "password": PASSWORD}, timeout=10
    ).json()["access_token"]
    reply = requests.get(f"{door.url}/phones", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert reply.status_code == 200, reply.text
    return reply.json()


def phones_line(door):
    [line] = [line for line in door.lines if "phones" in line.lower()]
    return line


def is_this_computers(address):
    """True when `address` is one of this computer's own (binding to it works; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((address, 0))
            return True
        except OSError:
            return False


def test_on_localhost_serve_and_the_phones_screen_say_how_to_let_phones_in(tmp_path):
    """The command names this Door's own port and data folder, and doorapp by name where PATH finds it."""
    path = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path, env={"PATH": path}) as door:
        port = int(urlsplit(door.url).port)
        command = f"doorapp serve --host 0.0.0.0 --port {port} --data-dir {tmp_path}"
        assert phones_line(door) == open_to_lan(command)
        seen = phones_seen_by_an_admin(door)
        assert seen == {
            "listening": {"host": "127.0.0.1", "port": port},
            "urls": [],
            "open_to_lan": {"command": command, "setting": "DOOR_HOST=0.0.0.0"},
        }
        assert door.stop() == 0


def test_the_command_is_the_launcher_that_started_this_door(tmp_path):
    """./dev serve says ./dev serve (its doorapp is not on a ./dev user's PATH); python -m doorapp says that;
    a doorapp that PATH would not find is named by its path; the default port is left out."""
    data = tmp_path / "my data"
    dev_env = {"PATH": os.environ.get("PATH", "").replace(VENV_BIN + os.pathsep, "")}
    with served(ROOT / "dev", "serve", "--port", "0", "--data-dir", data, env=dev_env) as door:
        port = int(urlsplit(door.url).port)
        command = f"./dev serve --host 0.0.0.0 --port {port} --data-dir '{data}'"
        assert phones_line(door) == open_to_lan(command)
        assert phones_seen_by_an_admin(door)["open_to_lan"]["command"] == command
        assert door.stop() == 0
    with served(sys.executable, "-m", "doorapp", "serve", "--port", "0", "--data-dir", tmp_path) as door:
        port = int(urlsplit(door.url).port)
        assert f"`{sys.executable} -m doorapp serve --host 0.0.0.0 --port {port} --data-dir" in phones_line(
            door
        )
        assert door.stop() == 0
    free = free_port(8080)
    bare = {"PATH": "/usr/bin:/bin"}
    with served(DOORAPP, "serve", "--port", free, "--data-dir", tmp_path, env=bare) as door:
        expected = f"{DOORAPP} serve --host 0.0.0.0" + ("" if free == 8080 else f" --port {free}")
        assert phones_line(door) == open_to_lan(f"{expected} --data-dir {tmp_path}")
        assert door.stop() == 0


def free_port(wanted):
    """`wanted` when nothing listens on it here, else any free port."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", wanted))
        except OSError:
            probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_on_every_address_serve_prints_this_computers_lan_address_and_the_screen_shows_the_same(tmp_path):
    with served(DOORAPP, "serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", tmp_path) as door:
        port = urlsplit(door.url).port
        line = phones_line(door)
        assert line.startswith("Phones open http://") and line.endswith("shows its QR code)")
        printed = line.split()[2]
        address = urlsplit(printed)
        assert address.port == port and address.path == "/"
        assert not address.hostname.startswith("127.") and is_this_computers(address.hostname)
        seen = phones_seen_by_an_admin(door)  # asked over 127.0.0.1: the answer is still the LAN address
        assert [u["url"] for u in seen["urls"]] == [printed] and seen["open_to_lan"] is None
        assert seen["urls"][0]["qr_svg"].startswith("data:image/svg+xml")
        assert door.stop() == 0


def test_behind_a_reverse_proxy_the_public_url_is_the_one_shown(tmp_path):
    public = "https://door.example.org/"
    settings = {"DOOR_PUBLIC_URL": public}
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path, env=settings) as door:
        assert phones_line(door) == f"Phones open {public}  (admins: the Phones screen shows its QR code)"
        seen = phones_seen_by_an_admin(door)
        assert [u["url"] for u in seen["urls"]] == [public] and seen["open_to_lan"] is None
        svg = unquote(seen["urls"][0]["qr_svg"].split(",", 1)[1])
        assert svg.startswith("<svg") and "<path fill='#fff'" in svg  # a light quiet zone on a dark screen
        assert door.stop() == 0


@pytest.mark.parametrize("bad", ["door.example.org", "ftp://door.example.org/", "https://"])
def test_a_public_url_that_is_not_one_is_refused_at_start(tmp_path, bad):
    started = subprocess.run(
        [DOORAPP, "serve", "--port", "0", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=door_env(DOOR_PUBLIC_URL=bad),
        timeout=60,
        check=False,
    )
    assert started.returncode == 1
    assert f"DOOR_PUBLIC_URL must be an http:// or https:// address, not {bad!r}." in started.stderr


def test_an_org_admin_sees_it_and_door_staff_do_not(boss, door, org):
    assert boss.get("/phones").json["open_to_lan"]["command"] == "doorapp serve --host 0.0.0.0"
    assert door.get("/phones", status=403).json["code"] == "org_admin_required"
