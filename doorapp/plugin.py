"""ApiPlugin: the request chain every API route runs through (docs/architecture.md follows a request)."""

import io
import json
import re
import uuid

from bottle import request, response
from peewee import DataError, InterfaceError, OperationalError

from doorapp import access, bodies, idempotency, uploads
from doorapp.api import PATH_PARAMS
from doorapp.bodies import INT64
from doorapp.db import db, decided, drop_connection, write
from doorapp.errors import ApiError, Invalid, invalid, log, validation_error

MAX_BODY = 64 * 1024
DIGITS = re.compile(r"-?[0-9]+")


class ApiPlugin:
    """Bottle's plugin for API routes: each route runs its declared stages (authorize, parse, transact,
    once, serialize), built once per route by apply()."""

    name, api = "door_api", 2

    def __init__(self, config, keys):
        self.config, self.keys = config, keys

    def apply(self, handler, route):
        config = route.config
        if "auth" not in config:
            raise TypeError(f"{route.method} {route.rule} declares no auth= Rule; use endpoint()")
        checked = authorize(config["auth"], self.keys)
        parsed = parse(config, wants_caller="caller" in route.get_callback_args())

        def prepare(args):
            return parsed(*checked(args))

        act = once(handler) if config["idempotent"] else lambda caller, args: handler(**args)
        run = transact(config["tx"], route.method in ("GET", "HEAD"), prepare, act)
        return serialize(config["status"], config["produces"], run)


def authorize(rule, keys):
    """The stage that knows the caller: path ids typed, then the token step (who is calling: a Caller, or
    401) and the Rule (403)."""

    def check(args):
        args = path_args(args)
        caller = access.caller(keys, rule, args.get("org_id"))
        rule.enforce(caller, args)
        return caller, args

    return check


def parse(config, wants_caller):
    """The stage that reads the body and query string into their dataclasses (400, 413, 415, 422); it runs
    after authorize, so a stranger learns nothing from a 422."""
    body, query, form = config["body"], config["query"], config["media"] == "form"
    upload = config["media"] == "multipart"  # a file (uploads.read_upload) as `upload`, its form as `body`

    def read(caller, args):
        path = list(args)  # the path's parameters, before the body and the upload join them
        if form or upload:
            data = read_form() if form else uploads.read_upload()
            if upload:
                data, args["upload"] = data
            if body:
                args["body"] = bodies.parse(body, data, strings=True)
        elif body:
            args["body"] = bodies.parse(body, read_json())
        if query:
            args["query"] = bodies.parse(query, query_apart_from(path), where="query")
        if wants_caller:
            args["caller"] = caller
        return caller, args

    return read


def once(handler):
    """The stage of `idempotent=True` routes: an Idempotency-Key answered before answers the same again."""
    return lambda caller, args: idempotency.once(
        caller, args.get("body"), lambda: handler(**args), args.get("org_id")
    )


def transact(tx, reader, prepare, act):
    """The stage that opens the request's transaction: none for `tx=False` (the handler opens its own), one
    read snapshot for readers; a writer does its reads (authorize, parse) first and only then takes its
    turn to write (db.write()), so the write lock is held for the handler alone.
    A writer (and a `tx=False` handler) that lost a race to another process's transaction runs once more
    and answers as if it came second (db.decided: its check now sees the winner's row, 409); lost every
    time, it is 503 service_unavailable, which serialize answers for every route."""

    def own(args):
        caller, args = prepare(args)
        return decided(lambda: act(caller, args))

    def read(args):
        with db.atomic():
            return act(*prepare(args))

    def change(args):
        caller, args = prepare(args)
        return decided(lambda: _written(act, caller, args))

    if not tx:
        return own
    return read if reader else change


def _written(act, caller, args):
    with write():
        return act(caller, args)


def serialize(status, produces, run):
    """The outer stage: the success status, the result as JSON (or the `produces` type as given), and any
    ApiError or database failure as a problem."""

    def wrapper(**args):
        response.status = status  # a handler may change it (GET /health answers 503)
        try:
            result = run(args)
        except ApiError as error:
            return error.response()
        except (OperationalError, InterfaceError) as error:  # locked past busy_timeout, a lost file or
            return unavailable(error).response()  # server, races lost every time: not the client's fault
        except DataError as error:  # a value the database refuses (a text too long for its column...)
            return refused(error).response()
        except Exception:  # a bug: answered here, so the log line says 500 and the answer keeps its id
            return crashed().response()
        if result is None:
            return b""
        if produces != "application/json":
            response.content_type = produces
        if isinstance(result, (bytes, str, io.BytesIO)):
            return result
        response.content_type = "application/json"
        return json.dumps(result)

    return wrapper


def unavailable(error):
    """503 for a database that failed the request; its connection is dropped (see drop_connection)."""
    drop_connection()
    log.error("request %s: database unavailable: %s", request.environ.get("door.request_id"), error)
    return ApiError(
        503,
        "service_unavailable",
        "The database is unavailable; try again in a moment.",
        headers={"Retry-After": "1"},
    )


def crashed():
    """500 for a request that failed unexpectedly; its traceback is logged with the request's id."""
    drop_connection()
    log.exception("request %s failed", request.environ.get("door.request_id"))
    message = "Something went wrong on the server; it has been logged. Please try again."
    return ApiError(500, "internal_error", message)


def refused(error):
    """422 for a value the database refused that no rule caught first (each such case wants a rule)."""
    log.warning("request %s: the database refused a value: %s", request.environ.get("door.request_id"), error)
    message = "A value is not one the database can store."
    return validation_error([invalid(("body",), "invalid", message, rule="storable")])


def path_args(args):
    """Path parameters converted by PATH_PARAMS; every bad one at once as a 422 (control characters
    included: bodies.refuse_controls)."""
    converted, errors = {}, []
    for name, raw in args.items():
        kind = PATH_PARAMS[name]
        try:
            bodies.refuse_controls(raw)
            if kind is int and not DIGITS.fullmatch(raw):  # int() takes "+5", "1_000", other scripts' digits
                raise ValueError
            value = kind(raw)
            if kind is int and not INT64[0] <= value <= INT64[1]:
                raise ValueError
            converted[name] = str(value) if kind is uuid.UUID else value
        except Invalid as error:
            errors.append(error.at(("path", name)))
        except ValueError:
            loc = ("path", name)
            errors.append(
                invalid(loc, "invalid", "Must be a UUID.", rule="uuid")
                if kind is uuid.UUID
                else invalid(loc, "type", "Must be a whole number.", expected="integer")
            )
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
    """The JSON object body; absent or empty reads as {}."""
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


def query_apart_from(path):
    """The query string's parameters; one named as a path parameter is 422: the path's value is the one."""
    data = read_query()
    given = [name for name in path if name in data]
    if given:
        message = "Given in the path; leave it out of the query."
        raise validation_error(
            [invalid(("query", name), "invalid", message, rule="in_path") for name in given]
        )
    return data


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
