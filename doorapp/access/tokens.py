"""Tokens (JWT HS256, doorapp.keys signs them) and the token step of the request chain: who is calling,
as a Caller (doorapp.caller). This is the one place that reads a door pass's row for a request, and the one
that knows the kinds of caller: a new kind (a self check-in kiosk, say) is a new branch of caller() and a
Rule that admits its scope."""

import calendar
import secrets
import time
from datetime import timedelta

import jwt
from bottle import request

from doorapp.caller import ACCOUNT, DOOR, Caller
from doorapp.db import utcnow
from doorapp.errors import ApiError
from doorapp.models import DoorPass, User

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


def caller(keys, rule, org_id=None):
    """Who is calling, from the request's token: None for public rules (which never read it), else a
    Caller, or 401. `keys`: the process's doorapp.keys.Keys. With `org_id`, an account's role there comes
    in the same query (as `user.org_role`). A door pass's token gives its pass while it may act, read from
    the database on every request, so a revoke holds at once in every process (else 401 pass_ended)."""
    if rule.public:
        return None
    claims = _claims(keys)
    if claims["role"] == "PASS":
        return pass_caller(claims["pass"])
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
    return account_caller(user, site_admin=claims["role"] == "SITE_ADMIN")  # the token's role, not the row's


ACCOUNTS, PASSES = frozenset({ACCOUNT}), frozenset({DOOR})


def account_caller(user, site_admin=False):
    """The Caller of an account (a models.User): unbound, answering for itself."""
    return Caller(
        user=user,
        door_pass=None,
        scopes=ACCOUNTS,
        key=str(user.id),
        owner_id=user.id,
        name="account",
        site_admin=site_admin,
    )


def pass_caller(pass_id):
    """The Caller of a door pass's token: bound to its org (and its meetup, when it has one), answered for
    by its maker; 401 pass_ended once the pass may no longer act."""
    door_pass = DoorPass.acting(pass_id)
    if door_pass is None:
        raise pass_ended()
    return Caller(
        user=None,
        door_pass=door_pass,
        scopes=PASSES,
        key=f"pass {door_pass.id}",
        owner_id=door_pass.created_by.id,
        name="door pass",
        org_id=str(door_pass.org_id),
        meetup_id=door_pass.meetup_id and str(door_pass.meetup_id),
    )


def pass_ended():
    return ApiError(401, "pass_ended", "This door pass has ended; ask an organizer for a new one.")
