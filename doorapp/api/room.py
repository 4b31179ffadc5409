"""People in the room: .../guests/<platform_user_id>/exit and /reenter, an arrival stepping out and back in
(their number and time stay); .../meetups/<meetup_id>/left, people who left without being found on the
list; and PATCH .../meetups/<meetup_id>, the meetup's capacity. Door actions like a check-in: the door's
time, an Idempotency-Key, door passes too (the models: models.room, Meetup.inside)."""

from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from doorapp.access import door, org_admin
from doorapp.api import endpoint, named, shapes
from doorapp.api.door_shapes import MeetupGuest as MeetupGuestShape
from doorapp.api.door_shapes import meetup_guest_json
from doorapp.api.shapes import Counts, meetup_json
from doorapp.bodies import number
from doorapp.db import get_or_404, iso
from doorapp.door_actions import (
    DOOR_TIME,
    ENTRY,
    PastCapacity,
    door_entry,
    door_moment_or_now,
    door_time,
    past_capacity,
    refuse_closed_or_full,
    refuse_overrides,
)
from doorapp.errors import ApiError
from doorapp.models import Meetup, MeetupGuest, audit, room
from doorapp.models.audit import AuditType


@dataclass
class ExitIn:
    door_time: str | None = DOOR_TIME


@dataclass
class ReenterIn(PastCapacity):
    door_time: str | None = DOOR_TIME


def refuse_step_out(entry):
    """409 not_checked_in or already_outside, as the entry is now (a door's UPDATE lost a race)."""
    entry = MeetupGuest.at_door(entry.meetup.org_id, entry.meetup_id, entry.guest_id)
    refuse_not_arrived(entry)
    raise ApiError(
        409,
        "already_outside",
        f"{named(entry.guest)} stepped out at {iso(entry.exited_at)}.",
        exited_at=iso(entry.exited_at),
    )


def refuse_step_in(entry):
    """409 not_checked_in or not_outside, as the entry is now."""
    entry = MeetupGuest.at_door(entry.meetup.org_id, entry.meetup_id, entry.guest_id)
    refuse_not_arrived(entry)
    raise ApiError(
        409,
        "not_outside",
        f"{named(entry.guest)} is inside, as number {entry.arrival_order}.",
        arrival_order=entry.arrival_order,
    )


def refuse_not_arrived(entry):
    if not entry.has_arrived:
        raise ApiError(409, "not_checked_in", f"{named(entry.guest)} is not checked in.")


@endpoint(
    "POST",
    ENTRY + "/exit",
    auth=door,
    body=ExitIn,
    idempotent=True,
    answer=MeetupGuestShape,
    errors=(
        "already_outside",
        "meetup_cancelled",
        "meetup_finalized",
        "not_checked_in",
        "not_found",
        "not_on_list",
    ),
)
def exit_guest(org_id, meetup_id, platform_user_id, body, caller):
    """An arrival steps out, with the guests they brought: they leave `counts.inside`, and their row says
    so (`rsvp.inside` false) and since when (`rsvp.exited_at`, the door's time when plausible, as a
    check-in's arrival). Their arrival number and time stay. 409 not_checked_in before an arrival,
    already_outside when out; of two doors stepping one guest out, one does."""
    entry = door_entry(org_id, meetup_id, platform_user_id)
    at = max(door_moment_or_now(body), entry.arrival_time or datetime.min)  # a clock far off: not before
    if not room.step_out(entry, at):
        refuse_step_out(entry)
    when = door_time(body)
    audit.record(AuditType.EXIT, caller, org=org_id, meetup=meetup_id, guest=entry.guest_id, **when)
    return meetup_guest_json(entry)


@endpoint(
    "POST",
    ENTRY + "/reenter",
    auth=door,
    body=ReenterIn,
    idempotent=True,
    answer=MeetupGuestShape,
    errors=(
        "capacity_reached",
        "meetup_cancelled",
        "meetup_finalized",
        "not_checked_in",
        "not_found",
        "not_on_list",
        "not_outside",
        "pass_not_allowed",
    ),
)
def reenter_guest(org_id, meetup_id, platform_user_id, body, caller):
    """An arrival who stepped out comes back in, with the guests they brought; their arrival number and
    time never change. 409 not_outside when they are in; capacity_reached (with `inside` and
    `capacity`) when the room has no space for them, unless `force_capacity` with a `reason` (a person
    with an account, never a door pass), which REENTRY records."""
    refuse_overrides(caller, body)
    entry = door_entry(org_id, meetup_id, platform_user_id)
    if not entry.has_arrived or entry.exited_at is None:
        refuse_step_in(entry)
    people = room.heads(entry)
    over = past_capacity(entry.meetup, people, body)
    if not room.step_in(entry):
        refuse_step_in(entry)
    if not Meetup.admit(entry.meetup_id, people, force=bool(over)):
        refuse_closed_or_full(org_id, meetup_id)
    when = {**door_time(body), **over}
    audit.record(AuditType.REENTRY, caller, org=org_id, meetup=meetup_id, guest=entry.guest_id, **when)
    return meetup_guest_json(entry)


@dataclass
class LeftIn:
    people: int = number(minimum=1, maximum=50, doc="How many people left without being found on the list.")
    door_time: str | None = DOOR_TIME


class PeopleLeft(TypedDict):
    """The meetup's counts once the people who left are counted out."""

    counts: Counts


@endpoint(
    "POST",
    "/organizations/<org_id>/meetups/<meetup_id>/left",
    auth=door,
    body=LeftIn,
    idempotent=True,
    answer=PeopleLeft,
    errors=("meetup_cancelled", "meetup_finalized", "not_found"),
)
def record_people_left(org_id, meetup_id, body, caller):
    """People left without being found on the list (the common case at a meetup: the door's "someone
    left"): they leave `counts.inside`, which never goes below 0. PEOPLE_LEFT keeps how many, and how many
    were inside after."""
    meetup = Meetup.open(org_id, meetup_id)
    Meetup.release(meetup.id, body.people)
    counts = MeetupGuest.counts([meetup.id])[str(meetup.id)]
    audit.record(
        AuditType.PEOPLE_LEFT,
        caller,
        org=org_id,
        meetup=meetup,
        people=body.people,
        inside=counts["inside"],
        **door_time(body),
    )
    return PeopleLeft(counts=Counts(**counts))


@dataclass
class MeetupChangeIn:
    capacity: int | None = number(
        minimum=1,
        maximum=100_000,
        doc="How many people the room takes at once (a venue's limit); null for no limit. Check-ins, "
        "re-entries and walk-ins past it are refused (409 capacity_reached) unless a person overrides it.",
    )


@endpoint(
    "PATCH",
    "/organizations/<org_id>/meetups/<meetup_id>",
    auth=org_admin,
    body=MeetupChangeIn,
    answer=shapes.Meetup,
    errors=("not_found",),
)
def change_meetup(org_id, meetup_id, body, caller):
    """Set the meetup's capacity (`counts.capacity`): the most people inside at once; null lifts it. The
    door's counter warns at 90%. A capacity under the people inside now lets nobody more in until enough
    have left."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    if body.capacity != meetup.capacity:
        Meetup.set_capacity(meetup.id, body.capacity)
        audit.record(
            AuditType.CAPACITY_CHANGED,
            caller,
            org=org_id,
            meetup=meetup,
            capacity_before=meetup.capacity,
            capacity=body.capacity,
        )
    return meetup_json(Meetup.get_by_id(meetup.id))
