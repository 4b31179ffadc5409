"""Request bodies: every rule broken answers a 422 error with a machine-readable `type` and its limits, as
errors.VALIDATION_TYPES words them, and OpenAPI describes that vocabulary."""

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import pytest

from doorapp.bodies import json_schema, moment, number, parse, text
from doorapp.errors import VALIDATION_TYPES, ApiError
from doorapp.models.accounts import new_username


@dataclass
class Everything:
    name: str = text(max_length=5, min_length=2, default="ab")
    slug: str = text(pattern=re.compile("[a-z]+"), default="ab")
    user: str = text(normalize=new_username, default="ab")
    count: int = number(1, 9, default=1)
    flag: bool = False
    role: Literal["A", "B"] = "A"
    tags: list[str] | None = None
    id: uuid.UUID | None = None
    at: datetime | None = moment("a moment")
    needed: str | None = text(default=None)


def error_of(**data):
    with pytest.raises(ApiError) as caught:
        parse(Everything, data)
    [error] = caught.value.extensions["errors"]
    return error["type"], error["ctx"], error["loc"]


@pytest.mark.parametrize(
    ("data", "kind", "ctx"),
    [
        ({"name": 5}, "type", {"expected": "string"}),
        ({"count": "5"}, "type", {"expected": "integer"}),
        ({"flag": "yes"}, "type", {"expected": "boolean"}),
        ({"tags": "a"}, "type", {"expected": "array"}),
        ({"name": "  "}, "blank", {}),
        ({"name": "a"}, "too_short", {"min": 2}),
        ({"name": "abcdef"}, "too_long", {"max": 5}),
        ({"slug": "A1"}, "pattern", {"pattern": "[a-z]+"}),
        ({"count": 0}, "too_small", {"min": 1}),
        ({"count": 10}, "too_large", {"max": 9}),
        ({"role": "C"}, "choice", {"choices": ["A", "B"]}),
        ({"at": "yesterday"}, "datetime", {}),
        ({"id": "nope"}, "invalid", {"rule": "uuid"}),
        ({"user": "a b"}, "invalid", {"rule": "visible_name"}),
    ],
)
def test_each_broken_rule_has_its_type_and_limits(data, kind, ctx):
    assert error_of(**data) == (kind, ctx, ["body", *data])


def test_a_missing_field_is_missing():
    @dataclass
    class Needs:
        reason: str = text()

    with pytest.raises(ApiError) as caught:
        parse(Needs, {})
    assert caught.value.extensions["errors"] == [
        {"loc": ["body", "reason"], "msg": "Field required.", "type": "missing", "ctx": {}}
    ]


def test_every_type_is_one_the_vocabulary_documents(client):
    """The vocabulary is in OpenAPI's Problem schema, for clients to word errors from."""
    problem = client.get("/openapi.json").json["components"]["schemas"]["Problem"]
    error = problem["properties"]["errors"]["items"]
    assert error["properties"]["type"]["enum"] == list(VALIDATION_TYPES)
    assert error["required"] == ["loc", "msg", "type", "ctx"]


def test_a_422_through_the_api_carries_type_and_limits(client):
    reply = client.post_json("/auth/register", {"username": "x" * 65, "password": "short"}, status=422).json
    assert [(e["loc"], e["type"], e["ctx"]) for e in reply["errors"]] == [
        (["body", "username"], "too_long", {"max": 64}),
        (["body", "password"], "too_short", {"min": 15}),
    ]


def test_the_schema_states_the_limits():
    schema = json_schema(Everything)["properties"]
    controls = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"  # refused in a body's text, as parse() does
    shorter = r"^\s*[\s\S]{0,1}\s*$"  # fewer than 2 characters once the surrounding spaces are stripped
    assert schema["name"] == {
        "type": "string",
        "minLength": 2,
        "maxLength": 5,
        "not": {"pattern": f"{controls}|{shorter}"},
    }
    assert schema["count"] == {"type": "integer", "format": "int64", "minimum": 1, "maximum": 9}
    assert schema["tags"] == {
        "type": ["array", "null"],
        "items": {"type": "string", "not": {"pattern": controls}},
    }
    refused = re.compile(schema["name"]["not"]["pattern"])
    for kept in ("ab", " ab ", "a\u2003b", "a b", "abcde"):
        assert not refused.search(kept) and parse(Everything, {"name": kept}).name == kept.strip()
    for bad in ("a", " a\u2003", "\u3000", "a\x00b"):
        assert refused.search(bad)
        with pytest.raises(ApiError):
            parse(Everything, {"name": bad})
