"""/platform: the external platform this Door talks to (its adapter, doorapp.platforms)."""

from doorapp.access import signed_in
from doorapp.api import adapter, endpoint


@endpoint("GET", "/platform", auth=signed_in)
def get_platform():
    """The external platform in use: its adapter, web URL and (demo only) event URLs to try."""
    used = adapter()
    return {"adapter": used.name, "web_url": used.web_url, "example_urls": used.example_urls()}
