"""The API's own description: OpenAPI, derived from the route table, and the platform it talks to."""

from bottle import request

from doorapp import openapi
from doorapp.access import public, signed_in
from doorapp.api import endpoint, platform


@endpoint("GET", "/openapi.json", auth=public)
def get_openapi():
    """The OpenAPI 3.1 description of this API, derived from its routes."""
    config = request.app.config
    if "door.openapi" not in config:  # the routes are fixed once the app is made: build it once
        config["door.openapi"] = openapi.build(request.app)
    return config["door.openapi"]


@endpoint("GET", "/platform", auth=signed_in)
def get_platform():
    """The external platform in use: its adapter, web URL, (demo only) event URLs to try, and `guest_lookup`,
    what the door asks for to find a walk-in on the platform: `username` or `member_id` (a member id or
    profile URL)."""
    adapter = platform()
    return {
        "adapter": adapter.name,
        "web_url": adapter.web_url,
        "example_urls": adapter.example_urls(),
        "guest_lookup": adapter.guest_lookup,
    }
