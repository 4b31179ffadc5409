"""OpenAPI 3.1 derived from the route table: nothing here is written per endpoint."""

import inspect
import re
import uuid

from doorapp import __version__, idempotency
from doorapp.api import PATH_PARAMS
from doorapp.bodies import json_schema
from doorapp.errors import CODES, VALIDATION_TYPES

_PARAM_SCHEMA = {
    uuid.UUID: {"type": "string", "format": "uuid"},
    int: {"type": "integer", "format": "int64"},
    str: {"type": "string"},
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


def build(app):
    paths = {}
    for route in app.routes:
        if "auth" not in route.config:
            continue
        path = re.sub(r"<(\w+)>", r"{\1}", route.rule)
        paths.setdefault(path, {})[route.method.lower()] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Door API",
            "version": __version__,
            "description": "Door: door management for meetups. Sign in with the Authorize button "
            "(OAuth 2.0 password flow against /auth/token).",
        },
        "paths": paths,
        "components": {
            "schemas": {"Problem": PROBLEM},
            "securitySchemes": {
                "OAuth2PasswordBearer": {
                    "type": "oauth2",
                    "flows": {"password": {"tokenUrl": "/auth/token", "scopes": {}}},
                }
            },
        },
    }


def _operation(route):
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
    }
    if not rule.public:
        operation["security"] = [{"OAuth2PasswordBearer": []}]
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": _PARAM_SCHEMA[PATH_PARAMS[name]]}
        for name in re.findall(r"<(\w+)>", route.rule)
    ]
    if config["query"]:
        schema = json_schema(config["query"])
        parameters += [
            {
                "name": name,
                "in": "query",
                "required": name in schema.get("required", []),
                "schema": prop,
                **({"style": "form", "explode": False} if prop.get("type") == "array" else {}),
            }
            for name, prop in schema["properties"].items()
        ]
    if config.get("idempotent"):
        parameters.append(
            {
                "name": idempotency.HEADER,
                "in": "header",
                "required": False,
                "description": idempotency.DOC,
                "schema": {"type": "string", "minLength": 8, "maxLength": 255},
            }
        )
    if parameters:
        operation["parameters"] = parameters
    if config["body"]:
        media = MEDIA.get(config["media"], "application/json")
        schema = json_schema(config["body"])
        if config["media"] == "multipart":  # the file beside the form's fields (doorapp.uploads)
            schema["properties"]["file"] = {"type": "string", "format": "binary"}
            schema["required"] = [*schema.get("required", []), "file"]
        operation["requestBody"] = {
            "required": bool(schema.get("required")),
            "content": {media: {"schema": schema}},
        }
    status = config["status"]
    produces = config["produces"]
    schema = {"type": "object"} if produces == "application/json" else {"type": "string"}
    success = (
        {"description": "Success"}
        if status == 204
        else {"description": "Success", "content": {produces.split(";")[0]: {"schema": schema}}}
    )
    operation["responses"] = {str(status): success, **_problems(route)}
    return operation


def error_codes(route):
    """Every problem code this route can answer: those its declaration implies (rule, parameters, body,
    Idempotency-Key) and those it declares as its handler's (`errors=`, kept true by a test)."""
    config = route.config
    # serialize's own answer: the database is locked or gone, or a writer lost its race every time (transact)
    codes = set(config["errors"]) | {"service_unavailable"}
    rule = config["auth"]
    if not rule.public:
        codes |= {"not_authenticated", "invalid_token", "account_pending", "account_disabled"}
        if rule.name == "site_admin":
            codes.add("site_admin_required")
        if rule.name in ("org_member", "org_admin"):
            codes.add("not_org_member")
        if rule.name in ("org_admin", "any_org_admin"):
            codes.add("org_admin_required")
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
            "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for status, codes in sorted(by_status.items())
    }
