"""How phones on the venue network join: the address to open and a QR code of it (admins)."""

import ipaddress
import shlex
import shutil
import socket
import sys
from pathlib import Path
from typing import TypedDict

import segno
from bottle import request

from doorapp.access import any_org_admin
from doorapp.api import endpoint, settings
from doorapp.paths import FROZEN, PROG, default_data_dir

EVERY_ADDRESS = ("0.0.0.0", "::", "")
# A documentation address (RFC 5737, TEST-NET-2) that no network uses: connecting a UDP socket to it only
# asks this computer which of its addresses its default route would send from. Nothing is sent.
NOWHERE = ("198.51.100.1", 9)


class Listening(TypedDict):
    host: str
    port: int


class PhoneUrl(TypedDict):
    """An address phones open, with a QR code of it (an SVG data: URI)."""

    url: str
    qr_svg: str


class OpenToLan(TypedDict):
    """How to let phones in: the command that starts Door for them, or the setting."""

    command: str
    setting: str


class Phones(TypedDict):
    """Where phones open Door: none while only this computer can (`open_to_lan` says how to change that)."""

    listening: Listening
    urls: list[PhoneUrl]
    open_to_lan: OpenToLan | None


def lan_address():
    """This computer's address on its default network (the venue's Wi-Fi), or None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(NOWHERE)
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address


def only_this_computer(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name


def launcher(given=None):
    """How this Door was started, as a command to type again: `given` (./dev passes "./dev serve"), the
    one-file door as it was typed or clicked, `python -m doorapp`, or the doorapp script (by name when
    PATH finds that very one, else by its path)."""
    if given:
        return given
    program = sys.argv[0]
    if not FROZEN and Path(program).name == "__main__.py":
        return f"{shlex.quote(sys.executable)} -m doorapp serve"
    found = shutil.which(Path(program).name)
    if not FROZEN and found and Path(found).resolve() == Path(program).resolve():
        program = Path(program).name
    return f"{shlex.quote(program)} serve"


def lan_command(started, port, data_dir):
    """The command that starts this Door again open to the venue network: the same launcher (`started`),
    port and data folder."""
    command = f"{started} --host 0.0.0.0"
    if int(port) != 8080:
        command += f" --port {port}"
    if Path(data_dir).resolve() != default_data_dir().resolve():
        command += f" --data-dir {shlex.quote(str(data_dir))}"
    return command


def phone_access(host, port, public_url, command=None):
    """How phones reach a Door listening on host:port: {listening, urls, open_to_lan}. `urls` holds
    DOOR_PUBLIC_URL when set (a reverse proxy's address), else the address Door listens on (for 0.0.0.0:
    this computer's address on its network). It is empty when only this computer can open Door, and then
    `open_to_lan` says how to change that: `command` (lan_command), else the plain one."""
    urls, open_to_lan = [], None
    if public_url:
        urls = [public_url]
    elif only_this_computer(host):
        command = command or f"{PROG} serve --host 0.0.0.0"
        open_to_lan = {"command": command, "setting": "DOOR_HOST=0.0.0.0"}
    else:
        address = lan_address() if host in EVERY_ADDRESS else host
        if address:
            urls = [f"http://{f'[{address}]' if ':' in address else address}:{port}/"]
    return {"listening": {"host": host, "port": port}, "urls": urls, "open_to_lan": open_to_lan}


def qr_code(text):
    """A QR code of `text` as an SVG data: URI, made here with no network: black on white, with the
    four-module quiet zone scanners need (the screen is dark)."""
    return segno.make(text, error="m", micro=False).svg_data_uri(border=4, dark="#000", light="#fff")


@endpoint("GET", "/phones", auth=any_org_admin, answer=Phones)
def get_phone_access():
    """Where phones on the venue network open Door, each address with a QR code to scan; or, when only
    this computer can open it, the command that starts this same Door (launcher, port, data folder) open
    to the network."""
    config = settings()
    port = int(request.environ.get("SERVER_PORT") or config.port)  # the port really bound (0 picks one)
    access = phone_access(config.host, port, config.public_url, request.app.config.get("door.lan_command"))
    return Phones(**{**access, "urls": [PhoneUrl(url=url, qr_svg=qr_code(url)) for url in access["urls"]]})
