"""Accounts: register, sign in (OAuth 2.0 password flow), userinfo, recovery codes, first-run setup."""

import re
import secrets
import time
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

from bottle import response

from doorapp import access
from doorapp.access import public, signed_in
from doorapp.api import endpoint, settings
from doorapp.bodies import parse, text
from doorapp.db import exclusive, iso, utcnow, write
from doorapp.errors import ApiError

# Unicode's default-ignorable code points (and the blank Braille pattern): they show as nothing, so a name
from doorapp.models import Membership, Setting, User

# Unicode's default-ignorable code points (and the blank Braille pattern): they show as nothing, so a name
# with one looks like another name. Categories C (control, format, ...) and Z (spaces) are refused too.
INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                       "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
                       "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
RECOVERY_VALIDITY = timedelta(hours=72)
RECOVERY_MAX_FAILURES = 5
REGISTRATIONS_PER_ADDRESS = 20  # in access.WINDOW: a venue's volunteers share one address behind its router


def username_as_kept(name):
    """The one form of a name that Door keeps and compares (NFKC): `ｒｏｏｔ` is `root`."""
    return unicodedata.normalize("NFKC", name)


def new_username(name):
    """A name chosen for a new account, as kept; ValueError for one that could pass for another name."""
    name = username_as_kept(name)
    if any(unicodedata.category(c)[0] in "CZ" or INVISIBLE.match(c) for c in name):
        raise ValueError("Must not contain spaces or invisible, control or format characters.")
    if name and unicodedata.category(name[0])[0] == "M":
        raise ValueError("Must not start with a combining mark.")
    return name


def username_field():
    return text(max_length=64, strip=False, normalize=new_username,
                doc="1-64 characters (kept in Unicode NFKC form), no spaces or invisible characters.")


def password_field():
    return text(min_length=15, max_length=128, strip=False, doc="15-128 characters.")


@dataclass
class Credentials:
    username: str = username_field()
    password: str = password_field()


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


@dataclass
class SetupIn:
    code: str = text(max_length=64, doc="The setup code that `doorapp serve` printed.")
    username: str = username_field()
    password: str = password_field()


def users_json(users):
    """API.md's User for each user, with their memberships loaded in one query."""
    users = list(users)
    memberships = {}
    for m in Membership.of_users([u.id for u in users]):
        memberships.setdefault(m.user_id, []).append(
            {"org_id": str(m.org.id), "org_name": m.org.name, "org_slug": m.org.slug, "role": m.role}
        )
    return [
        {
            "id": u.id,
            "username": u.username,
            "role": u.role,
            "is_approved": u.is_approved,
            "is_disabled": u.is_disabled,
            "disabled_at": iso(u.disabled_at),
            "disabled_reason": u.disabled_reason,
            "created_at": iso(u.created_at),
            "org_memberships": memberships.get(u.id, []),
        }
        for u in users
    ]


def user_json(user):
    return users_json([user])[0]


def client_address():
    return access.client_address(access.trusted_networks(settings().trusted_proxies))


def create_user(username, password_hash, **fields):
    """A new user inside the caller's write transaction; 409 when the name is taken."""
    user = User.create_named(username, password_hash, **fields)
    if user is None:
        raise ApiError(409, "username_taken", f"The username {username} is taken; choose another.")
    return user


@endpoint("POST", "/auth/register", auth=public, body=Credentials, status=201, tx=False)
def register_user(body):
    """Create a staff account; it cannot sign in until a site admin approves it. At most 20 per client
    address in 5 minutes; refused while two others wait for their password hash (429 with Retry-After)."""
    with access.newcomer():
        access.reserve_attempt(f"register-addr:{client_address()}", limit=REGISTRATIONS_PER_ADDRESS,
                               what="new accounts")
        password_hash = access.hash_secret(body.password)  # slow on purpose: outside the write lock
    with write():
        return user_json(create_user(body.username, password_hash))


@endpoint("POST", "/auth/token", auth=public, body=TokenForm, media="form", tx=False)
def issue_token(body):
    """Sign in (OAuth 2.0 password flow, form-encoded username and password); returns a bearer JWT."""
    attempt = access.reserve_attempt(f"login-user:{body.username}", f"login-addr:{client_address()}")
    user = User.named(body.username)
    if not access.verify_secret(user and user.password_hash, body.password):
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


@endpoint("PATCH", "/auth/password", auth=signed_in, body=PasswordChange, tx=False)
def change_password(body, user):
    """Change your own password. Your other sessions end; the answer is a new token for this one."""
    attempt = access.reserve_attempt(f"login-user:{user.username}")  # a stolen session guessing the password
    if not access.verify_secret(user.password_hash, body.current_password):
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
    response.set_header("Cache-Control", "no-store")
    response.set_header("Pragma", "no-cache")
    return {"access_token": access.issue_token(settings().secret_key, user, minutes), "token_type": "bearer",
            "expires_in": minutes * 60}


@endpoint("GET", "/auth/userinfo", auth=signed_in)
def get_userinfo(user):
    """The signed-in user's profile and organization memberships."""
    return user_json(user)


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
    if not (live and access.verify_secret(user.recovery_code_hash, body.code)):
        raise invalid_code()
    _try_code(user, -1)  # the right code is not a wrong try
    access.forgive(attempt)
    return user


def invalid_code():
    return ApiError(400, "invalid_recovery_code",
                    "This recovery code is not valid; ask a site admin for a new one.")


def _try_code(user, step):
    """Count one try (+1) against the user's current code, while it has tries left, or take one back (-1)."""
    with write():
        return User.count_recovery_try(user, step, RECOVERY_MAX_FAILURES)


@endpoint("POST", "/auth/verify-recovery-code", auth=public, body=RecoveryCheck, tx=False)
def verify_recovery_code(body):
    """Tell whether a recovery code is valid, without using it up."""
    _recovery_user(body)
    return {"valid": True}


@endpoint("POST", "/auth/reset-password", auth=public, body=PasswordReset, tx=False)
def reset_password(body):
    """Set a new password with a recovery code; the code is used up only when this succeeds, and the
    account's earlier sessions end."""
    user = _recovery_user(body)
    password_hash = access.hash_secret(body.new_password)
    with write():
        changed = User.reset_password(user, password_hash)
    if not changed:  # a new code was issued, or the code was used, meanwhile
        raise invalid_code()
    return {"username": user.username}


# --- first run --------------------------------------------------------------------------------------

SETUP_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


SHARED = "shared"  # issue_setup_code(): another process's code stands
SETUP_CODE_SHARED = timedelta(seconds=30)  # Doors started on one database within it share one setup code


def issue_setup_code():
    """On a database with no SITE_ADMIN: a new one-time setup code (its hash stored), or SHARED when another
    Door process started on this database issued one within SETUP_CODE_SHARED (several started at once:
    the first one's code stands); None once there is a site admin."""
    with exclusive():
        if User.site_admin_exists():
            Setting.forget_setup_code()
            return None
        _, issued = Setting.setup_code()
        if issued and utcnow() - issued < SETUP_CODE_SHARED:
            return SHARED
        code = "-".join("".join(secrets.choice(SETUP_ALPHABET) for _ in range(4)) for _ in range(3))
        Setting.set_setup_code(access.hash_secret(code))
        return code


def create_site_admin(username, password):
    """An approved SITE_ADMIN (the create-admin command); ApiError 422/409 for a bad or taken name."""
    body = parse(Credentials, {"username": username, "password": password})
    password_hash = access.hash_secret(body.password)
    with write():
        Setting.forget_setup_code()  # printed by a serve: no longer needed
        return create_user(body.username, password_hash, role="SITE_ADMIN", is_approved=True)


@endpoint("GET", "/setup", auth=public)
def get_setup():
    """Whether the first site admin still has to be created."""
    return {"needed": not User.site_admin_exists()}


@endpoint("POST", "/setup", auth=public, body=SetupIn, status=201, tx=False)
def create_first_admin(body):
    """Create the first approved site admin with the setup code that `doorapp serve` printed."""
    attempt = access.reserve_attempt(f"setup-addr:{client_address()}")
    if User.site_admin_exists():
        raise ApiError(409, "already_set_up", "Door is already set up; sign in instead.")
    if not access.verify_secret(Setting.setup_code()[0], body.code.strip().upper()):
        raise ApiError(
            403, "invalid_setup_code", "The setup code is wrong; it is printed where Door was started."
        )
    password_hash = access.hash_secret(body.password)
    with write():
        if User.site_admin_exists():
            raise ApiError(409, "already_set_up", "Door is already set up; sign in instead.")
        user = create_user(body.username, password_hash, role="SITE_ADMIN", is_approved=True)
        Setting.forget_setup_code()
    access.forgive(attempt)
    return user_json(user)
