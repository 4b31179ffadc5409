"""/openapi.json as API clients and their generators read it: valid OpenAPI 3.1, clean under Redocly's
recommended rules, every answer typed, and no looser than the server (every answer the suite receives is
checked against it besides: helpers.Conformance)."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from doorapp.access import public
from doorapp.api import ROUTES, endpoint
from doorapp.errors import CODES

CONFIG = Path(__file__).with_name("redocly.yaml")
REDOCLY_VERSION = "2.77.0"  # .ci/run installs this one


def walk(node):
    """Every dict in a JSON document."""
    if isinstance(node, dict):
        yield node
        node = list(node.values())
    if isinstance(node, list):
        for item in node:
            yield from walk(item)


def operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_the_document_is_openapi_3_1_with_servers_a_license_and_security_on_every_operation(client):
    document = client.get("/openapi.json").json
    OpenAPIV31SpecValidator(document).validate()
    assert document["openapi"] == "3.1.0" and document["servers"] == [
        {"url": "/", "description": "This Door"}
    ]
    assert set(document["info"]["license"]) == {"name", "identifier"}
    assert not [node for node in walk(document) if "nullable" in node]  # OpenAPI 3.0's word, not 3.1's
    for name, operation in operations(document):
        public = operation["x-auth"] == "public"
        assert operation["security"] == ([] if public else [{"OAuth2PasswordBearer": []}]), name


def test_every_json_answer_is_a_component_schema_and_no_content_is_declared_as_none(client):
    document = client.get("/openapi.json").json
    schemas = document["components"]["schemas"]
    for name, operation in operations(document):
        for status, response in operation["responses"].items():
            content = response.get("content", {})
            if status == "204" or status == "304" or name.startswith("HEAD "):
                assert content == {}, (name, status)
            elif status.startswith("2") and "/openapi.json" not in name:
                schema = next(iter(content.values()))["schema"]
                shapes = schema.get("anyOf", [schema])  # /auth/userinfo: a User, or a door pass's PassHolder
                assert all("$ref" in s for s in shapes) or list(content) == ["text/csv"], (name, status)
            if status.startswith(("4", "5")) and not name.startswith("HEAD "):
                assert content["application/problem+json"]["schema"] == {
                    "$ref": "#/components/schemas/Problem"
                }
    for name in ("User", "Org", "Member", "Guest", "Ban", "Meetup", "MeetupGuest", "DoorList", "SyncReport"):
        assert schemas[name]["additionalProperties"] is False and schemas[name]["required"], name
    for name in (
        "ImportReport",
        "AuditEvent",
        "Summary",
        "Health",
        "Token",
        "Setup",
        "Platform",
        "EventPage",
    ):
        assert schemas[name]["additionalProperties"] is False and schemas[name]["required"], name
    people = [{"$ref": "#/components/schemas/Person"}, {"$ref": "#/components/schemas/PassActor"}]
    assert schemas["AuditEvent"]["properties"]["actor"] == {"anyOf": [*people, {"type": "null"}]}
    assert schemas["Rsvp"]["properties"]["checked_in_by"] == {"anyOf": [*people, {"type": "null"}]}
    assert schemas["PassActor"]["properties"]["id"] == {"type": "null"}
    assert schemas["Meetup"]["properties"]["finalized_at"] == {
        "type": ["string", "null"],
        "format": "date-time",
    }


def listed(response):
    """The problem codes an answer's description lists ("... Problem: code, code")."""
    found = re.search(r"Problem: ([a-z_, ]+)", response.get("description", ""))
    return set(found.group(1).split(", ")) if found else set()


def test_every_route_lists_every_refusal_of_its_rule(client):
    """A client made from the document knows every refusal of the route's Rule, under its status
    (tests/test_authorization.py shows that the Rule's declared refusals are what its callers get)."""
    document = client.get("/openapi.json").json
    for route in ROUTES:
        template = re.sub(r"<(\w+)>", r"{\1}", route.path)
        responses = document["paths"][template][route.method.lower()]["responses"]
        for code in route.config["auth"].refusals:
            assert code in listed(responses.get(str(CODES[code]), {})), (route.method, route.path, code)
    door = document["paths"]["/organizations/{org_id}/meetups/{meetup_id}/guests"]["get"]["responses"]
    assert {"not_org_member", "pass_not_allowed"} <= listed(door["403"])
    assert {"pass_ended", "invalid_token", "not_authenticated"} <= listed(door["401"])


def test_every_pattern_is_anchored_as_the_server_matches_it(client):
    """JSON Schema's `pattern` matches anywhere in a text; the server matches whole texts (what a text must
    not hold, under `not`, is found anywhere)."""
    document = client.get("/openapi.json").json
    refusals = [id(node["not"]) for node in walk(document) if "not" in node]
    patterns = [
        node["pattern"]
        for node in walk(document)
        if isinstance(node.get("pattern"), str) and id(node) not in refusals
    ]
    assert len(patterns) >= 5
    for pattern in patterns:
        assert pattern.startswith("^") and pattern.endswith("$"), pattern
    create = document["paths"]["/organizations/"]["post"]["requestBody"]["content"]["application/json"]
    slug = create["schema"]["properties"]["slug"]["pattern"]
    assert re.search(slug, "night-owls") and not re.search(slug, "UPPER-ok-lower")


def test_the_limits_are_the_servers(client):
    """Text lengths count what is left once the surrounding spaces are stripped, as the server counts."""
    document = client.get("/openapi.json").json
    events = {p["name"]: p for p in document["paths"]["/organizations/{org_id}/events/"]["get"]["parameters"]}
    assert events["offset"]["schema"]["maximum"] == 2**63 - 1 and events["limit"]["schema"]["maximum"] == 200
    assert events["since"]["schema"]["format"] == "date-time"
    create = document["paths"]["/organizations/"]["post"]["requestBody"]["content"]["application/json"]
    name = create["schema"]["properties"]["name"]
    refused = re.compile(name["not"]["pattern"])
    assert [bool(refused.search(text)) for text in ("ab", " a\u2003", "a\x00b", "a b")] == [
        False,
        True,
        True,
        False,
    ]


def test_head_health_answers_the_headers_of_get_without_a_body(client):
    got, head = client.get("/health"), client.head("/health")
    same = ("Content-Type", "Cache-Control", "X-Content-Type-Options")
    assert [head.headers[h] for h in same] == [got.headers[h] for h in same]
    # the length of the body GET would send: its own, since latency_ms is measured anew (1 or 2 digits more)
    assert abs(int(head.headers["Content-Length"]) - int(got.headers["Content-Length"])) <= 4
    assert head.body == b"" and got.json["status"] == "healthy"


def test_an_answer_that_drifts_from_the_document_fails_the_request(app, client):
    """The suite's check (conftest's `app`): here the document is made to disagree with /ping."""
    watched = app.wsgi
    watched.responses  # noqa: B018 (the checker of this app)
    client.get("/ping")
    watched.document["components"]["schemas"]["Pong"]["properties"]["ping"]["enum"] = ["PONG"]
    with pytest.raises(AssertionError, match="'pong' is not one of"):
        client.get("/ping")
    watched.failures.clear()


def redocly():
    found = os.environ.get("DOOR_REDOCLY") or shutil.which("redocly")
    if found and Path(found).exists():
        return found
    if os.environ.get("DOOR_REQUIRE_REDOCLY") == "1":
        pytest.fail("DOOR_REQUIRE_REDOCLY=1 but no Redocly CLI at DOOR_REDOCLY or on PATH")
    pytest.skip(
        f"Redocly CLI not installed (npm install @redocly/cli@{REDOCLY_VERSION}; DOOR_REDOCLY=its path)"
    )


def test_the_document_lints_clean_under_redocly_recommended_rules(client, tmp_path):
    linter = redocly()
    document = tmp_path / "openapi.json"
    document.write_text(client.get("/openapi.json").text, encoding="utf-8")
    run = subprocess.run(
        [linter, "lint", str(document), "--config", str(CONFIG), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(run.stdout)
    assert report["version"] == REDOCLY_VERSION
    assert (run.returncode, report["totals"]) == (0, {"errors": 0, "warnings": 0, "ignored": 0}), report


def test_a_json_route_declares_the_shape_of_its_answer():
    """endpoint() refuses a JSON route without `answer=` (and a shape where no JSON is answered)."""
    with pytest.raises(TypeError, match="a JSON answer needs its shape"):
        endpoint("GET", "/untyped", auth=public)
    with pytest.raises(TypeError, match="a JSON answer needs its shape"):
        endpoint("DELETE", "/nothing", auth=public, status=204, answer=dict)
