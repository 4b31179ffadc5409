"""Request bodies as dataclasses: parse() validates into one 422 listing every error; json_schema()
for OpenAPI."""

import re
import types
import typing
import uuid
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime, timedelta, timezone
from enum import StrEnum

from doorapp.errors import validation_error

_NONE = type(None)
INT64 = (-(2**63), 2**63 - 1)  # what the database stores; larger numbers are 422, never an overflow
_SPACED_OFFSET = re.compile(r" (\d\d(:?\d\d)?)$")  # a `+` sent unencoded in a query arrives as a space
_MOMENT = "Must be an ISO 8601 timestamp such as 2026-11-21T19:04:05Z, or a date."


def text(max_length=None, min_length=1, pattern=None, default=MISSING, strip=True, doc=None, normalize=None):
    """A string field: required and non-blank unless a default is given. `normalize(value)` returns the form
    kept (before the length checks), or raises ValueError with the message of a 422."""
    meta = {
        "max_length": max_length,
        "min_length": min_length,
        "pattern": pattern,
        "strip": strip,
        "doc": doc,
        "normalize": normalize,
    }
    return field(default=default, metadata=meta)


def number(minimum=None, maximum=None, default=MISSING):
    """A whole-number field with an inclusive range."""
    return field(default=default, metadata={"minimum": minimum, "maximum": maximum})


def moment(doc, end_of_day=False):
    """An optional `datetime` field: ISO 8601, as naive UTC (no offset reads as UTC); a date alone is its
    day's start, or with `end_of_day` its last microsecond. Out of range, even by an offset, is a 422."""
    return field(default=None, metadata={"doc": doc, "end_of_day": end_of_day})


def parse(cls, data, where="body", strings=False):
    """An instance of the dataclass `cls` from a JSON object, or (strings=True) a form or query dict whose
    values are all strings; else one 422 naming every bad field, located at `where`."""
    values, errors = {}, []
    for f in fields(cls):
        loc = (where, f.name)
        if f.name not in data or data[f.name] is None and not _optional(f.type):
            if f.default is MISSING:
                errors.append((loc, "Field required."))
            continue
        value, message = _check(f, data[f.name], form=strings or where == "query")
        if message:
            errors.append((loc, message))
        else:
            values[f.name] = value
    if errors:
        raise validation_error(errors)
    return cls(**values)


def _enum_list(kind):
    """list[SomeStrEnum]: in a query, one comma-separated parameter (OpenAPI's form style, not exploded)."""
    return typing.get_origin(kind) is list and isinstance(typing.get_args(kind)[0], type) \
        and issubclass(typing.get_args(kind)[0], StrEnum)


def _optional(kind):
    # `str | None` is a types.UnionType; `Literal[...] | None` a typing.Union
    return typing.get_origin(kind) in (types.UnionType, typing.Union) and _NONE in typing.get_args(kind)


def _check(f, value, form=False):
    kind = f.type
    if _optional(kind):
        if value is None:
            return None, None
        kind = next(a for a in kind.__args__ if a is not _NONE)
    if typing.get_origin(kind) is typing.Literal:
        choices = typing.get_args(kind)
        return (
            (value, None) if value in choices else (None, f"Must be one of {', '.join(map(str, choices))}.")
        )
    if kind is bool:
        if form and value in ("true", "false"):
            return value == "true", None
        return (value, None) if isinstance(value, bool) else (None, "Must be true or false.")
    if kind is int:
        if form and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            return None, "Must be a whole number."
        low = INT64[0] if f.metadata.get("minimum") is None else f.metadata["minimum"]
        high = INT64[1] if f.metadata.get("maximum") is None else f.metadata["maximum"]
        if (low is not None and value < low) or (high is not None and value > high):
            return None, f"Must be between {low} and {high}."
        return value, None
    if kind is str:
        if not isinstance(value, str):
            return None, "Must be a string."
        meta = f.metadata
        if meta.get("strip", True):
            value = value.strip()
        if meta.get("normalize"):
            try:
                value = meta["normalize"](value)
            except ValueError as problem:
                return None, str(problem)
        if len(value) < (meta.get("min_length") or 0):
            return None, (
                "Must not be blank." if not value else f"Must be at least {meta['min_length']} characters."
            )
        if meta.get("max_length") and len(value) > meta["max_length"]:
            return None, f"Must be at most {meta['max_length']} characters."
        if meta.get("pattern") and not meta["pattern"].fullmatch(value):
            return None, meta.get("doc") or "Has the wrong format."
        return value, None
    if kind == list[str]:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return (value, None) if ok else (None, "Must be a list of strings.")
    if _enum_list(kind):
        choices = typing.get_args(kind)[0]
        items = [v.strip() for v in value.split(",")] if form and isinstance(value, str) else value
        if not isinstance(items, list) or not items or not all(v in choices.__members__ for v in items):
            return None, f"Must be a comma-separated list of {', '.join(choices)}."
        return [choices(v) for v in items], None
    if kind is uuid.UUID:
        try:
            return str(uuid.UUID(value)), None
        except (TypeError, ValueError, AttributeError):
            return None, "Must be a UUID."
    if kind is datetime:
        return _moment(value, f.metadata.get("end_of_day"))
    raise TypeError(f"bodies.parse does not know {kind}")


def _moment(value, end_of_day):
    if not isinstance(value, str) or len(value) > 64:
        return None, _MOMENT
    try:
        moment = datetime.fromisoformat(_SPACED_OFFSET.sub(r"+\1", value.strip()))
        if moment.tzinfo is not None:
            moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
        if end_of_day and len(value.strip()) == 10:
            moment += timedelta(days=1, microseconds=-1)
    except (ValueError, OverflowError):  # OverflowError: a date at the calendar's edge moved past it
        return None, _MOMENT
    return moment, None


def json_schema(cls):
    """The JSON schema of a body dataclass, for OpenAPI."""
    props, required = {}, []
    for f in fields(cls):
        props[f.name] = _schema(f.type, f.metadata)
        if f.default is MISSING:
            required.append(f.name)
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def _schema(kind, meta):
    if _optional(kind):
        inner = next(a for a in kind.__args__ if a is not _NONE)
        return {**_schema(inner, meta), "nullable": True}
    if typing.get_origin(kind) is typing.Literal:
        return {"type": "string", "enum": list(typing.get_args(kind))}
    if kind is bool:
        return {"type": "boolean"}
    if kind is int:
        bounds = {"minimum": meta.get("minimum"), "maximum": meta.get("maximum")}
        return {"type": "integer", **{k: v for k, v in bounds.items() if v is not None}}
    if kind == list[str]:
        return {"type": "array", "items": {"type": "string"}}
    if _enum_list(kind):
        return {"type": "array", "items": {"type": "string", "enum": list(typing.get_args(kind)[0])}}
    if kind is uuid.UUID:
        return {"type": "string", "format": "uuid"}
    if kind is datetime:
        return {"type": "string", "maxLength": 64, "description": meta["doc"]}
    schema = {"type": "string"}
    if meta.get("min_length"):
        schema["minLength"] = meta["min_length"]
    if meta.get("max_length"):
        schema["maxLength"] = meta["max_length"]
    if meta.get("pattern"):
        schema["pattern"] = meta["pattern"].pattern
    if meta.get("doc"):
        schema["description"] = meta["doc"]
    return schema


__all__ = ["dataclass", "json_schema", "moment", "number", "parse", "text"]
