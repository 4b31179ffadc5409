"""The door: /organizations/<org_id>/meetups/<meetup_id>/guests, the meetup's guest list (with the ETag
doors poll), and what the door does to one guest on it: walk-ins, check-ins (with the guests they brought)
and their undo; and .../local-walkins, letting in a person who is not on the platform. (An admin's
corrections of a guest's line: api/guest_lines.py.) docs/architecture.md follows a check-in from here
through the code: change it with the path it describes."""

from dataclasses import dataclass
from datetime import UTC, datetime

from bottle import request, response

from doorapp import doorlist
from doorapp.access import door, pass_not_allowed
from doorapp.actors import checker_json
from doorapp.api import GUESTS_BROUGHT, door_shapes, endpoint, guests_brought, named
from doorapp.api.door_shapes import meetup_guest_json
from doorapp.bodies import number, text
from doorapp.db import iso, utcnow
from doorapp.errors import ApiError, invalid, validation_error
from doorapp.models import Ban, Guest, IdempotencyKey, Meetup, MeetupGuest, audit
from doorapp.models.audit import AuditType
from doorapp.models.changes import VERSION
from doorapp.models.meetups import FINALIZED
from doorapp.models.privacy import seen_here

ENTRY = "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>"


DOOR_TIME = text(
    max_length=40,
    default=None,
    doc=(
        "When the door acted, by the device's clock (ISO 8601 with an offset): kept in the audit event as "
        "details.door_time beside the server's timestamp, which alone orders and filters the log. A check-in "
        "(or a walk-in's) sent late, from a door's queue, keeps it as its arrival_time when plausible: never "
        "later than the server's now, nor more than 24 hours before it (else the server's time is taken)."
    ),
)


@dataclass
class CheckInIn:
    force: bool = False  # check in a guest who is banned in this org; the event records the override
    door_time: str | None = DOOR_TIME
    # absent: all of them (the RSVP's guests_count); more than guests_count is 422 too_large
    guests_brought: int | None = number(minimum=0, default=None, doc=GUESTS_BROUGHT + " Absent: all.")


@dataclass
class UndoIn:
    reason: str = text(max_length=500, doc="Why the check-in is undone; kept in the audit log.")
    door_time: str | None = DOOR_TIME


@dataclass
class WalkinIn:
    check_in: bool = False  # check the walk-in in at once, in the same action (nothing is added if refused)
    force: bool = False  # with check_in: let in a guest banned in this org; else 409 guest_banned
    door_time: str | None = DOOR_TIME


@dataclass
class LocalWalkinIn:
    displayname: str = text(max_length=255, doc="The name of a person who is not on the platform.")
    door_time: str | None = DOOR_TIME


def door_time(body):
    """{"door_time": the body's door_time in UTC} for an audit event, or {}; 422 when it is no ISO 8601
    moment with an offset. A device clock far off is kept as it said here (the log is ordered by its own
    timestamps); arrival_at() decides whether it is the arrival's time."""
    moment = door_moment(body)
    return {} if moment is None else {"door_time": iso(moment)}


def arrival_at(body):
    """When the guest arrived: the door's time (a check-in queued offline and sent late keeps the minute
    it happened), unless it is implausible: in the future, or older than a queued action can be (the 24
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


def refuse_check_in(entry):
    """409 already_checked_in with who let the guest in, when, and which number; or meetup_finalized when
    the meetup was closed meanwhile (a conditional UPDATE of MeetupGuest.check_in lost a race)."""
    if not entry.has_arrived:
        entry = MeetupGuest.at_door(entry.meetup.org_id, entry.meetup_id, entry.guest_id)
    if not entry.has_arrived:
        Meetup.refuse_closed(entry.meetup)
        raise ApiError(409, "meetup_finalized", FINALIZED)
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


def refuse_override(caller):
    """403 pass_not_allowed for a caller without an account (a door pass) asking to let in a banned guest:
    that needs a person."""
    if caller.user is None:
        raise pass_not_allowed(
            f"Letting in a banned guest needs a person with an account, not a {caller.name}."
        )


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
    """The door list: every guest on the meetup with RSVP, check-in and ban status, the counts, and the
    meetup's state (`meetup`: is_finalized, finalized_at, last_synced_at), at a `version`.

    A door keeps the list and polls with `?since=<version>`: the answer holds only the entries that changed
    since and the ids that left the list (`removed`), with the whole `total`, `counts` and `meetup` (`full`
    false); or the whole list (`full` true) for a version this list never had, one older than Door keeps (at
    least 15 minutes and the list's last 10,000 changes), or when the list was rebuilt. The answer's ETag is
    `W/"<version>"`: sent back in If-None-Match, a list that has not changed answers 304 with no body."""
    response.set_header("Cache-Control", "private, no-cache")
    response.set_header("Vary", "Accept-Encoding")
    known = request.get_header("If-None-Match")
    version = known and Meetup.list_version(org_id, meetup_id)  # a poll's one query, outside a transaction
    if version and doorlist.etag_matches(known, doorlist.tag(doorlist.current(meetup_id, version))):
        response.set_header("ETag", doorlist.tag(doorlist.current(meetup_id, version)))
        response.status = 304
        return None
    with doorlist.snapshot():  # the list, its version and what changed, from one moment
        meetup = Meetup.with_list_version(org_id, meetup_id)
        if meetup is None:
            raise ApiError(404, "not_found", f"No meetup has the id {meetup_id}.")
        return doorlist.body(meetup, query.since, request.get_header("Accept-Encoding"))


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
    guest_banned) unless `force` is true, so a door that declines the override leaves no trace."""
    if body.force:
        refuse_override(caller)
    meetup = Meetup.open(org_id, meetup_id)
    guest = Guest.seen_by(meetup.org_id, platform_user_id)
    ban = Ban.active(meetup.org_id, guest.platform_user_id)
    if ban and body.check_in and not body.force:
        refuse_banned(guest, ban)
    at = arrival_at(body)
    if not MeetupGuest.add_walkin(meetup.id, guest.platform_user_id, at):
        raise ApiError(409, "already_on_list", f"{named(guest)} is already on this meetup's list.")
    return let_in(meetup, guest, caller, body, at, body.check_in, forced=bool(ban and body.check_in))


def let_in(meetup, guest, caller, body, at, check_in, forced=False):
    """Record the walk-in just added (at `at`), and check it in when asked, as arrived then; the entry as
    the door shows it."""
    when = door_time(body)
    audit.record(AuditType.WALKIN, caller, org=meetup.org_id, meetup=meetup, guest=guest, **when)
    entry = MeetupGuest.at_door(meetup.org_id, meetup.id, guest.platform_user_id)
    if check_in:
        if not MeetupGuest.check_in(entry, caller, at):
            raise ApiError(409, "meetup_finalized", FINALIZED)
        audit.record(
            AuditType.CHECK_IN,
            caller,
            org=meetup.org_id,
            meetup=meetup,
            guest=guest,
            **when,
            **({"forced": True} if forced else {}),
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
    errors=("meetup_cancelled", "meetup_finalized", "not_found"),
)
def add_local_walkin(org_id, meetup_id, body, caller):
    """Let in a person who is not on the platform, by the name typed at the door: a walk-in, checked in.

    They get a guest of their own (`is_local`, a negative id, no username) that the door list, check-in,
    undo, bans and the audit log treat like any guest; `/guests/` lookups never return them."""
    meetup = Meetup.open(org_id, meetup_id)
    guest = Guest.create_local(body.displayname, meetup.org_id)
    at = arrival_at(body)
    MeetupGuest.add_walkin(meetup.id, guest.platform_user_id, at)
    return let_in(meetup, guest, caller, body, at, check_in=True)


@endpoint(
    "POST",
    ENTRY + "/checkin",
    auth=door,
    body=CheckInIn,
    idempotent=True,
    answer=door_shapes.MeetupGuest,
    errors=(
        "already_checked_in",
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
    CHECK_IN event then records the override, which a door pass may not make (403 pass_not_allowed)."""
    if body.force:
        refuse_override(caller)
    entry = door_entry(org_id, meetup_id, platform_user_id)
    if entry.has_arrived:
        refuse_check_in(entry)
    if entry.ban and not body.force:
        refuse_banned(entry.guest, entry.ban)
    brought = guests_brought(entry, body.guests_brought)
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
    )
    if not MeetupGuest.check_in(entry, caller, arrival_at(body), brought):
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
    guests it brought are no longer counted."""
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
