"""/platform: the external platform this Door talks to (its adapter, doorapp.platforms)."""

from doorapp.access import signed_in_or_pass
from doorapp.api import adapter, endpoint


@endpoint("GET", "/platform", auth=signed_in_or_pass)
def get_platform():
    """The external platform in use: its adapter, web URL, (demo only) event URLs to try, and `guest_lookup`,
    what the door asks for to find a walk-in on the platform: `username` or `member_id` (a member id or
    profile URL)."""
    used = adapter()
    return {
        "adapter": used.name,
        "web_url": used.web_url,
        "example_urls": used.example_urls(),
        "guest_lookup": used.guest_lookup,
    }
