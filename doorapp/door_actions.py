"""What every door action shares (check-in, walk-in, undo: api/meetup_guests; stepping out and back in,
people who left: api/room): the door's own time of the action, the guest's entry on an open meetup's list,
and the refusals the door may override: a ban, and a room at its capacity, each only by a person with an
account (a door pass may not: 403 pass_not_allowed)."""

from dataclasses import dataclass
from datetime import UTC, datetime

from doorapp.access import pass_not_allowed
from doorapp.api import named
from doorapp.bodies import text
from doorapp.db import iso, utcnow
from doorapp.errors import ApiError, invalid, validation_error
from doorapp.models import IdempotencyKey, Meetup, MeetupGuest
from doorapp.models.privacy import seen_here

ENTRY = "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>"  # a guest on a list

DOOR_TIME = text(
    max_length=40,
    default=None,
    doc=(
        "When the door acted, by the device's clock (ISO 8601 with an offset): kept in the audit event as "
        "details.door_time beside the server's timestamp, which alone orders and filters the log. A check-in "
        "(or a walk-in's) sent late, from a door's queue, keeps it as its arrival_time when plausible: never "
        "later than the server's now, nor more than 24 hours before it (else the server's time is taken); "
        "so does an exit, as its exited_at."
    ),
)


@dataclass(kw_only=True)  # a base of bodies with required fields of their own
class PastCapacity:
    """The fields of a door action that lets people in: a person may let them in past the meetup's
    capacity, saying why."""

    REQUIRED_WHEN_TRUE = {"force_capacity": "reason"}  # (bodies: the schema says it, parse() checks it)
    force_capacity: bool = False  # let them in though the room is full; needs `reason`; never a door pass
    reason: str | None = text(
        max_length=500,
        default=None,
        doc="With force_capacity: why they are let in past the meetup's capacity; kept in the audit log.",
    )


def door_time(body):
    """{"door_time": the body's door_time in UTC} for an audit event, or {}; 422 when it is no ISO 8601
    moment with an offset. A device clock far off is kept as it said here (the log is ordered by its own
    timestamps); door_moment_or_now() decides whether it is the action's time."""
    moment = door_moment(body)
    return {} if moment is None else {"door_time": iso(moment)}


def door_moment_or_now(body):
    """When the door acted: the door's time (an action queued offline and sent late keeps the minute it
    happened), unless it is implausible: in the future, or older than a queued action can be (the 24
    hours an Idempotency-Key is kept); then now."""
    now, moment = utcnow(), door_moment(body)
    return moment if moment is not None and now - IdempotencyKey.RETENTION <= moment <= now else now


def door_moment(body):
    """The body's door_time as a naive UTC datetime, or None; 422 for anything but ISO 8601 with an offset."""
    if body.door_time is None:
        return None
    try:
        moment = datetime.fromisoformat(body.door_time)
        moment = moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else None
    except (ValueError, OverflowError):  # OverflowError: 9999-12-31T23:59:59-01:00 is past the calendar
        moment = None
    if moment is None:
        problem = invalid(("body", "door_time"), "datetime", "Must be an ISO 8601 time with an offset.")
        raise validation_error([problem])
    return moment


def door_entry(org_id, meetup_id, platform_user_id):
    """The guest's entry on the open meetup's list (MeetupGuest.at_door): 404 not_found (meetup, guest),
    409 meetup_finalized, 404 not_on_list."""
    entry = MeetupGuest.at_door(org_id, meetup_id, platform_user_id)
    if entry is None:
        Meetup.open(org_id, meetup_id)
        guest = seen_here(org_id, platform_user_id)
        raise ApiError(
            404, "not_on_list", f"{named(guest)} is not on this meetup's list; add them as a walk-in."
        )
    Meetup.refuse_closed(entry.meetup)
    return entry


def refuse_overrides(caller, body):
    """403 pass_not_allowed for a caller without an account (a door pass) asking to let in a banned guest
    (`force`) or people past the meetup's capacity (`force_capacity`): that needs a person."""
    if caller.user is None and getattr(body, "force", False):
        raise pass_not_allowed(
            f"Letting in a banned guest needs a person with an account, not a {caller.name}."
        )
    if caller.user is None and getattr(body, "force_capacity", False):
        raise pass_not_allowed(
            f"Letting people in past the capacity needs a person with an account, not a {caller.name}."
        )


def past_capacity(meetup, people, body):
    """What letting `people` in at `meetup` (as read, with its `inside` and `capacity`) writes in its
    event: {} when the room has space for them; the override (over_capacity, capacity and the reason) when
    it has none and the body says force_capacity (refuse_overrides() has let it through); else 409
    capacity_reached. The count's own conditional UPDATE decides a race with another door (refuse_full)."""
    if meetup.capacity is None or meetup.inside + people <= meetup.capacity:
        return {}
    if not body.force_capacity:
        refuse_full(meetup)
    return {"over_capacity": True, "capacity": meetup.capacity, "reason": body.reason}


def refuse_full(meetup):
    """409 capacity_reached with how many are inside and the capacity (of `meetup` as read)."""
    raise ApiError(
        409,
        "capacity_reached",
        f"The room is full: {meetup.inside} people are inside, and this meetup lets in {meetup.capacity}. "
        "Someone must leave first, or a person with an account lets them in anyway, saying why.",
        inside=meetup.inside,
        capacity=meetup.capacity,
    )


def refuse_closed_or_full(org_id, meetup_id):
    """After a count that found no space (a door's conditional UPDATE lost): 409 meetup_finalized or
    meetup_cancelled when the meetup closed meanwhile, else capacity_reached as it is now."""
    meetup = Meetup.open(org_id, meetup_id)
    refuse_full(meetup)
