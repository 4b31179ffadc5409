"""/guests/: people registered from the external platform, known to every organization."""

from dataclasses import dataclass

from doorapp import access, platforms
from doorapp.access import signed_in, signed_in_or_pass
from doorapp.api import adapter, endpoint, shapes
from doorapp.api.shapes import guest_json
from doorapp.bodies import number, text
from doorapp.db import write
from doorapp.errors import ApiError
from doorapp.models import AuditType, Guest, audit


@dataclass
class GuestQuery:
    q: str = text(
        default="",
        min_length=0,
        max_length=255,
        doc="Words that start words of the username or display name (any order, case, accents).",
    )
    limit: int = number(1, 200, default=50)
    offset: int = number(0, default=0)


@dataclass
class GuestIn:
    username: str = text(max_length=255, doc="The guest's username on the platform.")


def refuse_existing(guest):
    if guest is not None:
        raise ApiError(
            409, "guest_exists", f"{guest.username} is already registered.", guest=guest_json(guest)
        )


class GuestPage(shapes.Paged):
    guests: list[shapes.Guest]


@endpoint("GET", "/guests/", auth=signed_in, query=GuestQuery, answer=GuestPage)
def list_guests(query):
    """Known guests by username, paged; `q` finds them as the door's search does ("angstrom alice" finds
    Alice Ångström)."""
    total, guests = Guest.search(query.q, query.limit, query.offset)
    return GuestPage(
        total=total, limit=query.limit, offset=query.offset, guests=[guest_json(g) for g in guests]
    )


@endpoint(
    "POST",
    "/guests/",
    auth=signed_in_or_pass,
    body=GuestIn,
    status=201,
    tx=False,
    answer=shapes.Guest,
    errors=(*platforms.ERRORS, "guest_exists", "rate_limited"),
)
def create_guest(body, caller):
    """Register a guest by platform username; the profile is read from the platform. Look-ups that find
    nobody are limited to 30 per 5 minutes per account or door pass (each spends the organizer's platform
    quota). A door pass may call it: the door adds walk-ins from the platform."""
    refuse_existing(Guest.get_or_none(Guest.username == body.username, ~Guest.is_local))
    profile = looked_up(caller, body.username)  # no transaction is open while the platform answers
    with write():
        refuse_existing(Guest.of_platform(profile.platform_user_id))
        guest = Guest.register(profile)
        audit.record(AuditType.GUEST_CREATED, caller, guest=guest)
    return guest_json(guest)


def looked_up(caller, username):
    """The platform's profile of `username`; a look-up that finds nobody counts against the account."""
    what = "look-ups of names the platform does not know"
    attempt = access.reserve_attempt(f"lookup-user:{caller.key}", limit=30, what=what)
    try:
        profile = adapter().profile(username)
    except ApiError as error:
        if error.code != "platform_user_not_found":
            access.forgive(attempt)
        raise
    access.forgive(attempt)
    return profile


@endpoint("GET", "/guests/<platform_user_id>", auth=signed_in, answer=shapes.Guest, errors=("not_found",))
def get_guest(platform_user_id):
    """A guest by platform user id."""
    guest = Guest.of_platform(platform_user_id)
    if guest is None:
        raise ApiError(404, "not_found", f"No guest has the id {platform_user_id}.")
    return guest_json(guest)


@endpoint("GET", "/guests/by-username/<username>", auth=signed_in, answer=shapes.Guest, errors=("not_found",))
def get_guest_by_username(username):
    """A guest by platform username (exact, case-sensitive)."""
    guest = (
        Guest.select()
        .where(Guest.username == username, ~Guest.is_local)
        .order_by(Guest.created_at.desc())
        .first()
    )
    if guest is None:
        raise ApiError(404, "not_found", f"No guest has the username {username!r}.")
    return guest_json(guest)
