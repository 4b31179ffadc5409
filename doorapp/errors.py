"""The one error type, the table of problem codes, the 422 vocabulary, and RFC 9457 problem rendering for
everything (docs/api.md)."""

import json
import logging
from http import HTTPStatus

from bottle import HTTPResponse, request, response

log = logging.getLogger("doorapp")
LOGGED_SAFE = "/:@!$&'()*+,;=-._~"  # a path's characters the access log writes as they are; others %XX

# Every problem code and its status; ApiError refuses any other code.
CODES = {
    "malformed_json": 400,
    "invalid_recovery_code": 400,
    "bad_request": 400,
    "not_authenticated": 401,
    "invalid_token": 401,
    "invalid_credentials": 401,
    "pass_ended": 401,
    "account_pending": 403,
    "account_disabled": 403,
    "site_admin_required": 403,
    "not_org_member": 403,
    "org_admin_required": 403,
    "invalid_setup_code": 403,
    "pass_not_allowed": 403,
    "invalid_pass_code": 403,
    "not_found": 404,
    "not_on_list": 404,
    "platform_user_not_found": 404,
    "platform_event_not_found": 404,
    "method_not_allowed": 405,
    "username_taken": 409,
    "org_name_taken": 409,
    "org_slug_taken": 409,
    "already_member": 409,
    "guest_exists": 409,
    "duplicate_meetup": 409,
    "already_banned": 409,
    "not_banned": 409,
    "meetup_finalized": 409,
    "not_finalized": 409,
    "already_finalized": 409,
    "already_checked_in": 409,
    "not_checked_in": 409,
    "already_on_list": 409,
    "guest_banned": 409,
    "cannot_modify_self": 409,
    "already_disabled": 409,
    "not_disabled": 409,
    "already_set_up": 409,
    "not_a_no_show": 409,
    "already_excused": 409,
    "meetup_cancelled": 409,
    "meetup_has_arrivals": 409,
    "meetup_not_started": 409,
    "already_outside": 409,
    "not_outside": 409,
    "capacity_reached": 409,
    "tag_exists": 409,
    "meetup_forgotten": 409,
    "request_timeout": 408,
    "body_too_large": 413,
    "unsupported_media_type": 415,
    "validation_error": 422,
    "unreadable_file": 422,
    "idempotency_key_reused": 422,
    "rate_limited": 429,
    "internal_error": 500,
    "platform_error": 502,
    "service_unavailable": 503,
    "platform_unreachable": 504,
}
# Bottle's own errors (router 404/405, its 400/413) and crashes map to these codes.
_CODE_FOR_STATUS = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "body_too_large",
    429: "rate_limited",
    500: "internal_error",
}


def code_for_status(status):
    """The code of an error Door did not raise itself (Bottle's, waitress's, a crash)."""
    return _CODE_FOR_STATUS.get(status, "bad_request" if status < 500 else "internal_error")


class ApiError(Exception):
    """`raise ApiError(409, "already_banned", "This guest is already banned here.", **extensions)`."""

    def __init__(self, status, code, detail, headers=None, **extensions):
        assert CODES.get(code) == status, f"{code} is not a {status} code in CODES"
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail
        self.headers, self.extensions = headers or {}, extensions

    def body(self):
        return problem(self.status, self.code, self.detail, **self.extensions)

    def response(self):
        headers = dict(self.headers)
        if self.status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        return HTTPResponse(
            json.dumps(self.body()), self.status, headers, Content_Type="application/problem+json"
        )


# The `type` of each error of a 422, and what its `ctx` holds: a client words the error from these (its
# `msg` is English).
VALIDATION_TYPES = {
    "missing": "a required field is absent; ctx {}",
    "type": 'the value has the wrong JSON type; ctx {"expected": "string", "integer", "boolean", "object", '
    '"array" or "datetime"}',
    "blank": "a text is empty once its surrounding spaces are stripped; ctx {}",
    "too_short": 'a text has fewer characters than allowed; ctx {"min": N}',
    "too_long": 'a text has more characters than allowed; ctx {"max": N}',
    "pattern": 'a text does not have the required form; ctx {"pattern": the regular expression}',
    "too_small": 'a number is below the smallest allowed; ctx {"min": N}',
    "too_large": 'a number is above the largest allowed; ctx {"max": N}',
    "choice": 'the value is not one of the allowed ones; ctx {"choices": [...]}',
    "datetime": "the value is not an ISO 8601 moment; ctx {}",
    "invalid": 'any other rule; ctx {"rule": its short name, such as "uuid"}; msg says it',
}


def invalid(loc, kind, msg, **ctx):
    """One error of a 422: where (`loc`, a tuple such as ("body", "reason")), its VALIDATION_TYPES word,
    the English message, and its limits."""
    assert kind in VALIDATION_TYPES, kind
    return {"loc": list(loc), "msg": msg, "type": kind, "ctx": ctx}


class Invalid(Exception):
    """A value that breaks a rule, before it is known where it was: .at(loc) makes it an error of a 422."""

    def __init__(self, kind, msg, **ctx):
        super().__init__(msg)
        self.kind, self.msg, self.ctx = kind, msg, ctx

    def at(self, loc):
        return invalid(loc, self.kind, self.msg, **self.ctx)


def validation_error(errors):
    """One 422 listing every bad field: errors = [invalid(...), ...]."""
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"][1:]) or first["loc"][0]
    detail = f"{where}: {first['msg']}"
    if len(errors) > 1:
        detail += f" (and {len(errors) - 1} more)"
    return ApiError(422, "validation_error", detail, errors=errors)


def problem(status, code, detail, **extensions):
    return {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **extensions,
    }


def render_problem(error):
    """Bottle's default_error_handler: router 404/405, Bottle's 400/413 and crashes as problem+json."""
    status = error.status_code
    if status >= 500:
        log.error("request %s failed: %s", request.environ.get("door.request_id", "-"), error.traceback or "")
        detail = "Something went wrong on the server; it has been logged. Please try again."
    elif status == 404:
        detail = f"There is nothing at {request.path}."
    elif status == 405:
        detail = f"{request.method} is not allowed here; allowed: {response.headers.get('Allow', '')}."
    else:
        detail = str(error.body) if isinstance(error.body, str) and error.body else HTTPStatus(status).phrase
    response.content_type = "application/problem+json"
    response.headers["X-Request-ID"] = request.environ.get("door.request_id", "-")  # a crash: found by it
    response.headers["Cache-Control"] = "no-store"  # rendered after the after_request hook has looked
    if status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return json.dumps(problem(status, code_for_status(status), detail))
