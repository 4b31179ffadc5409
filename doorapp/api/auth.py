"""/auth/: accounts for oneself: register, sign in (OAuth 2.0 password flow), userinfo, change the
password, recovery codes; and a phone's door pass, exchanged for its token. (The first site admin:
setup.)"""

import time
from dataclasses import dataclass
from typing import Literal, TypedDict

from bottle import response

from doorapp import access
from doorapp.access import public, signed_in, signed_in_or_pass
from doorapp.api import (
    Credentials,
    Pass,
    PassHolder,
    client_address,
    endpoint,
    pass_of,
    password_field,
    settings,
    shapes,
    signing_keys,
)
from doorapp.api.shapes import user_json
from doorapp.bodies import text
from doorapp.db import utcnow, write
from doorapp.errors import ApiError
from doorapp.models import DoorPass, User
from doorapp.models.accounts import RECOVERY_VALIDITY, username_as_kept

RECOVERY_MAX_FAILURES = 5
REGISTRATIONS_PER_ADDRESS = 20  # in access.WINDOW: a venue's volunteers share one address behind its router


@dataclass
class TokenForm:
    username: str = text(strip=False, normalize=username_as_kept)
    password: str = text(strip=False)


@dataclass
class RecoveryCheck:
    username: str = text(strip=False, normalize=username_as_kept)
    code: str = text(max_length=32, doc="The 6-digit code a site admin gave you.")


@dataclass
class PasswordReset(RecoveryCheck):
    new_password: str = password_field()


class Token(TypedDict):
    """OAuth 2.0's token answer: a bearer JWT and its lifetime in seconds."""

    access_token: str
    token_type: Literal["bearer"]
    expires_in: int


class CodeValid(TypedDict):
    valid: bool


class PasswordResetDone(TypedDict):
    username: str


@endpoint(
    "POST",
    "/auth/register",
    auth=public,
    body=Credentials,
    status=201,
    tx=False,
    answer=shapes.User,
    errors=("rate_limited", "username_taken"),
)
def register_user(body):
    """Create a staff account; it cannot sign in until a site admin approves it. At most 20 per client
    address in 5 minutes; refused while two others wait for their password hash (429 with Retry-After)."""
    with access.newcomer():
        access.reserve_attempt(
            f"register-addr:{client_address()}", limit=REGISTRATIONS_PER_ADDRESS, what="new accounts"
        )
        password_hash = access.hash_secret(body.password)  # slow on purpose: outside the write lock
    with write():
        return user_json(User.create_named(body.username, password_hash))


@endpoint(
    "POST",
    "/auth/token",
    auth=public,
    body=TokenForm,
    media="form",
    tx=False,
    answer=Token,
    errors=("account_disabled", "account_pending", "invalid_credentials", "rate_limited"),
)
def issue_token(body):
    """Sign in (OAuth 2.0 password flow, form-encoded username and password); returns a bearer JWT."""
    address = client_address()
    attempt = access.reserve_attempt(f"login-user:{body.username}", f"login-addr:{address}")
    # right passwords count too (never forgiven), so a loop of them cannot keep the hasher busy
    access.reserve_attempt(
        f"signin-user:{body.username}", f"signin-addr:{address}", limit=access.MAX_SIGN_INS, what="sign-ins"
    )
    user = User.named(body.username)
    if not access.verified(attempt, user and user.password_hash, body.password):
        raise ApiError(401, "invalid_credentials", "The username or password is wrong.")
    access.forgive(attempt)
    new_hash = access.rehashed(user.password_hash, body.password)
    if new_hash:
        with write():
            User.replace_hash(user, new_hash)
    refusal = access.account_refusal(user)
    if refusal:
        raise refusal
    return token_json(user)


@dataclass
class PasswordChange:
    current_password: str = text(strip=False)
    new_password: str = password_field()


@endpoint(
    "PATCH",
    "/auth/password",
    auth=signed_in,
    body=PasswordChange,
    tx=False,
    answer=Token,
    errors=("invalid_credentials", "rate_limited"),
)
def change_password(body, caller):
    """Change your own password. Your other sessions end; the answer is a new token for this one."""
    # a stolen session guessing the password: counted on a key of the account's own, which never locks
    # its sign-in (login-user:) out
    user = caller.user
    attempt = access.reserve_attempt(f"password-user:{user.id}", what="wrong current passwords")
    if not access.verified(attempt, user.password_hash, body.current_password):
        raise ApiError(401, "invalid_credentials", "The current password is wrong.")
    access.forgive(attempt)
    password_hash = access.hash_secret(body.new_password)
    with write():
        User.end_sessions(user.id, password_hash=password_hash)
    return token_json(User.get_by_id(user.id))


def token_json(user):
    """OAuth 2.0's token answer for this user (not to be cached), issued in the account's current session:
    within the second its earlier sessions ended, that is after a short wait."""
    if user.sessions_since:
        time.sleep(max(0.0, (user.sessions_since - utcnow()).total_seconds()))
    minutes = settings().access_token_expire_minutes
    secret, kid = signing_keys().for_signing()
    response.set_header("Cache-Control", "no-store")
    response.set_header("Pragma", "no-cache")
    return Token(
        access_token=access.issue_token(secret, user, minutes, kid),
        token_type="bearer",
        expires_in=minutes * 60,
    )


@endpoint("GET", "/auth/userinfo", auth=signed_in_or_pass, answer=shapes.User | PassHolder)
def get_userinfo(caller):
    """The signed-in user's profile and organization memberships; for a door pass's token, `{pass: Pass}`."""
    if caller.door_pass:
        return PassHolder({"pass": pass_of(caller.org_id, caller.door_pass.id)})
    return user_json(caller.user)


# `pass` is a Python keyword: the shape is declared as a call
PassToken = TypedDict("PassToken", {"access_token": str, "token_type": Literal["bearer"], "pass": Pass})
PassToken.__doc__ = "A door pass's bearer token (OAuth 2.0's token answer) and the pass it works as."


@dataclass
class PassCode:
    code: str = text(max_length=64, doc="The pairing code of a door pass (in its pairing address).")


@endpoint(
    "POST",
    "/auth/pass",
    auth=public,
    body=PassCode,
    tx=False,
    answer=PassToken,
    errors=("invalid_pass_code", "rate_limited"),
)
def exchange_pass_code(body):
    """Pair a phone: exchange a door pass's one-time pairing code for the pass's token (a bearer JWT that
    works the door of its organization until the pass ends). A code works once and for 10 minutes; a used,
    expired or unknown one is 403 invalid_pass_code, and wrong codes are limited per client address as
    recovery codes are (429)."""
    attempt = access.reserve_attempt(f"pass-addr:{client_address()}")
    with write():
        paired = DoorPass.pair(body.code)
    if paired is None:
        raise ApiError(
            403, "invalid_pass_code", "This pairing code is used, expired or wrong; ask for a new door pass."
        )
    access.forgive(attempt)
    response.set_header("Cache-Control", "no-store")
    secret, kid = signing_keys().for_signing()
    token = access.issue_pass_token(secret, paired, kid)
    return PassToken(
        {"access_token": token, "token_type": "bearer", "pass": pass_of(paired.org_id, paired.id)}
    )


def _recovery_user(body):
    """The user whose current recovery code this is, or the one generic 400 (and a counted failure)."""
    attempt = access.reserve_attempt(f"recovery-addr:{client_address()}")
    user = User.named(body.username)
    live = (
        user is not None
        and user.recovery_code_hash is not None
        and not user.recovery_code_used
        and user.recovery_code_created_at + RECOVERY_VALIDITY > utcnow()
        and _try_code(user, +1)  # reserved before it is verified, so parallel tries stay within the limit
    )
    if not (live and access.verified(attempt, user.recovery_code_hash, body.code)):
        raise invalid_code()
    _try_code(user, -1)  # the right code is not a wrong try
    access.forgive(attempt)
    return user


def invalid_code():
    return ApiError(
        400, "invalid_recovery_code", "This recovery code is not valid; ask a site admin for a new one."
    )


def _try_code(user, step):
    """Count one try (+1) against the user's current code, while it has tries left, or take one back (-1)."""
    with write():
        return User.count_recovery_try(user, step, RECOVERY_MAX_FAILURES)


@endpoint(
    "POST",
    "/auth/verify-recovery-code",
    auth=public,
    body=RecoveryCheck,
    tx=False,
    answer=CodeValid,
    errors=("invalid_recovery_code", "rate_limited"),
)
def verify_recovery_code(body):
    """Tell whether a recovery code is valid, without using it up."""
    _recovery_user(body)
    return CodeValid(valid=True)


@endpoint(
    "POST",
    "/auth/reset-password",
    auth=public,
    body=PasswordReset,
    tx=False,
    answer=PasswordResetDone,
    errors=("invalid_recovery_code", "rate_limited"),
)
def reset_password(body):
    """Set a new password with a recovery code; the code is used up only when this succeeds, and the
    account's earlier sessions end."""
    user = _recovery_user(body)
    password_hash = access.hash_secret(body.new_password)
    with write():
        changed = User.reset_password(user, password_hash)
    if not changed:  # a new code was issued, or the code was used, meanwhile
        raise invalid_code()
    return PasswordResetDone(username=user.username)
