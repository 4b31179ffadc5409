"""ApiPlugin: the request chain every API route runs through, in API.md's order."""

import io
import json
import re
import uuid

from bottle import request, response
from peewee import InterfaceError, OperationalError

from doorapp import access, bodies, idempotency
from doorapp.api import PATH_PARAMS
from doorapp.bodies import INT64
from doorapp.db import db, drop_connection, write
from doorapp.errors import ApiError, invalid, log, validation_error

MAX_BODY = 64 * 1024
DIGITS = re.compile(r"-?[0-9]+")


class ApiPlugin:
    name, api = "door_api", 2

    def __init__(self, config):
        self.config = config

    def apply(self, handler, route):
        if "auth" not in route.config:
            raise TypeError(f"{route.method} {route.rule} declares no auth= Rule; use endpoint()")
        rule, body, status = route.config["auth"], route.config["body"], route.config["status"]
        query = route.config["query"]
        media, tx, produces = route.config["media"], route.config["tx"], route.config["produces"]
        idempotent = route.config.get("idempotent", False)
        wants_user = "user" in route.get_callback_args()
        secret = self.config.secret_key
        reader = route.method in ("GET", "HEAD")

        def authorized(args):
            """The handler's arguments once the caller is known and allowed and the body is read: only
            reads, so a writer does them before it takes its turn to write (write())."""
            args = path_args(args)
            user = access.current_user(secret, rule, args.get("org_id"))
            rule.enforce(user, args)
            if body:
                args["body"] = (
                    bodies.parse(body, read_form(), strings=True)
                    if media == "form"
                    else bodies.parse(body, read_json())
                )
            elif media == "form":
                read_form()
            if query:
                args["query"] = bodies.parse(query, read_query(), where="query")
            if wants_user:
                args["user"] = user
            return user, args

        def run(user, args):
            if idempotent:
                return idempotency.once(user, args.get("body"), lambda: handler(**args))
            return handler(**args)

        def wrapper(**args):
            response.status = status  # a handler may change it (GET /health answers 503)
            try:
                if not tx:
                    result = run(*authorized(args))
                elif reader:
                    with db.atomic():
                        result = run(*authorized(args))
                else:
                    user, args = authorized(args)
                    with write():
                        result = run(user, args)
            except ApiError as error:
                return error.response()
            except (OperationalError, InterfaceError) as error:  # locked past busy_timeout, a lost file or
                drop_connection()  # server: not the client's fault
                log.error(
                    "request %s: database unavailable: %s", request.environ.get("door.request_id"), error
                )
                return ApiError(
                    503,
                    "service_unavailable",
                    "The database is unavailable; try again in a moment.",
                    headers={"Retry-After": "1"},
                ).response()
            if result is None:
                return b""
            if produces != "application/json":
                response.content_type = produces
            if isinstance(result, (bytes, str, io.BytesIO)):
                return result
            response.content_type = "application/json"
            return json.dumps(result)

        return wrapper


def path_args(args):
    """Path parameters converted by PATH_PARAMS; every bad one at once as a 422."""
    converted, errors = {}, []
    for name, raw in args.items():
        kind = PATH_PARAMS[name]
        try:
            if kind is int and not DIGITS.fullmatch(raw):  # int() takes "+5", "1_000", other scripts' digits
                raise ValueError
            value = kind(raw)
            if kind is int and not INT64[0] <= value <= INT64[1]:
                raise ValueError
            converted[name] = str(value) if kind is uuid.UUID else value
        except ValueError:
            loc = ("path", name)
            errors.append(invalid(loc, "invalid", "Must be a UUID.", rule="uuid") if kind is uuid.UUID
                          else invalid(loc, "type", "Must be a whole number.", expected="integer"))
    if errors:
        raise validation_error(errors)
    return converted


def _raw_body():
    length = request.content_length
    if length > MAX_BODY:
        raise ApiError(413, "body_too_large", f"The request body is larger than {MAX_BODY // 1024} KiB.")
    if length < 0:  # chunked: read one byte past the limit to tell
        data = request.body.read(MAX_BODY + 1)
        if len(data) > MAX_BODY:
            raise ApiError(413, "body_too_large", f"The request body is larger than {MAX_BODY // 1024} KiB.")
        return data
    return request.body.read(length) if length else b""


def read_json():
    """The JSON object body; absent or empty reads as {} (API.md)."""
    kind = request.content_type.split(";")[0].strip().lower()
    data = _raw_body()
    if not data.strip():
        return {}
    if kind != "application/json" and not kind.endswith("+json"):  # none: a cross-site form could send it
        raise ApiError(415, "unsupported_media_type", "Send the body as application/json.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "malformed_json", "The body is not UTF-8 text.") from None
    try:
        value = json.loads(text)
        json.dumps(value, ensure_ascii=False).encode()  # a lone surrogate ("\ud800") is no text to store
    except (ValueError, RecursionError):  # UnicodeEncodeError is a ValueError; nesting past Python's limit
        raise ApiError(400, "malformed_json", "The body is not valid JSON text.") from None
    if not isinstance(value, dict):
        message = "The body must be a JSON object."
        raise validation_error([invalid(("body",), "type", message, expected="object")])
    return value


def read_query():
    """The query string's parameters as UTF-8 text (WSGI hands them over decoded as Latin-1)."""
    try:
        return request.query.decode("utf-8")
    except UnicodeDecodeError:
        message = "The query string is not UTF-8 text."
        raise validation_error([invalid(("query",), "invalid", message, rule="utf8")]) from None


def read_form():
    """A form-encoded body (OAuth 2.0 password flow); a JSON body is 415."""
    kind = request.content_type.split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise ApiError(
            415,
            "unsupported_media_type",
            "Send the form as application/x-www-form-urlencoded (OAuth 2.0 password flow).",
        )
    if request.content_length > MAX_BODY:
        raise ApiError(413, "body_too_large", f"The request body is larger than {MAX_BODY // 1024} KiB.")
    try:
        return {k: request.forms.getunicode(k) for k in request.forms}
    except UnicodeDecodeError:
        raise ApiError(400, "malformed_json", "The form is not UTF-8 text.") from None
