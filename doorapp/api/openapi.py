"""/openapi.json: the API's own description, derived from the route table (/docs renders it)."""

from bottle import request

from doorapp import openapi
from doorapp.access import public
from doorapp.api import endpoint


@endpoint("GET", "/openapi.json", auth=public, answer=dict)  # an OpenAPI 3.1 document, as its own spec says
def get_openapi():
    """The OpenAPI 3.1 description of this API, derived from its routes."""
    config = request.app.config
    if "door.openapi" not in config:  # the routes are fixed once the app is made: build it once
        config["door.openapi"] = openapi.build(request.app)
    return config["door.openapi"]
