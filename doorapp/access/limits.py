"""Rate limits: failed attempts (sign-ins, codes, look-ups) counted per key in the database, so they hold
across restarts and processes; and the client's address they are often kept by."""

import hashlib
import ipaddress
from datetime import timedelta

from bottle import request

from doorapp.access.passwords import verify_secret
from doorapp.db import utcnow, write
from doorapp.errors import ApiError
from doorapp.models import Failure

WINDOW, MAX_FAILURES, MAX_SIGN_INS = timedelta(minutes=5), 10, 30


def client_address(trusted_proxies):
    """The socket peer, or the last untrusted X-Forwarded-For address when the peer is a trusted proxy."""
    peer = request.environ.get("REMOTE_ADDR", "")
    if not trusted_proxies or not _trusted(peer, trusted_proxies):
        return peer
    hops = [h.strip() for h in request.get_header("X-Forwarded-For", "").split(",") if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, trusted_proxies):
            return hop
    return peer


def trusted_networks(setting):
    return [ipaddress.ip_network(part.strip(), strict=False) for part in setting.split(",") if part.strip()]


def _trusted(address, networks):
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


def bounded_key(key):
    """A rate-limit key as stored: one longer than 100 characters (a sign-in name or forwarded address of
    any length) is kept as its prefix and SHA-256, so it fits the key column on every engine."""
    if len(key) <= 100:
        return key
    return f"{key.split(':', 1)[0]}:sha256:{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()}"


def reserve_attempt(*keys, limit=MAX_FAILURES, what="failed attempts"):
    """Count an attempt against each key *before* it is verified, or 429 when a key already has
    `limit` within the window. Reserving in the same write transaction as the count is what keeps
    parallel guesses within the limit (checking, verifying, then recording let 40 parallel guesses through).
    Returns the reservation; forgive() takes it back when the attempt succeeds."""
    with write():
        oldest, reservation = Failure.reserve([bounded_key(key) for key in keys], limit, WINDOW)
    if reservation is None:
        retry = max(1, int((oldest + WINDOW - utcnow()).total_seconds()) + 1)
        raise ApiError(
            429,
            "rate_limited",
            f"Too many {what}; try again in {retry} seconds.",
            headers={"Retry-After": str(retry)},
        )
    return reservation


def forgive(reservation):
    """A successful attempt does not count against its keys."""
    with write():
        Failure.forgive(reservation)


def verified(reservation, stored, secret):
    """verify_secret() of an attempt counted by reserve_attempt(): one refused because Door is busy hashing
    (429) was never judged, so it is no failed attempt and its count is taken back."""
    try:
        return verify_secret(stored, secret)
    except ApiError:
        forgive(reservation)
        raise
