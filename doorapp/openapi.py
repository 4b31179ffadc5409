"""OpenAPI 3.1 derived from the route table: nothing here is written per endpoint."""

import inspect
import re
import types
import typing
import uuid
from enum import StrEnum

from doorapp import __version__, idempotency
from doorapp.api import PATH_PARAMS
from doorapp.bodies import CONTROLS_FREE, INT64, json_schema, nullable_schema
from doorapp.errors import CODES, VALIDATION_TYPES

_PARAM_SCHEMA = {
    uuid.UUID: {"type": "string", "format": "uuid"},
    int: {"type": "integer", "format": "int64", "minimum": INT64[0], "maximum": INT64[1]},
    str: {"type": "string", "pattern": CONTROLS_FREE},
}
LIST_PARAMETER = {
    "style": "form",
    "explode": True,
    "description": "Repeat the parameter (type=A&type=B) or separate its values with commas (type=A,B): "
    "the server reads every value either way.",
}
REPLAYED = {
    "description": "true when the answer is the one given before to this Idempotency-Key.",
    "schema": {"type": "string", "enum": ["true"]},
}
PROBLEM = {
    "type": "object",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "enum": sorted(CODES)},
        "errors": {
            "type": "array",
            "description": "A 422's errors, one per bad field.",
            "items": {
                "type": "object",
                "required": ["loc", "msg", "type", "ctx"],
                "properties": {
                    "loc": {
                        "type": "array",
                        "items": {"type": ["string", "integer"]},
                        "description": 'Where: ["body" | "query" | "path" | "header", name].',
                    },
                    "msg": {"type": "string", "description": "The error in English."},
                    "type": {
                        "type": "string",
                        "enum": list(VALIDATION_TYPES),
                        "description": "What is wrong, for a "
                        "client to word: "
                        + "; ".join(f"{k}: {v}" for k, v in VALIDATION_TYPES.items())
                        + ".",
                    },
                    "ctx": {"type": "object", "description": "The limits the `type` names."},
                },
            },
        },
    },
}


MEDIA = {"form": "application/x-www-form-urlencoded", "multipart": "multipart/form-data"}
# Door has no license of its own yet: the document says so rather than invent one.
LICENSE = {"name": "Proprietary: all rights reserved", "identifier": "LicenseRef-Door-Proprietary"}
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def build(app):
    paths, schemas = {}, Components()
    for route in app.routes:
        if "auth" not in route.config:
            continue
        path = re.sub(r"<(\w+)>", r"{\1}", route.rule)
        paths.setdefault(path, {})[route.method.lower()] = _operation(route, schemas)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Door API",
            "version": __version__,
            "description": "Door: door management for meetups. Sign in with the Authorize button "
            "(OAuth 2.0 password flow against /auth/token).",
            "license": LICENSE,
        },
        # relative: the Door that serves this document (RFC 3986 resolution against its own address)
        "servers": [{"url": "/", "description": "This Door"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "OAuth2PasswordBearer": {
                    "type": "oauth2",
                    "flows": {"password": {"tokenUrl": "/auth/token", "scopes": {}}},
                }
            },
        },
    }


def schema_of(kind, schemas):
    """The JSON Schema of a type of doorapp.api.shapes' vocabulary; a shape (a TypedDict) is added to
    `schemas` once, under its class name, and referenced."""
    extra = {}
    if typing.get_origin(kind) is typing.Annotated:
        kind, form = typing.get_args(kind)
        extra = {"format": form}
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.NotRequired:
        return schema_of(args[0], schemas)
    if origin in (types.UnionType, typing.Union):  # X | Y, X | None
        kinds = [schema_of(a, schemas) for a in args if a is not type(None)]
        schema = kinds[0] if len(kinds) == 1 else {"anyOf": kinds}
        return nullable_schema(schema) if type(None) in args else schema
    if typing.is_typeddict(kind):
        return {"$ref": "#/components/schemas/" + _component(kind, schemas)}
    if origin is typing.Literal:
        return {"type": "string", "enum": list(args)}
    if isinstance(kind, type) and issubclass(kind, StrEnum):  # one component: one type in clients
        schemas.setdefault(kind.__name__, {"type": "string", "enum": [member.value for member in kind]})
        return {"$ref": "#/components/schemas/" + kind.__name__}
    if origin is list:
        return {"type": "array", "items": schema_of(args[0], schemas)}
    if origin is dict:
        keys = {} if args[0] is str else {"propertyNames": schema_of(args[0], schemas)}
        return {"type": "object", **keys, "additionalProperties": schema_of(args[1], schemas)}
    if kind is dict:
        return {"type": "object"}
    return {"type": SIMPLE[kind], **extra}


class Components(dict):
    """The component schemas by name, and the shape each came from (two shapes of one name: a mistake)."""

    def __init__(self):
        super().__init__(Problem=PROBLEM)
        self.shapes = {}


def _component(shape, schemas):
    name = shape.__name__
    if schemas.shapes.setdefault(name, shape) is not shape:
        raise TypeError(
            f"two shapes are called {name}: {shape.__module__} and {schemas.shapes[name].__module__}"
        )
    if name in schemas:
        return name
    fields = typing.get_type_hints(shape, include_extras=True)
    schemas[name] = {
        "type": "object",
        **({"description": inspect.cleandoc(shape.__doc__)} if shape.__doc__ else {}),
        "properties": {field: schema_of(kind, schemas) for field, kind in fields.items()},
        "required": [field for field in fields if field in shape.__required_keys__],
        "additionalProperties": False,
    }
    return name


def _operation(route, schemas):
    config, handler = route.config, route.callback
    rule = config["auth"]
    doc = inspect.getdoc(handler) or ""
    summary, _, description = doc.partition("\n")
    operation = {
        "operationId": handler.__name__,
        "summary": summary.strip(),
        "tags": [handler.__module__.rsplit(".", 1)[-1]],
        "x-auth": rule.name,
        "description": (description.strip() + "\n\n" if description.strip() else "")
        + f"Who may call it: {rule.description}",
        "security": [] if rule.public else [{"OAuth2PasswordBearer": []}],
    }
    parameters = _parameters(route, schemas)
    if parameters:
        operation["parameters"] = parameters
    if config["body"]:
        media = MEDIA.get(config["media"], "application/json")
        schema = json_schema(config["body"], form=bool(config["media"] in MEDIA))
        if config["media"] == "multipart":  # the file beside the form's fields (doorapp.uploads)
            schema["properties"]["file"] = {"type": "string", "format": "binary"}
            schema["required"] = [*schema.get("required", []), "file"]
        schema["additionalProperties"] = False  # the server reads these fields alone (and ignores others)
        operation["requestBody"] = {
            "required": bool(schema.get("required")),
            "content": {media: {"schema": schema}},
        }
    operation["responses"] = _responses(route, schemas)
    return operation


def _parameters(route, schemas):
    config, names = route.config, re.findall(r"<(\w+)>", route.rule)
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": _PARAM_SCHEMA[PATH_PARAMS[name]]}
        for name in names
    ]
    if config["query"]:
        schema = json_schema(config["query"], query=True, named=lambda enum: schema_of(enum, schemas))
        parameters += [
            {
                "name": name,
                "in": "query",
                "required": name in schema.get("required", []),
                "schema": prop,
                **(LIST_PARAMETER if prop.get("type") == "array" else {}),
            }
            for name, prop in schema["properties"].items()
            if name not in names  # the path's value is the one (a query value of its name is 422)
        ]
    if config["idempotent"]:
        parameters.append(
            {
                "name": idempotency.HEADER,
                "in": "header",
                "required": False,
                "description": idempotency.DOC,
                "schema": {"type": "string", "pattern": f"^{idempotency.KEY.pattern}$"},
            }
        )
    if config["conditional"]:
        parameters.append(
            {
                "name": "If-None-Match",
                "in": "header",
                "required": False,
                "description": "The ETag of the answer you have: unchanged, it is 304 with no body.",
                "schema": {"type": "string", "pattern": CONTROLS_FREE},
            }
        )
    return parameters


def _responses(route, schemas):
    """The route's answers: its success (its shape, another media type, or no content), the other statuses
    it answers with the same shape (`also`), 304 for a conditional route, and its problems."""
    config = route.config
    if config["answer"] is not None:
        success = {config["produces"]: {"schema": schema_of(config["answer"], schemas)}}
    elif config["produces"] != "application/json":
        success = {config["produces"].split(";")[0]: {"schema": {"type": "string"}}}
    else:
        success = None
    statuses = {config["status"]: "Success", **dict(config["also"])}
    responses = {
        str(status): {
            "description": word,
            **({"content": dict(success)} if success and status != 204 else {}),
        }
        for status, word in statuses.items()
    }
    if config["idempotent"]:
        for response in responses.values():
            response["headers"] = {"Idempotent-Replayed": REPLAYED}
    if config["conditional"]:
        responses[str(config["status"])]["headers"] = {"ETag": {"schema": {"type": "string"}}}
        responses["304"] = {"description": "Not modified: the If-None-Match ETag is current."}
    for status, problem in _problems(route).items():
        known = responses.setdefault(status, {"description": "", "content": {}})
        known["description"] = " ".join(filter(None, [known["description"], problem["description"]]))
        known.setdefault("content", {}).update(problem["content"])
    if route.method == "HEAD":  # the headers of a GET, no body
        for response in responses.values():
            response.pop("content", None)
    return dict(sorted(responses.items()))


def error_codes(route):
    """Every problem code this route can answer: those its declaration implies (its Rule's refusals,
    parameters, body, Idempotency-Key) and those it declares as its handler's (`errors=`, kept true by a
    test)."""
    config = route.config
    # serialize's own answer: the database is locked or gone, or a writer lost its race every time (transact);
    # and app.start_request's to a path with a percent-escape that is no UTF-8 (Bottle would drop its bytes,
    # so /organizations/%FF would reach /organizations/)
    codes = set(config["errors"]) | {"service_unavailable", "bad_request"} | config["auth"].refusals
    if "<" in route.rule or config["query"] or config["body"]:
        codes.add("validation_error")
    if config["body"]:
        codes |= {"malformed_json", "body_too_large", "unsupported_media_type"}
    if config.get("idempotent"):
        codes |= {"validation_error", "idempotency_key_reused"}
    return codes


def _problems(route):
    by_status = {}
    for code in error_codes(route):
        by_status.setdefault(CODES[code], []).append(code)
    return {
        str(status): {
            "description": "Problem: " + ", ".join(sorted(codes)),
            "content": {"application/problem+json": {"schema": PROBLEM_REF}},
        }
        for status, codes in sorted(by_status.items())
    }
