"""Hostile input, generated: every route gets query strings and bodies made of lone surrogates, NUL, JSON
nested thousands deep, numbers past any range and characters of every Unicode category, signed in as a site
admin who administers the org (so requests get past the chain to the handlers). No answer may be 500 or
more, over DOOR_FUZZ_REQUESTS requests (10,000 unless set; schemathesis covers the document's shapes)."""

import json
import os
import re
from urllib.parse import quote

import requests
from helpers import ENGINES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webob import Request

from doorapp import access

REQUESTS = int(os.environ.get("DOOR_FUZZ_REQUESTS", "10000"))
CATEGORIES = [
    "Lu",
    "Ll",
    "Lt",
    "Lm",
    "Lo",
    "Mn",
    "Mc",
    "Me",
    "Nd",
    "Nl",
    "No",
    "Pc",
    "Pd",
    "Ps",
    "Pe",
    "Pi",
    "Pf",
    "Po",
    "Sm",
    "Sc",
    "Sk",
    "So",
    "Zs",
    "Zl",
    "Zp",
    "Cc",
    "Cf",
    "Cs",
    "Co",
    "Cn",
]
hostile_text = st.text(st.characters(categories=CATEGORIES), max_size=40) | st.sampled_from(
    [
        "",
        "\x00",
        "\ud800",
        "a\udfffb",
        "\ufeff",
        "\u202e",
        "Zoë",
        "%",
        "_",
        "' OR 1=1 --",
        "9" * 400,
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59-14:00",
        "1e999",
        "-0",
        "NaN",
        "null",
        "true",
    ]
)
numbers = (
    st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, -1, 2**53 + 1, 2**63, -(2**63) - 1, 10**400])
)
scalars = st.none() | st.booleans() | numbers | hostile_text
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=12,
)


def raw_json(names):
    """A body as bytes: an object with the route's field names (so handlers see it) or something worse."""
    fields = st.dictionaries(st.sampled_from(names) if names else hostile_text, json_values, max_size=6)
    depth = st.integers(2, 5000)
    return st.one_of(
        fields.map(lambda body: json.dumps(body).encode()),  # ensure_ascii: surrogates travel as \ud800
        depth.map(lambda n: b"[" * n + b"]" * n),
        depth.map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
        st.sampled_from(
            [
                b'"\\ud800"',
                b'{"reason": "\\udfff"}',
                b"1e999",
                b"-" + b"9" * 5000,
                b"\xff\xfe",
                b"{",
                b"",
                b'{"a": NaN}',
                b"\x00",
            ]
        ),
        st.binary(max_size=64),
    )


def query_string(names):
    pairs = st.lists(st.tuples(st.sampled_from(names) if names else hostile_text, hostile_text), max_size=4)
    encode = lambda text: quote(text.encode("utf-8", "surrogatepass"), safe="")  # noqa: E731
    raw = st.sampled_from(["%ff", "%ed%a0%80", "%00", "q=%", "limit=1e3&offset=-0", "since=+99999-01-01"])
    return pairs.map(lambda items: "&".join(f"{encode(k)}={encode(v)}" for k, v in items)) | raw


def route_cases(app):
    """(method, path, query names, body names, media) for every route of the app, ready for strategies."""
    document = app.config["door.openapi"]
    cases = []
    for route in app.routes:
        path = re.sub(r"<(\w+)>", r"{\1}", route.rule)
        operation = document["paths"].get(path, {}).get(route.method.lower(), {})
        query = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
        content = operation.get("requestBody", {}).get("content", {})
        media = next(iter(content), "application/json")
        body = list(content.get(media, {}).get("schema", {}).get("properties", {}))
        cases.append((route.method, route.rule, query, body, media))
    return cases


def door_pass_of(client, token, meetup):
    """(id, token) of a new door pass of the meetup, paired."""
    made = client.post_json(
        f"/organizations/{meetup.org_id}/passes",
        {"label": "Fuzz phone", "meetup_id": str(meetup.id)},
        headers={"Authorization": f"Bearer {token}"},
    ).json
    return made["id"], client.post_json("/auth/pass", {"code": made["pairing"]["code"]}).json["access_token"]


def test_no_hostile_input_makes_a_server_error(app, client, org, meetup, guest, make_user):
    client.get("/openapi.json")  # builds the document the cases read their parameters from
    root = make_user("fuzzer", site_admin=True, org=org, role="ADMIN")
    token = access.issue_token(app.config["door.config"].secret_key, root, 60)
    door_pass, pass_token = door_pass_of(client, token, meetup)  # the door's routes, called by a phone too
    tokens = st.sampled_from([token, token, pass_token])
    ids = st.sampled_from(
        [str(org.id), str(meetup.id), str(guest.platform_user_id), str(root.id), str(door_pass)]
    ) | hostile_text.map(lambda text: quote(text.encode("utf-8", "surrogatepass"), safe=""))
    cases = route_cases(app)
    assert len(cases) >= 50
    failures, sent = [], []

    @st.composite
    def requests(draw):
        method, rule, query, body, media = draw(st.sampled_from(cases))
        path = re.sub(r"<\w+>", lambda _: draw(ids) or "0", rule)
        payload = b""
        if method in ("POST", "PUT", "PATCH"):
            form = media != "application/json" and draw(st.booleans())  # a form route gets JSON too
            payload = draw(query_string(body)).encode() if form else draw(raw_json(body))
        return method, path, draw(query_string(query)), payload, media, draw(tokens)

    @given(requests())
    @settings(
        max_examples=REQUESTS,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(request):
        method, path, query, payload, media, caller = request
        blank = Request.blank(
            path,
            method=method,
            body=payload,
            headers={"Authorization": f"Bearer {caller}", "Content-Type": media, "Idempotency-Key": "fuzz"},
        )
        blank.environ["QUERY_STRING"] = query
        status = blank.get_response(app).status_int
        sent.append(status)
        if status >= 500 and len(failures) < 20:
            failures.append(f"{status}: {method} {path}?{query} {payload[:200]!r}")

    run()
    assert len(sent) >= REQUESTS and not failures, "\n".join(failures)
    assert sum(200 <= status < 300 for status in sent) > REQUESTS / 10  # many got past validation to act


CONTROLS = ["\x00", "\x01", "\x1b", "\x1f", "\x7f", "\x85", "\x9f"]


@ENGINES
def test_a_control_character_in_any_field_or_parameter_is_422_on_every_engine(
    app, live_server, org, meetup, guest, make_user
):
    """Each route of the document, through waitress: a NUL (or another C0/C1 control) in each of its text
    body fields, form fields, query parameters and path parameters is 422 `control_characters` there."""
    requests.get(f"{live_server}/openapi.json", timeout=30)  # builds the document route_cases reads
    root = make_user("sweeper", site_admin=True, org=org, role="ADMIN")
    token = access.issue_token(app.config["door.config"].secret_key, root, 60)
    ids = {
        "org_id": org.id,
        "meetup_id": meetup.id,
        "user_id": root.id,
        "staff_id": root.id,
        "username": "bob",
        "pass_id": 1,
        "tag_id": 1,
    }
    ids |= {"platform_user_id": guest.platform_user_id, "guest_id": guest.platform_user_id, "username": "b"}
    refused, failures = 0, []
    for number, (method, rule, query, body, media) in enumerate(route_cases(app)):
        bad = f"a{CONTROLS[number % len(CONTROLS)]}b"
        params = {name: ids[name] for name in re.findall(r"<(\w+)>", rule)}
        sent = [("path", name, {**params, name: bad}, {}, {}) for name in params]
        sent += [("query", name, params, {name: bad}, {}) for name in query]
        sent += [("body", name, params, {}, {name: bad}) for name in body if name != "file"]  # text only
        for where, name, values, query_values, fields in sent:
            path = re.sub(r"<(\w+)>", lambda m, v=values: quote(str(v[m.group(1)]), safe=""), rule)
            send = {"data": fields} if media == "application/x-www-form-urlencoded" else {"json": fields}
            if media == "multipart/form-data":  # an import: the form's fields beside a guest list
                send = {"data": fields, "files": {"file": ("list.csv", b"Name\nAna Lima\n")}}
            reply = requests.request(
                method,
                live_server + path,
                params=query_values,
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
                **send,
            )
            problems = reply.json().get("errors", []) if reply.status_code == 422 else []
            wanted = {"loc": [where, name], "type": "invalid", "ctx": {"rule": "control_characters"}}
            if not any(wanted.items() <= p.items() for p in problems):
                failures.append(f"{method} {path} {where} {name}: {reply.status_code} {reply.text[:200]}")
            refused += 1
    assert refused > 140 and not failures, "\n".join(failures)
