"""Request bodies and query strings as dataclasses: parse() validates into one 422 listing every error, and
json_schema() describes them for OpenAPI, both from one table of kinds (KINDS: per type, how a value is
parsed and how it is described).

Why not pydantic: it would add a compiled core of several megabytes to the executable and about a tenth
of a second to every start (the club's laptop starts Door each evening), its errors have their own shape
and English, which the API's clients already word, and Door's bodies use seven plain types. So the table
stays here; when bodies need nesting, unions of objects or custom validators, weigh pydantic again.

Every error of a 422 is `{"loc", "msg", "type", "ctx"}`: `msg` in English, `type` one word of
errors.VALIDATION_TYPES and `ctx` its limits, so that a client can say it in its own language."""

import functools
import re
import types
import typing
import uuid
from dataclasses import MISSING, dataclass, field, fields
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from doorapp.errors import Invalid, invalid, validation_error

INT64 = (-(2**63), 2**63 - 1)  # what the database stores; larger numbers are 422, never an overflow
_SPACED_OFFSET = re.compile(r" (\d\d(:?\d\d)?)$")  # a `+` sent unencoded in a query arrives as a space
_MOMENT = "Must be an ISO 8601 timestamp such as 2026-11-21T19:04:05Z, or a date."
# NUL and the other C0 and C1 controls (and DEL): no text of Door's holds them, and PostgreSQL stores no NUL.
# Tab, line feed and carriage return stay allowed in bodies (free text, such as a reason, has lines).
CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_BODY_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_DIGITS = re.compile(r"\s*-?[0-9]{1,19}\s*")  # str.isdigit() takes "²" and "①", which int() refuses
CONTROLS_FREE = f"^[^{CONTROLS.pattern[1:-1]}]*$"  # CONTROLS as a JSON Schema pattern of a whole text


def controls_at(where):
    """The control characters a text read at `where` refuses: all in a query; in a body, all but tab and
    line breaks."""
    return CONTROLS if where == "query" else _BODY_CONTROLS


def text(max_length=None, min_length=1, pattern=None, default=MISSING, strip=True, doc=None, normalize=None):
    """A string field: required and non-blank unless a default is given. `normalize(value)` returns the
    form kept (before the length checks), or raises ValueError(message, rule) for a 422 `invalid`."""
    meta = {
        "max_length": max_length,
        "min_length": min_length,
        "pattern": pattern,
        "strip": strip,
        "doc": doc,
        "normalize": normalize,
    }
    return field(default=default, metadata=meta)


def number(minimum=None, maximum=None, default=MISSING, doc=None):
    """A whole-number field with an inclusive range."""
    return field(default=default, metadata={"minimum": minimum, "maximum": maximum, "doc": doc})


def moment(doc, end_of_day=False):
    """An optional `datetime` field: ISO 8601, as naive UTC (no offset reads as UTC); a date alone is its
    day's start, or with `end_of_day` its last microsecond. Out of range, even by an offset, is a 422."""
    return field(default=None, metadata={"doc": doc, "end_of_day": end_of_day})


def _string(value, meta, form):
    if not isinstance(value, str):
        raise Invalid("type", "Must be a string.", expected="string")
    value = value.strip() if meta.get("strip", True) else value
    if meta.get("normalize"):
        try:
            value = meta["normalize"](value)
        except ValueError as problem:
            raise Invalid("invalid", problem.args[0], rule=problem.args[1]) from None
    low, high, pattern = meta.get("min_length") or 0, meta.get("max_length"), meta.get("pattern")
    if len(value) < low:
        raise (
            Invalid("blank", "Must not be blank.")
            if not value
            else Invalid("too_short", f"Must be at least {low} characters.", min=low)
        )
    if high and len(value) > high:
        raise Invalid("too_long", f"Must be at most {high} characters.", max=high)
    if pattern and not pattern.fullmatch(value):
        raise Invalid("pattern", meta.get("doc") or "Has the wrong format.", pattern=pattern.pattern)
    return value


def _string_schema(kind, meta, where="body"):
    refused = [f"[{controls_at(where).pattern[1:-1]}]"]
    low = meta.get("min_length") or 0
    if low and meta.get("strip", True):  # what is left once the surrounding spaces are stripped is counted
        refused.append(rf"^\s*[\s\S]{{0,{low - 1}}}\s*$")
    limits = {
        "minLength": low,
        "maxLength": meta.get("max_length"),
        "pattern": meta.get("pattern") and meta["pattern"].pattern,
        "description": meta.get("doc"),
        "not": {"pattern": "|".join(refused)},
    }
    return {"type": "string", **{k: v for k, v in limits.items() if v}}


def _integer(value, meta, form):
    if form and isinstance(value, str) and _DIGITS.fullmatch(value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():  # JSON's 2.0 is the integer 2 (JSON Schema says so)
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Invalid("type", "Must be a whole number.", expected="integer")
    low = INT64[0] if meta.get("minimum") is None else meta["minimum"]
    high = INT64[1] if meta.get("maximum") is None else meta["maximum"]
    if value < low:
        raise Invalid("too_small", f"Must be between {low} and {high}.", min=low)
    if value > high:
        raise Invalid("too_large", f"Must be between {low} and {high}.", max=high)
    return value


def _boolean(value, meta, form):
    if form and value in ("true", "false"):
        return value == "true"
    if not isinstance(value, bool):
        raise Invalid("type", "Must be true or false.", expected="boolean")
    return value


def _choice(kind):
    choices = list(typing.get_args(kind))

    def parse(value, meta, form):
        if value not in choices:
            raise Invalid("choice", f"Must be one of {', '.join(map(str, choices))}.", choices=choices)
        return value

    return parse


def _strings(value, meta, form):
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Invalid("type", "Must be a list of strings.", expected="array")
    return value


def _integers(value, meta, form):
    if not isinstance(value, list):
        raise Invalid("type", "Must be a list of whole numbers.", expected="array")
    return [_integer(v, {}, form) for v in value]


def _choices(kind):
    """list[SomeStrEnum]: in a query, the parameter repeated (type=A&type=B), its values separated by commas
    (type=A,B), or both."""
    enum = typing.get_args(kind)[0]

    def parse(value, meta, form):
        items = value
        if form and isinstance(value, (str, list)) and all(isinstance(v, str) for v in value):
            items = [
                part.strip() for v in ([value] if isinstance(value, str) else value) for part in v.split(",")
            ]
        if not isinstance(items, list) or not items or not all(v in enum.__members__ for v in items):
            message = f"Must be a comma-separated list of {', '.join(enum)}."
            raise Invalid("choice", message, choices=list(enum))
        return [enum(v) for v in items]

    return parse


def _uuid(value, meta, form):
    try:
        return str(uuid.UUID(value))
    except (TypeError, ValueError, AttributeError):
        raise Invalid("invalid", "Must be a UUID.", rule="uuid") from None


def _moment(value, meta, form):
    if not isinstance(value, str) or len(value) > 64:
        raise Invalid("datetime", _MOMENT)
    try:
        moment = datetime.fromisoformat(_SPACED_OFFSET.sub(r"+\1", value.strip()))
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
        if meta.get("end_of_day") and len(value.strip()) == 10:
            moment += timedelta(days=1, microseconds=-1)
    except (ValueError, OverflowError):  # OverflowError: a date at the calendar's edge moved past it
        raise Invalid("datetime", _MOMENT) from None
    return moment


def _is_literal(kind):
    return typing.get_origin(kind) is typing.Literal


def _is_enum_list(kind):
    args = typing.get_args(kind)
    return typing.get_origin(kind) is list and isinstance(args[0], type) and issubclass(args[0], StrEnum)


# The kinds: (does a field's type belong to it, its parser (made for the type), its JSON schema (of the type,
# its metadata, and where it is read: "body" or "query")).
KINDS = [
    (lambda k: k is str, lambda k: _string, _string_schema),
    (
        lambda k: k is int,
        lambda k: _integer,
        lambda k, meta, where: {
            "type": "integer",
            "format": "int64",
            "minimum": INT64[0] if meta.get("minimum") is None else meta["minimum"],
            "maximum": INT64[1] if meta.get("maximum") is None else meta["maximum"],
            **({"description": meta["doc"]} if meta.get("doc") else {}),
        },
    ),
    (lambda k: k is bool, lambda k: _boolean, lambda k, meta, where: {"type": "boolean"}),
    (_is_literal, _choice, lambda k, meta, where: {"type": "string", "enum": list(typing.get_args(k))}),
    (
        lambda k: k == list[str],
        lambda k: _strings,
        lambda k, meta, where: {"type": "array", "items": _string_schema(str, {"min_length": 0}, where)},
    ),
    (
        lambda k: k == list[int],
        lambda k: _integers,
        lambda k, meta, where: {
            "type": "array",
            "items": {"type": "integer", "format": "int64", "minimum": INT64[0], "maximum": INT64[1]},
        },
    ),
    (
        _is_enum_list,
        _choices,
        lambda k, meta, where: {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "enum": list(typing.get_args(k)[0])},
        },
    ),
    (
        lambda k: k is uuid.UUID,
        lambda k: _uuid,
        lambda k, meta, where: {"type": "string", "format": "uuid"},
    ),
    (
        lambda k: k is datetime,
        lambda k: _moment,
        lambda k, meta, where: {
            "type": "string",
            "format": "date-time",
            "maxLength": 64,
            "description": meta["doc"] + " The server also takes a date alone, or no offset (UTC).",
        },
    ),
]


def _kind(kind):
    """(the type without its `| None`, whether it may be null, its entry in KINDS)."""
    union = typing.get_origin(kind) in (types.UnionType, typing.Union)
    nullable = union and type(None) in typing.get_args(kind)
    if nullable:
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    for entry in KINDS:
        if entry[0](kind):
            return kind, nullable, entry
    raise TypeError(f"bodies does not know {kind}")


@functools.cache
def _plan(cls):
    """[(field, may it be null, its parser, is it a list)] of a dataclass, worked out once (parse runs every
    request)."""
    plan = []
    for f in fields(cls):
        kind, nullable, entry = _kind(f.type)
        plan.append((f, nullable, entry[1](kind), typing.get_origin(kind) is list))
    return plan


def refuse_controls(value, controls=CONTROLS):
    """Invalid `control_characters` when a text (or a list of them) holds a control character."""
    texts = value if isinstance(value, list) else [value]
    if any(isinstance(t, str) and controls.search(t) for t in texts):
        message = "Must not contain control characters (such as NUL)."
        raise Invalid("invalid", message, rule="control_characters")


def parse(cls, data, where="body", strings=False):
    """An instance of the dataclass `cls` from a JSON object, or (strings=True) a form or query dict whose
    values are all strings (a query's MultiDict gives a list field every value of its name); else one 422
    naming every bad field, located at `where`. Every text of a body, form or query passes
    refuse_controls() here first."""
    values, errors = {}, []
    controls = controls_at(where)
    for f, nullable, parser, many in _plan(cls):
        value = (data.getall(f.name) or None) if many and hasattr(data, "getall") else data.get(f.name)
        if value is None:
            if f.name in data and nullable:
                values[f.name] = None
            elif f.default is MISSING:
                errors.append(invalid((where, f.name), "missing", "Field required."))
            continue
        try:
            refuse_controls(value, controls)
            values[f.name] = parser(value, f.metadata, strings or where == "query")
        except Invalid as error:
            errors.append(error.at((where, f.name)))
    for flag, needed in getattr(cls, "REQUIRED_WHEN_TRUE", {}).items():
        if (
            values.get(flag) is True
            and values.get(needed) is None
            and not any(e["loc"][-1] == needed for e in errors)
        ):
            errors.append(invalid((where, needed), "missing", f"Field required when {flag} is true."))
    if errors:
        raise validation_error(errors)
    return cls(**values)


def nullable_schema(schema):
    """The OpenAPI 3.1 (JSON Schema) form of a schema that may also be null."""
    if list(schema) == ["anyOf"]:  # a union: null is one more of its choices
        return {"anyOf": [*schema["anyOf"], {"type": "null"}]}
    if "type" not in schema or "enum" in schema:  # a reference, an enum: null is one more choice
        return {"anyOf": [schema, {"type": "null"}]}
    return {**schema, "type": [schema["type"], "null"]}


def json_schema(cls, query=False, form=False, named=None):
    """The JSON schema of a body or (query=True) query-string dataclass, for OpenAPI; `named(enum)` gives
    the schema of a list's StrEnum (OpenAPI's: a reference to one component). A field that may be null
    in a JSON body is one that may be absent from a form or a query (which have no null)."""
    props, required = {}, []
    for f in fields(cls):
        kind, nullable, entry = _kind(f.type)
        schema = entry[2](kind, f.metadata, "query" if query else "body")
        if named and _is_enum_list(kind):
            schema["items"] = named(typing.get_args(kind)[0])
        if nullable and not (query or form):
            schema = nullable_schema(schema)
        props[f.name] = schema
        if f.default is MISSING:
            required.append(f.name)
    # `REQUIRED_WHEN_TRUE = {flag: field}`: a field the body needs (not null) when a flag of it is true
    rules = [
        {
            "if": {"properties": {flag: {"const": True}}, "required": [flag]},
            "then": {"properties": {needed: {"type": "string"}}, "required": [needed]},
        }
        for flag, needed in getattr(cls, "REQUIRED_WHEN_TRUE", {}).items()
    ]
    when = {"allOf": rules} if len(rules) > 1 else rules[0] if rules else {}
    return {"type": "object", "properties": props, **({"required": required} if required else {}), **when}


__all__ = ["dataclass", "json_schema", "moment", "number", "parse", "text"]
