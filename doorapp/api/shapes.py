"""The JSON shape of each object the API answers with, declared once: each is a TypedDict whose fields and
types the render functions below fill in (calling a TypedDict makes a plain dict) and from which
openapi.py derives the object's component schema, so a field cannot reach an answer without reaching the
document (the suite validates every answer against it). One function per object, from model rows to
plain dicts; nothing else decides how an object looks on the wire (never model_to_dict: it would leak
hashes and tie the API to the schema). An answer of one route only is declared beside its endpoint.

The types: str, int, bool, float, Literal[...] or a StrEnum (an enum), `X | None` (may be null),
list[X], dict[str, X] (an object keyed by name), dict (any object), another shape, NotRequired[X] (may
be absent), and Annotated[str, "format"] for a string of a JSON Schema format (UUID, MOMENT). Who did
something (Person, a door pass's PassActor) is declared in doorapp.actors; the door list's rows and the
summary's lines (MeetupGuest, DoorList, GuestOutcome) in doorapp.api.door_shapes."""

from typing import Annotated, Literal, TypedDict

from doorapp import models
from doorapp.actors import (
    PassActor,
    Person,
    actor_json,
    person_json,
)
from doorapp.db import iso
from doorapp.models import AuditType
from doorapp.models.tags import COLOR

UUID = Annotated[str, "uuid"]
MOMENT = Annotated[str, "date-time"]  # ISO 8601 in UTC, ending in Z
ROLE = Literal["STAFF", "ADMIN"]
# UPCOMING: expected, not come, at a meetup not over; MEETUP_CANCELLED: at one cancelled (never no-shows)
OUTCOME = Literal[
    "ATTENDED", "WALK_IN", "NO_SHOW", "EXCUSED_ABSENCE", "CANCELLED", "WAITLIST", "NOT_CHECKED_IN",
    "UPCOMING", "MEETUP_CANCELLED",
]  # fmt: skip


class OrgMembership(TypedDict):
    org_id: UUID
    org_name: str
    org_slug: str
    role: ROLE


class User(TypedDict):
    """A staff account with its organization memberships."""

    id: int
    username: str
    role: Literal["USER", "SITE_ADMIN"]
    is_approved: bool
    is_disabled: bool
    disabled_at: MOMENT | None
    disabled_reason: str | None
    created_at: MOMENT
    org_memberships: list[OrgMembership]


class Org(TypedDict):
    id: UUID
    name: str
    slug: str
    created_at: MOMENT
    time_zone: str | None  # IANA, for the times of files made for people; null: the server's


class Member(TypedDict):
    """A member of an organization and their role there."""

    user_id: int
    username: str
    role: ROLE


class Guest(TypedDict):
    """A person from the external platform (or let in by name: a negative id, no username)."""

    platform_user_id: int
    username: str
    displayname: str
    created_at: MOMENT


class Ban(TypedDict):
    """A guest banned in an organization."""

    platform_user_id: int
    username: str
    displayname: str
    reason: str
    banned_at: MOMENT
    banned_by: Person | None


class Counts(TypedDict):
    """A meetup's list in numbers: RSVPs not cancelled (the waitlisted included), cancelled, walk-ins,
    arrived; `waitlisted`, the RSVPs on the waiting list not arrived (outcome WAITLIST, as the summary
    counts them), and `people`, arrivals plus the guests they brought (the summary's `people`); `inside`,
    the people inside now (`people` less those who stepped out and are not back, less people who left
    unseen; never below 0), and `capacity`, the most the meetup lets in at once (null: no limit)."""

    rsvps: int
    cancelled: int
    walkins: int
    arrived: int
    waitlisted: int
    people: int
    inside: int
    capacity: int | None


class Tag(TypedDict):
    """A tag of an organization, on the guests its admins put it on."""

    id: int
    label: str
    color: COLOR


class Meetup(TypedDict):
    id: UUID
    org_id: UUID
    name: str
    date: MOMENT
    platform_url: str | None
    is_finalized: bool
    finalized_at: MOMENT | None
    created_at: MOMENT
    last_synced_at: MOMENT | None
    is_over: bool  # finalized, or dated before now, and not cancelled: who did not come is a no-show
    cancelled_at: MOMENT | None
    cancel_reason: str | None
    counts: Counts


class EventGuest(TypedDict):
    platform_user_id: int
    username: str
    displayname: str


class AuditEvent(TypedDict):
    """An event of the audit log; `details` depend on its type (docs/api.md). A `shredded` event is older
    than its organization keeps the log's details (or about a person it erased): it keeps its type, time,
    actor, meetup and numbers, and has lost its guest, its reason and the names and free text of its
    details."""

    id: int
    event_type: AuditType
    timestamp: MOMENT
    org_id: UUID | None
    actor: Person | PassActor | None
    guest: EventGuest | None
    meetup_id: UUID | None
    reason: str | None
    details: dict
    shredded: bool


class Paged(TypedDict):
    """A page of a longer list: `total` in all, from `offset`, at most `limit`."""

    total: int
    limit: int
    offset: int


def users_json(users):
    """User for each user, with their memberships loaded in one query."""
    users = list(users)
    memberships = {}
    for m in models.Membership.of_users([u.id for u in users]):
        memberships.setdefault(m.user_id, []).append(
            OrgMembership(org_id=str(m.org.id), org_name=m.org.name, org_slug=m.org.slug, role=m.role)
        )
    return [
        User(
            id=u.id,
            username=u.username,
            role=u.role,
            is_approved=u.is_approved,
            is_disabled=u.is_disabled,
            disabled_at=iso(u.disabled_at),
            disabled_reason=u.disabled_reason,
            created_at=iso(u.created_at),
            org_memberships=memberships.get(u.id, []),
        )
        for u in users
    ]


def user_json(user):
    return users_json([user])[0]


def org_json(org):
    return Org(
        id=str(org.id),
        name=org.name,
        slug=org.slug,
        created_at=iso(org.created_at),
        time_zone=org.time_zone or None,
    )


def member_json(membership):
    return Member(user_id=membership.user.id, username=membership.user.username, role=membership.role)


def guest_json(guest):
    return Guest(
        platform_user_id=guest.platform_user_id,
        username=guest.username,
        displayname=guest.displayname,
        created_at=iso(guest.created_at),
    )


def banned_json(ban):
    """A banned-list entry; `ban` comes from Ban.of_org(), with its guest and banner joined."""
    return Ban(
        platform_user_id=ban.guest.platform_user_id,
        username=ban.guest.username,
        displayname=ban.guest.displayname,
        reason=ban.reason,
        banned_at=iso(ban.banned_at),
        banned_by=person_json(ban.banned_by),
    )


def meetup_json(meetup, counts=None):
    """Meetup; pass `counts` from MeetupGuest.counts() when rendering many."""
    counts = counts or models.MeetupGuest.counts([meetup.id])[str(meetup.id)]
    return Meetup(
        id=str(meetup.id),
        org_id=str(meetup.org_id),
        name=meetup.name,
        date=iso(meetup.date),
        platform_url=meetup.platform_url or None,  # a meetup from a file may have none
        is_finalized=meetup.is_finalized,
        finalized_at=iso(meetup.finalized_at),
        created_at=iso(meetup.created_at),
        last_synced_at=iso(meetup.last_synced_at),
        is_over=meetup.is_over,
        cancelled_at=iso(meetup.cancelled_at),
        cancel_reason=meetup.cancel_reason,
        counts=Counts(**counts),
    )


def tag_json(tag):
    return Tag(id=tag.id, label=tag.label, color=tag.color)


def event_json(event):
    """AuditEvent from a row of AuditEvent.with_people()."""
    guest = event["guest"]
    return AuditEvent(
        id=event["id"],
        event_type=event["event_type"],
        timestamp=iso(event["timestamp"]),
        org_id=event["org"] and str(event["org"]),
        actor=actor_json(event),
        guest=None
        if guest is None
        else EventGuest(
            platform_user_id=guest,
            username=event["guest_username"],
            displayname=event["guest_displayname"],
        ),
        meetup_id=event["meetup_id"] and str(event["meetup_id"]),
        reason=event["reason"],
        details=event["details"],
        shredded=event["shredded"],
    )


class OpenToLan(TypedDict):
    """How to let phones in while only this computer can open Door: the command that starts it for them,
    or the setting."""

    command: str
    setting: str
