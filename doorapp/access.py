"""Passwords (argon2id), tokens (JWT HS256), rate limits, and the authorization chain as declared Rules."""

import calendar
import functools
import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from contextlib import contextmanager
from datetime import timedelta

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from bottle import request

from doorapp.db import utcnow, write
from doorapp.errors import ApiError
from doorapp.models import DoorPass, Failure, Membership, User
from doorapp.models.passes import is_pass, pass_ended

# argon2id as OWASP's Password Storage Cheat Sheet first recommends: 19 MiB, 2 passes, 1 lane (~30 ms of one
# core). The library's default (RFC 9106's low-memory one: 64 MiB, 4 lanes) took 64 MiB and both cores per
# hash, and made that the server's peak memory. Hashes made with other parameters still verify, and a
# sign-in replaces them (rehashed()).
hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
# One password hash at a time: a flood of them would take the cores and memory the door's requests need.
# Sign-ins wait their turn; of requests for a new account (anyone can make them) at most two are let in to
# wait, and the others are refused before they cost anything, so the server's threads stay free for the door.
_hashing, _newcomers = threading.Semaphore(1), threading.Semaphore(2)
# Of the server's 8 threads at most 3 wait for the hashing slot, each at most HASH_WAIT seconds; the others
# get 429 at once, so sign-ins (right passwords too) never hold every thread while a door checks in.
_waiting, HASH_WAIT = threading.Semaphore(3), 2.0


def _busy():
    return ApiError(
        429,
        "rate_limited",
        "Door is busy checking passwords; try again in a moment.",
        headers={"Retry-After": "1"},
    )


@contextmanager
def hashing_slot():
    """The one password-hashing slot, waited for a bounded time by a bounded number of threads, else 429."""
    if not _waiting.acquire(blocking=False):
        raise _busy()
    try:
        if not _hashing.acquire(timeout=HASH_WAIT):
            raise _busy()
    finally:
        _waiting.release()
    try:
        yield
    finally:
        _hashing.release()


def hash_secret(secret):
    with hashing_slot():
        return hasher.hash(secret)


@contextmanager
def newcomer():
    """A place among the two new-account requests let in at a time, or 429 at once."""
    if not _newcomers.acquire(blocking=False):
        raise ApiError(
            429,
            "rate_limited",
            "Door is busy with other new accounts; try again in a few seconds.",
            headers={"Retry-After": "2"},
        )
    try:
        yield
    finally:
        _newcomers.release()


@functools.cache
def _dummy_hash():
    """A hash to verify against for unknown names, to spend the same time on them (made when first needed:
    a hash takes 19 MiB while it is made)."""
    return hasher.hash("a password nobody has, to spend the same time on unknown names")


def verify_secret(stored_hash, secret):
    """True when `secret` matches; an absent hash costs the same time as a wrong secret."""
    with hashing_slot():
        try:
            return hasher.verify(stored_hash or _dummy_hash(), secret) and stored_hash is not None
        except (VerificationError, InvalidHashError):
            return False


def rehashed(stored_hash, secret):
    """A new hash of `secret` (just verified against `stored_hash`) when that was made with other
    parameters than `hasher`'s; else None."""
    return hash_secret(secret) if hasher.check_needs_rehash(stored_hash) else None


def same(a, b):
    return hmac.compare_digest(a.encode(), b.encode())


# --- tokens -------------------------------------------------------------------------------------

_tokens = {}  # (signing key, token): its verified claims (what checking it again would give; at most 1,000)


def issue_token(secret, user, minutes, kid=None):
    """A token for `user`, naming its key (`kid`, doorapp.keys) when given."""
    now = utcnow()
    claims = {"sub": user.username, "role": user.role, "iat": now, "exp": now + timedelta(minutes=minutes)}
    return _signed(claims, secret, kid)


def issue_pass_token(secret, door_pass, kid=None):
    """A door pass's token: its own `role` and a `sub` no account can have (usernames hold no spaces), so a
    browser never takes it for a user's; it expires with the pass. Nothing in it comes from the pairing
    code. It names its key (`kid`) as issue_token's do."""
    claims = {
        "sub": f"pass {door_pass.id}",
        "role": "PASS",
        "pass": door_pass.id,
        "iat": utcnow(),
        "exp": door_pass.ends_at,
        "jti": secrets.token_hex(16),
    }
    return _signed(claims, secret, kid)


def _signed(claims, secret, kid):
    """A JWT of `claims` (HS256), naming its key in the header `kid` when given."""
    return jwt.encode(claims, secret, algorithm="HS256", headers={"kid": kid} if kid else None)


def _claims(keys):
    header = request.get_header("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "not_authenticated", "Sign in first: send Authorization: Bearer <token>.")
    try:
        claims = _verified(keys, token.strip())
    except jwt.ExpiredSignatureError:
        if _expired_role(keys.secret, token.strip()) == "PASS":
            raise pass_ended() from None
        raise ApiError(401, "invalid_token", "Your session has expired; sign in again.") from None
    except jwt.InvalidTokenError:
        raise ApiError(401, "invalid_token", "The token is not valid; sign in again.") from None
    role = claims.get("role")
    a_pass_without_one = role == "PASS" and not isinstance(claims.get("pass"), int)
    if role not in ("USER", "SITE_ADMIN", "PASS") or not isinstance(claims["sub"], str) or a_pass_without_one:
        raise ApiError(401, "invalid_token", "The token is not valid; sign in again.")
    return claims


def _expired_role(secret, token):
    """The role of a token whose signature holds and whose time is up."""
    try:
        return jwt.decode(token, secret, algorithms=["HS256"], options={"verify_exp": False}).get("role")
    except jwt.InvalidTokenError:
        return None


def _verified(keys, token):
    """The token's claims once its signature and claims are checked; a token seen before is looked up
    (a door polls every second with the same one) and only its expiry checked again. A token naming
    another key than this process's (`kid`) has the key read again: another machine may have rotated it.
    (A token with no `kid`, made before tokens named their key, is checked with the key in use.)"""
    secret = keys.secret
    claims = _tokens.get((secret, token))
    if claims is None:
        kid = jwt.get_unverified_header(token).get("kid")
        if kid is not None and kid != keys.kid:
            keys.refresh()
            secret = keys.secret
            if kid != keys.kid:
                raise ApiError(
                    401,
                    "invalid_token",
                    "Door's signing key was changed (doorapp rotate-key), which ended every session; "
                    "sign in again.",
                )
        claims = jwt.decode(token, secret, algorithms=["HS256"], options={"require": ["sub", "exp"]})
        if len(_tokens) >= 1000:
            _tokens.clear()
        _tokens[secret, token] = claims
    elif int(claims["exp"]) <= time.time():  # as PyJWT judges it (no leeway)
        raise jwt.ExpiredSignatureError
    return claims


def current_user(keys, rule, org_id=None):
    """The signed-in user with `token_role` set from the token, or None for public rules (401 if absent).
    With `org_id`, the user's role there (or None) comes in the same query as `org_role`. `keys`: the
    process's doorapp.keys.Keys. A door pass's token gives its DoorPass while it may act, read from the
    database on every request (401 pass_ended)."""
    if rule.public:
        return None
    claims = _claims(keys)
    if claims["role"] == "PASS":
        return DoorPass.acting(claims["pass"])
    user = User.signed_in(claims["sub"], org_id)
    if user is None:
        raise ApiError(401, "invalid_token", "The account of this token no longer exists; sign in again.")
    ended = user.sessions_since and claims.get("iat", 0) < calendar.timegm(user.sessions_since.timetuple())
    if ended and not user.is_disabled:  # a disabled account hears so (403) first (docs/api.md)
        raise ApiError(
            401,
            "invalid_token",
            "This session has ended (a new password, a disabled account or a new signing key); "
            "sign in again.",
        )
    user.token_role = claims["role"]
    return user


# --- the authorization chain ----------------------------------------------------------------------


def account_refusal(user):
    """403 for an account that may not act (checked at login and on every request)."""
    if user.is_disabled:
        return ApiError(403, "account_disabled", "This account has been disabled; ask a site admin.")
    if not user.is_approved:
        return ApiError(403, "account_pending", "This account is waiting for a site admin's approval.")
    return None


class Rule:
    """Who may call a route. `check(user, args)` returns None or an ApiError; site admins skip org checks.
    A door pass may call only the routes whose Rule has `passes` (the door's), in its org and meetup."""

    def __init__(self, name, check=None, public=False, needs=(), description="", passes=False):
        self.name, self.check, self.public, self.needs = name, check, public, needs
        self.description, self.passes = description, passes

    def enforce(self, user, args):
        if self.public:
            return
        if is_pass(user):
            refusal = self._pass_refusal(user, args)
            if refusal:
                raise refusal
            return
        refusal = account_refusal(user)
        if refusal:
            raise refusal
        if self.check and user.token_role != "SITE_ADMIN":
            refusal = self.check(user, args)
            if refusal:
                raise refusal

    def _pass_refusal(self, door_pass, args):
        """403 pass_not_allowed for a door pass outside the door, its org or its meetup."""
        if not self.passes:
            return pass_not_allowed("A door pass may only work the door; sign in with an account for this.")
        if "org_id" in args and args["org_id"] != str(door_pass.org_id):
            return pass_not_allowed("This door pass is for another organization.")
        if door_pass.meetup_id and "meetup_id" in args and args["meetup_id"] != str(door_pass.meetup_id):
            return pass_not_allowed("This door pass is for another meetup.")
        return None

    def __repr__(self):
        return f"Rule({self.name})"


def pass_not_allowed(message):
    return ApiError(403, "pass_not_allowed", message)


def _site_admin(user, args):
    return ApiError(403, "site_admin_required", "Only a site admin may do this.")


def _org_role(needed):
    def check(user, args):
        role = user.org_role
        if role is None:
            return ApiError(403, "not_org_member", "You are not a member of this organization.")
        if needed == "ADMIN" and role != "ADMIN":
            return ApiError(403, "org_admin_required", "Only an admin of this organization may do this.")
        return None

    return check


def _admin_anywhere(user, args):
    if Membership.administers_any(user.id):
        return None
    return ApiError(403, "org_admin_required", "Only an organization admin or a site admin may do this.")


public = Rule("public", public=True, description="No authentication.")
signed_in = Rule("signed_in", description="Any approved, enabled user.")
site_admin = Rule("site_admin", _site_admin, description="A SITE_ADMIN (role in the token).")
org_member = Rule(
    "org_member",
    _org_role("STAFF"),
    needs=("org_id",),
    description="A member of the organization (STAFF or ADMIN), or a SITE_ADMIN.",
)
org_admin = Rule(
    "org_admin",
    _org_role("ADMIN"),
    needs=("org_id",),
    description="An ADMIN of the organization, or a SITE_ADMIN.",
)
door = Rule(
    "door",
    _org_role("STAFF"),
    needs=("org_id",),
    passes=True,
    description="A member of the organization (STAFF or ADMIN), a SITE_ADMIN, or a door pass of the "
    "organization (for its meetup, when it has one).",
)
signed_in_or_pass = Rule(
    "signed_in_or_pass",
    passes=True,
    description="Any approved, enabled user, or a door pass (the door needs it).",
)
any_org_admin = Rule(
    "any_org_admin", _admin_anywhere, description="An ADMIN of any organization, or a SITE_ADMIN."
)


# --- rate limits: failures kept in the database so they hold across restarts and processes ----------

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
