"""The API's own description: OpenAPI, derived from the route table."""

from bottle import request

from doorapp import openapi
from doorapp.access import public
from doorapp.api import endpoint


@endpoint("GET", "/openapi.json", auth=public)
def get_openapi():
    """The OpenAPI 3.1 description of this API, derived from its routes."""
    return openapi.build(request.app)
