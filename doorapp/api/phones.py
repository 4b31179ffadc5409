"""How phones on the venue network join: the address to open and a QR code of it (admins)."""

from typing import TypedDict

from doorapp.access import any_org_admin
from doorapp.api import endpoint, phone_urls, qr_code


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


@endpoint("GET", "/phones", auth=any_org_admin, answer=Phones)
def get_phone_access():
    """Where phones on the venue network open Door, each address with a QR code to scan."""
    access = phone_urls()
    return Phones(**{**access, "urls": [PhoneUrl(url=url, qr_svg=qr_code(url)) for url in access["urls"]]})
