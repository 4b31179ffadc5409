"""The door: /organizations/<org_id>/meetups/<meetup_id>/guests, the meetup's guest list (with the ETag
doors poll), and what the door does to one guest on it: walk-ins, check-ins (with the guests they brought)
and their undo; and .../local-walkins, letting in a person who is not on the platform. (An admin's
corrections of a guest's line: api/guest_lines.py; stepping out and back in: api/room.py; what every door
action shares: doorapp/door_actions.py.) docs/architecture.md follows a check-in from here through the
code: change it with the path it describes."""

from dataclasses import dataclass

from bottle import request, response

from doorapp import doorlist
from doorapp.access import door
from doorapp.actors import checker_json
from doorapp.api import GUESTS_BROUGHT, door_shapes, endpoint, guests_brought, named
from doorapp.api.door_shapes import meetup_guest_json
from doorapp.bodies import number, text
from doorapp.db import iso
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
from doorapp.models import Ban, Guest, Meetup, MeetupGuest, audit
from doorapp.models.audit import AuditType
from doorapp.models.changes import VERSION


@dataclass
class CheckInIn(PastCapacity):
    force: bool = False  # check in a guest who is banned in this org; the event records the override
    door_time: str | None = DOOR_TIME
    # absent: all of them (the RSVP's guests_count); more than guests_count is 422 too_large
    guests_brought: int | None = number(minimum=0, default=None, doc=GUESTS_BROUGHT + " Absent: all.")


@dataclass
class UndoIn:
    reason: str = text(max_length=500, doc="Why the check-in is undone; kept in the audit log.")
    door_time: str | None = DOOR_TIME


@dataclass
class WalkinIn(PastCapacity):
    check_in: bool = False  # check the walk-in in at once, in the same action (nothing is added if refused)
    force: bool = False  # with check_in: let in a guest banned in this org; else 409 guest_banned
    door_time: str | None = DOOR_TIME


@dataclass
class LocalWalkinIn(PastCapacity):
    displayname: str = text(max_length=255, doc="The name of a person who is not on the platform.")
    door_time: str | None = DOOR_TIME


def refuse_check_in(entry):
    """409 already_checked_in with who let the guest in, when, and which number; or meetup_finalized or
    capacity_reached when the meetup was closed or its room filled meanwhile (a conditional UPDATE of
    MeetupGuest.check_in lost a race)."""
    if not entry.has_arrived:
        entry = MeetupGuest.at_door(entry.meetup.org_id, entry.meetup_id, entry.guest_id)
    if not entry.has_arrived:
        refuse_closed_or_full(entry.meetup.org_id, entry.meetup_id)
    raise ApiError(
        409,
        "already_checked_in",
        f"{named(entry.guest)} was already checked in as number {entry.arrival_order}.",
        arrival_time=iso(entry.arrival_time),
        arrival_order=entry.arrival_order,
        checked_in_by=checker_json(entry),
    )


def refuse_banned(guest, ban):
    """409 guest_banned with the ban's reason: the door asks before it overrides a ban."""
    raise ApiError(409, "guest_banned", f"{named(guest)} is banned here: {ban.reason}", ban_reason=ban.reason)


@dataclass
class DoorListQuery:
    since: str | None = text(
        max_length=40,
        default=None,
        pattern=VERSION,
        doc=(
            "The `version` of the list the door holds: the answer is then only what changed since "
            "(`full` false), or the whole list (`full` true) for a version it cannot say that of."
        ),
    )
    tag: int | None = number(
        minimum=1, default=None, doc="Only the guests with this tag (its id): all of them."
    )


@endpoint(
    "GET",
    "/organizations/<org_id>/meetups/<meetup_id>/guests",
    auth=door,
    tx=False,
    query=DoorListQuery,
    answer=door_shapes.DoorList,
    conditional=True,
    errors=("not_found",),
)
def list_meetup_guests(org_id, meetup_id, query):
    """The door list: every guest on the meetup with RSVP, check-in, in or out, ban status, the
    organization's tags and note on them, the counts, and the meetup's state (`meetup`: is_finalized,
    finalized_at, last_synced_at), at a `version`. `?tag=` (a tag's id) lists only the guests with that tag,
    always whole.

    A door keeps the list and polls with `?since=<version>`: the answer holds only the entries that changed
    since and the ids that left the list (`removed`), with the whole `total`, `counts` and `meetup` (`full`
    false); or the whole list (`full` true) for a version this list never had, one older than Door keeps (at
    least 15 minutes and the list's last 10,000 changes), or when the list was rebuilt. The answer's ETag is
    `W/"<version>"`: sent back in If-None-Match, a list that has not changed answers 304 with no body."""
    response.set_header("Cache-Control", "private, no-cache")
    response.set_header("Vary", "Accept-Encoding")
    known = request.get_header("If-None-Match")
    version = known and Meetup.list_version(org_id, meetup_id)  # a poll's one query, outside a transaction
    current = version and doorlist.tag(doorlist.current(meetup_id, version), query.tag)
    if current and doorlist.etag_matches(known, current):
        response.set_header("ETag", current)
        response.status = 304
        return None
    with doorlist.snapshot():  # the list, its version and what changed, from one moment
        meetup = Meetup.with_list_version(org_id, meetup_id)
        if meetup is None:
            raise ApiError(404, "not_found", f"No meetup has the id {meetup_id}.")
        return doorlist.body(meetup, query.since, request.get_header("Accept-Encoding"), query.tag)


@endpoint(
    "POST",
    ENTRY + "/add-walkin",
    auth=door,
    body=WalkinIn,
    status=201,
    idempotent=True,
    answer=door_shapes.MeetupGuest,
    errors=(
        "already_on_list",
        "capacity_reached",
        "guest_banned",
        "meetup_cancelled",
        "meetup_finalized",
        "not_found",
        "pass_not_allowed",
    ),
)
def add_walkin(org_id, meetup_id, platform_user_id, body, caller):
    """Add a guest who did not RSVP to the meetup's list as a walk-in; with `check_in`, check them in too.

    With `check_in`, a guest banned in this organization is refused before anything is added (409
    guest_banned) unless `force` is true, so a door that declines the override leaves no trace; so is a
    walk-in when the room is full (409 capacity_reached), unless a person says `force_capacity`."""
    refuse_overrides(caller, body)
    meetup = Meetup.open(org_id, meetup_id)
    guest = Guest.seen_by(meetup.org_id, platform_user_id)
    ban = Ban.active(meetup.org_id, guest.platform_user_id)
    if ban and body.check_in and not body.force:
        refuse_banned(guest, ban)
    at = door_moment_or_now(body)
    if not MeetupGuest.add_walkin(meetup.id, guest.platform_user_id, at):
        raise ApiError(409, "already_on_list", f"{named(guest)} is already on this meetup's list.")
    over = past_capacity(meetup, 1, body) if body.check_in else {}
    forced = bool(ban and body.check_in)
    return let_in(meetup, guest, caller, body, at, body.check_in, forced=forced, over=over)


def let_in(meetup, guest, caller, body, at, check_in, forced=False, over=None):
    """Record the walk-in just added (at `at`), and check it in when asked, as arrived then (`over`: its
    past_capacity()); the entry as the door shows it."""
    when = door_time(body)
    audit.record(AuditType.WALKIN, caller, org=meetup.org_id, meetup=meetup, guest=guest, **when)
    entry = MeetupGuest.at_door(meetup.org_id, meetup.id, guest.platform_user_id)
    if check_in:
        if not MeetupGuest.check_in(entry, caller, at, force=bool(over)):
            refuse_closed_or_full(meetup.org_id, meetup.id)
        audit.record(
            AuditType.CHECK_IN,
            caller,
            org=meetup.org_id,
            meetup=meetup,
            guest=guest,
            **when,
            **({"forced": True} if forced else {}),
            **(over or {}),
        )
    return meetup_guest_json(entry)


@endpoint(
    "POST",
    "/organizations/<org_id>/meetups/<meetup_id>/local-walkins",
    auth=door,
    body=LocalWalkinIn,
    status=201,
    idempotent=True,
    answer=door_shapes.MeetupGuest,
    errors=("capacity_reached", "meetup_cancelled", "meetup_finalized", "not_found", "pass_not_allowed"),
)
def add_local_walkin(org_id, meetup_id, body, caller):
    """Let in a person who is not on the platform, by the name typed at the door: a walk-in, checked in
    (409 capacity_reached when the room is full, unless a person says `force_capacity`).

    They get a guest of their own (`is_local`, a negative id, no username) that the door list, check-in,
    undo, bans and the audit log treat like any guest; `/guests/` lookups never return them."""
    refuse_overrides(caller, body)
    meetup = Meetup.open(org_id, meetup_id)
    over = past_capacity(meetup, 1, body)
    guest = Guest.create_local(body.displayname, meetup.org_id)
    at = door_moment_or_now(body)
    MeetupGuest.add_walkin(meetup.id, guest.platform_user_id, at)
    return let_in(meetup, guest, caller, body, at, check_in=True, over=over)


@endpoint(
    "POST",
    ENTRY + "/checkin",
    auth=door,
    body=CheckInIn,
    idempotent=True,
    answer=door_shapes.MeetupGuest,
    errors=(
        "already_checked_in",
        "capacity_reached",
        "guest_banned",
        "meetup_cancelled",
        "meetup_finalized",
        "not_found",
        "not_on_list",
        "pass_not_allowed",
    ),
)
def check_in_guest(org_id, meetup_id, platform_user_id, body, caller):
    """Check a guest in: records arrival time, arrival number, who let them in and how many of their
    RSVP'd guests came (`guests_brought`, 0 to guests_count; absent: all of them).

    The arrival time is the door's (`door_time`, when plausible), so a check-in queued offline and sent
    late keeps the minute it happened, and lists and charts order arrivals by it. The arrival number is
    always the server's: the next of the meetup's counter as check-ins reach it, never reused, so a late
    check-in may carry a higher number than arrivals that came after it.

    A guest banned in this organization is refused (409 guest_banned) unless `force` is true; the
    CHECK_IN event then records the override, which a door pass may not make (403 pass_not_allowed).
    So is a guest the room has no space for, with those they bring (409 capacity_reached, with `inside`
    and `capacity`), unless `force_capacity` with a `reason`: of two doors at the last place, one gets it."""
    refuse_overrides(caller, body)
    entry = door_entry(org_id, meetup_id, platform_user_id)
    if entry.has_arrived:
        refuse_check_in(entry)
    if entry.ban and not body.force:
        refuse_banned(entry.guest, entry.ban)
    brought = guests_brought(entry, body.guests_brought)
    over = past_capacity(entry.meetup, 1 + brought, body)
    # The event and the guest's history (of earlier meetups) come before the check-in itself, in the same
    # transaction: on PostgreSQL the meetup's row (its arrival counter) is locked from the check-in's UPDATE
    # to the commit, and every check-in of the meetup waits for it. A refused check-in rolls all back.
    history = MeetupGuest.history_of(org_id, entry.guest_id, entry.meetup.date)
    audit.record(
        AuditType.CHECK_IN,
        caller,
        org=org_id,
        meetup=meetup_id,
        guest=entry.guest_id,
        **door_time(body),
        **({"forced": True} if entry.ban else {}),
        **({"guests_brought": brought} if entry.guests_count else {}),
        **over,
    )
    if not MeetupGuest.check_in(entry, caller, door_moment_or_now(body), brought, force=bool(over)):
        refuse_check_in(entry)
    return meetup_guest_json(entry, history)


@endpoint(
    "PATCH",
    ENTRY + "/undo-checkin",
    auth=door,
    body=UndoIn,
    idempotent=True,
    answer=door_shapes.MeetupGuest,
    errors=("meetup_cancelled", "meetup_finalized", "not_checked_in", "not_found", "not_on_list"),
)
def undo_check_in(org_id, meetup_id, platform_user_id, body, caller):
    """Undo a check-in; the reason is required and kept in the log. The arrival number is not reused; the
    guests it brought are no longer counted (nor, when they were inside, among the people inside)."""
    entry = door_entry(org_id, meetup_id, platform_user_id)
    undone = {"arrival_order": entry.arrival_order, "arrival_time": iso(entry.arrival_time)}
    if not MeetupGuest.undo_check_in(entry):
        raise ApiError(409, "not_checked_in", f"{named(entry.guest)} is not checked in.")
    audit.record(
        AuditType.UNDO_CHECK_IN,
        caller,
        org=org_id,
        meetup=meetup_id,
        guest=entry.guest_id,
        reason=body.reason,
        **undone,
        **door_time(body),
    )
    return meetup_guest_json(entry)
