"""Meta-tests over the route table: every route declares its Rule, and the chain answers as docs/api.md
says."""

import re
import uuid

import pytest
from openapi_spec_validator import validate

from doorapp.api import ROUTES

PUBLIC = {
    ("POST", "/auth/register"),
    ("POST", "/auth/token"),
    ("POST", "/auth/verify-recovery-code"),
    ("POST", "/auth/reset-password"),
    ("GET", "/setup"),
    ("POST", "/setup"),
    ("GET", "/ping"),
    ("GET", "/health"),
    ("HEAD", "/health"),
    ("GET", "/openapi.json"),
    ("POST", "/auth/pass"),  # a phone pairs with a door pass's one-time code
}
PAGES = {"/", "/docs", "/sw.js", "/static/<path:path>"}


def sample_path(route, org_id=None):
    """The route's path with a well-formed id in every parameter."""
    values = {"org_id": org_id or str(uuid.uuid4()), "meetup_id": str(uuid.uuid4()), "username": "nobody"}
    return re.sub(r"<(\w+)>", lambda m: values.get(m.group(1), "12345"), route.path)


def api_routes(app):
    return [r for r in app.routes if r.rule not in PAGES]


def test_every_api_route_is_declared_with_a_rule_and_a_docstring(app):
    for route in api_routes(app):
        assert route.config.get("auth") is not None, route.rule
        assert (route.callback.__doc__ or "").strip(), route.rule


def test_the_public_routes_are_exactly_the_listed_ones():
    assert {(r.method, r.path) for r in ROUTES if r.config["auth"].public} == PUBLIC


def test_a_route_without_a_rule_is_refused(app):
    with pytest.raises(TypeError, match="GET /sneaky declares no auth= Rule; use endpoint"):
        app.route("/sneaky", "GET", lambda: "hi")
        app.router.match({"PATH_INFO": "/sneaky", "REQUEST_METHOD": "GET"})[0].call()


@pytest.mark.parametrize(
    "route", [r for r in ROUTES if not r.config["auth"].public], ids=lambda r: f"{r.method} {r.path}"
)
def test_every_private_route_answers_401_to_an_anonymous_client(client, route):
    reply = client.request(sample_path(route), method=route.method, status=401, expect_errors=True)
    assert reply.json["code"] == "not_authenticated"
    assert reply.headers["WWW-Authenticate"] == "Bearer"
    assert reply.content_type == "application/problem+json"


@pytest.mark.parametrize(
    "route", [r for r in ROUTES if r.config["auth"].name == "org_admin"], ids=lambda r: f"{r.method} {r.path}"
)
def test_every_org_admin_route_answers_403_to_staff(org, make_user, as_user, route):
    staff = as_user(make_user("sam", org=org, role="STAFF"))
    reply = staff.request(
        sample_path(route, str(org.id)), method=route.method, status=403, expect_errors=True
    )
    assert reply.json["code"] == "org_admin_required"


def test_the_error_body_is_one_rfc9457_shape(client):
    reply = client.get("/no/such/page", status=404)
    assert reply.content_type == "application/problem+json"
    assert reply.json == {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "There is nothing at /no/such/page.",
        "code": "not_found",
    }


def test_a_wrong_method_is_405_with_allow(client):
    reply = client.delete("/ping", status=405)
    assert reply.headers["Allow"] == "GET"
    assert reply.json["code"] == "method_not_allowed"


def test_a_crash_is_a_500_problem_without_exception_text(app, client):
    def boom():
        raise RuntimeError("secret internals")

    app.route("/boom", "GET", boom, skip=True)
    reply = client.get("/boom", status=500, expect_errors=True)
    assert reply.json["code"] == "internal_error"
    assert "secret" not in reply.text and "RuntimeError" not in reply.text


def test_every_answer_carries_a_request_id_and_echoes_the_clients(client):
    assert re.fullmatch(r"[0-9a-f]{32}", client.get("/ping").headers["X-Request-ID"])
    assert client.get("/ping", headers={"X-Request-ID": "door-42"}).headers["X-Request-ID"] == "door-42"
    assert (
        client.get("/nope", headers={"X-Request-ID": "door-43"}, status=404).headers["X-Request-ID"]
        == "door-43"
    )


def test_openapi_is_valid_and_lists_every_route_with_its_errors(client, app):
    spec = client.get("/openapi.json").json
    validate(spec)
    for route in api_routes(app):
        path = re.sub(r"<(\w+)>", r"{\1}", route.rule)
        operation = spec["paths"][path][route.method.lower()]
        assert operation["operationId"] == route.callback.__name__
        if not route.config["auth"].public:
            assert {"401", "403"} <= set(operation["responses"]), path
        if route.config["body"]:
            assert "requestBody" in operation and "422" in operation["responses"], path
