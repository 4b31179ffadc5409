"""How phones on the venue network join: the address to open and a QR code of it (admins)."""

import shlex
import shutil
import sys
from pathlib import Path
from typing import TypedDict

from doorapp.access import any_org_admin
from doorapp.api import endpoint, phone_urls, qr_code
from doorapp.api.shapes import OpenToLan
from doorapp.paths import FROZEN, default_data_dir


class Listening(TypedDict):
    host: str
    port: int


class PhoneUrl(TypedDict):
    """An address phones open, with a QR code of it (an SVG data: URI)."""

    url: str
    qr_svg: str


class Phones(TypedDict):
    """Where phones open Door: none while only this computer can (`open_to_lan` says how to change that)."""

    listening: Listening
    urls: list[PhoneUrl]
    open_to_lan: OpenToLan | None


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


@endpoint("GET", "/phones", auth=any_org_admin, answer=Phones)
def get_phone_access():
    """Where phones on the venue network open Door, each address with a QR code to scan; or, when only
    this computer can open it, the command that starts this same Door (launcher, port, data folder) open
    to the network."""
    access = phone_urls()
    return Phones(**{**access, "urls": [PhoneUrl(url=url, qr_svg=qr_code(url)) for url in access["urls"]]})
