"""/setup: the first run. Until there is a site admin, `doorapp serve` prints a one-time setup code and
whoever has it creates the first site admin here (or `doorapp create-admin` does, at the console)."""

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TypedDict

from doorapp import access
from doorapp.access import public
from doorapp.api import Credentials, client_address, endpoint, password_field, shapes, username_field
from doorapp.api.shapes import user_json
from doorapp.bodies import parse, text
from doorapp.db import exclusive, utcnow, write
from doorapp.errors import ApiError
from doorapp.models import Setting, User


@dataclass
class SetupIn:
    code: str = text(max_length=64, doc="The setup code that `doorapp serve` printed.")
    username: str = username_field()
    password: str = password_field()


class Setup(TypedDict):
    """Whether the first site admin is still to be created (POST /setup)."""

    needed: bool


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
        return User.create_named(body.username, password_hash, role="SITE_ADMIN", is_approved=True)


@endpoint("GET", "/setup", auth=public, answer=Setup)
def get_setup():
    """Whether the first site admin still has to be created."""
    return Setup(needed=not User.site_admin_exists())


def as_printed(code):
    """The setup code as `serve` prints it (ABCD-EFGH-JKLM) from how a person typed it: any case, with spaces
    or no dashes ("abcd efgh jklm", "ABCDEFGHJKLM")."""
    letters = "".join(c for c in code.upper() if not c.isspace() and c != "-")
    return (
        "-".join(letters[i : i + 4] for i in range(0, len(letters), 4))
        if len(letters) == 12
        else code.strip()
    )


@endpoint(
    "POST",
    "/setup",
    auth=public,
    body=SetupIn,
    status=201,
    tx=False,
    answer=shapes.User,
    errors=("already_set_up", "invalid_setup_code", "rate_limited", "username_taken"),
)
def create_first_admin(body):
    """Create the first approved site admin with the setup code that `doorapp serve` printed."""
    attempt = access.reserve_attempt(f"setup-addr:{client_address()}")
    if User.site_admin_exists():
        raise ApiError(409, "already_set_up", "Door is already set up; sign in instead.")
    if not access.verified(attempt, Setting.setup_code()[0], as_printed(body.code)):
        raise ApiError(
            403, "invalid_setup_code", "The setup code is wrong; it is printed where Door was started."
        )
    password_hash = access.hash_secret(body.password)
    with exclusive():  # one at a time on every engine: two first admins of other names are no unique race
        if User.site_admin_exists():
            raise ApiError(409, "already_set_up", "Door is already set up; sign in instead.")
        user = User.create_named(body.username, password_hash, role="SITE_ADMIN", is_approved=True)
        Setting.forget_setup_code()
    access.forgive(attempt)
    return user_json(user)
