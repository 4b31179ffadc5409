"""Idempotency-Key on door actions (check-in, walk-in, undo): a door that lost an answer sends the same
request with the same key again and gets the first answer, without the action happening twice.

The key is stored with the action, in its transaction (a table, so every process sees it); only a success
is kept: a refused request changed nothing and is judged again when retried. A key is the caller's own, kept
IdempotencyKey.RETENTION (24 hours); reused with another request (method, path or body) it is 422
idempotency_key_reused."""

import hashlib
import json
import re
from dataclasses import asdict

from bottle import request, response

from doorapp.errors import ApiError, invalid, validation_error
from doorapp.models import IdempotencyKey

HEADER = "Idempotency-Key"
KEY = re.compile(r"[\x21-\x7e]{8,255}")  # visible ASCII: a UUID, or 16 random bytes in hex
DOC = (
    "Any 8 to 255 visible ASCII characters (a UUID, say), new for each action. The same key with the same "
    "request within 24 hours answers what the first one answered (with `Idempotent-Replayed: true`) "
    "and acts once, however often it is sent, from however many processes; only successes are kept. "
    "The same key with another method, path or body is 422 idempotency_key_reused."
)


def once(caller, body, act, org_id=None):
    """act() unless this caller's Idempotency-Key was answered before: then that answer. Without the
    header, act(). `org_id`: the org whose door acts (erasing a guest there forgets the answers that name
    them)."""
    key = request.get_header(HEADER)
    if key is None:
        return act()
    if not KEY.fullmatch(key):
        message = "Must be 8 to 255 visible ASCII characters."
        raise validation_error([invalid(("header", HEADER), "pattern", message, pattern=KEY.pattern)])
    sent = json.dumps([request.method, request.path, body and asdict(body)], sort_keys=True, default=str)
    fingerprint = hashlib.sha256(sent.encode()).hexdigest()
    owner = caller.owner_id
    if (
        caller.user is None
    ):  # a caller without an account (a door pass): under its maker, in a space of its own
        key = f"{caller.key} {hashlib.sha256(key.encode()).hexdigest()}"
    stored = IdempotencyKey.claim(owner, key, fingerprint, org_id)
    if stored is not None:
        if stored.request != fingerprint:
            raise ApiError(
                422,
                "idempotency_key_reused",
                f"This {HEADER} was used for another request; make a new key for each action.",
            )
        response.status = stored.status
        response.set_header("Idempotent-Replayed", "true")
        return json.loads(stored.answer)
    result = act()
    IdempotencyKey.answered(owner, key, response.status_code, json.dumps(result))
    return result
