"""/platform: the external platform this Door talks to (its adapter, doorapp.platforms)."""

from typing import Literal, TypedDict

from doorapp.access import signed_in_or_pass
from doorapp.api import adapter, endpoint


class Platform(TypedDict):
    """The external platform's adapter, where its event pages live, and what the door asks a walk-in for."""

    adapter: Literal["demo", "rest", "meetup"]
    web_url: str
    example_urls: list[str]
    guest_lookup: Literal["username", "member_id"]


@endpoint("GET", "/platform", auth=signed_in_or_pass, answer=Platform)
def get_platform():
    """The external platform in use: its adapter, web URL, (demo only) event URLs to try, and `guest_lookup`,
    what the door asks for to find a walk-in on the platform: `username` or `member_id` (a member id or
    profile URL)."""
    used = adapter()
    return Platform(
        adapter=used.name,
        web_url=used.web_url,
        example_urls=used.example_urls(),
        guest_lookup=used.guest_lookup,
    )
