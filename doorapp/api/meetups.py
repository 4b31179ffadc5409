"""/organizations/<org_id>/meetups/: an organization's meetups: create from a platform URL, list, get,
sync, finalize, cancel, delete. (The guests on a meetup's list: meetup_guests; the people in its room and
its capacity: room; after the night, the attendance summary and its CSV: summary.)"""

from dataclasses import dataclass
from typing import TypedDict

from doorapp import platforms
from doorapp.access import door, org_admin, org_member
from doorapp.api import adapter, endpoint, passes_ended, shapes
from doorapp.api.shapes import meetup_json
from doorapp.bodies import text
from doorapp.db import get_or_404, iso, write
from doorapp.errors import ApiError
from doorapp.models import AuditType, Meetup, MeetupGuest, Org, audit, room
from doorapp.models.passes import DoorPass
from doorapp.models.privacy import refuse_forgotten
from doorapp.models.sync import apply, compare, stored, take_turn


@dataclass
class MeetupIn:
    platform_url: str = text(max_length=1024, doc="The event's page on the platform, as a browser shows it.")
    name: str | None = text(
        max_length=255,
        min_length=0,
        default=None,
        doc="A name of your own; absent or empty takes the platform's title.",
    )


class SyncError(TypedDict):
    """Why a sync failed: the problem's status, code and detail."""

    status: int
    code: str
    detail: str


class CreatedMeetup(shapes.Meetup):
    sync_error: SyncError | None


class MeetupList(TypedDict):
    total: int
    meetups: list[shapes.Meetup]


class SyncReport(TypedDict):
    """What a sync did to the list: guests added, updated, cancelled, RSVPs skipped (the platform had no
    profile for them), and the list's size after it."""

    inserted: int
    updated: int
    cancelled: int
    skipped: int
    total: int


def refuse_duplicate(org_id, url):
    existing = Meetup.get_or_none(Meetup.org == org_id, Meetup.platform_url == url)
    if existing is not None:
        raise ApiError(
            409,
            "duplicate_meetup",
            f"This organization already has a meetup for {url}.",
            meetup=meetup_json(existing),
        )


@endpoint(
    "POST",
    "/organizations/<org_id>/meetups/",
    auth=org_member,
    body=MeetupIn,
    status=201,
    tx=False,
    answer=CreatedMeetup,
    errors=(*platforms.ERRORS, "duplicate_meetup", "meetup_cancelled", "meetup_finalized", "not_found"),
)
def create_meetup(org_id, body, caller):
    """Create a meetup from an event URL on the platform (name and date come from there) and sync its RSVP
    list at once. A failed first sync keeps the meetup: `sync_error` says why (null when it worked), and
    `last_synced_at` stays null until a sync succeeds."""
    org = get_or_404(Org, org_id, "organization")
    url = adapter().event_url(body.platform_url)  # 422 for anything but an event URL of this platform
    refuse_duplicate(org_id, url)
    event = adapter().event(url)  # no transaction is open while the platform answers
    with write():
        refuse_duplicate(org_id, url)
        meetup = Meetup.create(
            org=org, name=(body.name or event.title)[:255], date=event.date, platform_url=url
        )
        audit.record(AuditType.MEETUP_CREATED, caller, org=org, meetup=meetup, platform_url=url)
    try:
        sync(meetup, caller, event)
        sync_error = None
    except ApiError as error:  # the platform failed (or an admin finalized it meanwhile): nothing stored
        sync_error = SyncError(status=error.status, code=error.code, detail=error.detail)
    return CreatedMeetup(**meetup_json(Meetup.get_by_id(meetup.id)), sync_error=sync_error)


@endpoint("GET", "/organizations/<org_id>/meetups/", auth=door, answer=MeetupList, errors=("not_found",))
def list_meetups(org_id, caller):
    """The organization's meetups, newest date first; for a door pass, the open ones it may work."""
    get_or_404(Org, org_id, "organization")
    meetups = list(Meetup.of_org(org_id))
    meetups = [m for m in meetups if caller.may_work(m)]
    counts = MeetupGuest.counts([m.id for m in meetups])
    return MeetupList(total=len(meetups), meetups=[meetup_json(m, counts[str(m.id)]) for m in meetups])


@endpoint(
    "GET",
    "/organizations/<org_id>/meetups/<meetup_id>",
    auth=door,
    answer=shapes.Meetup,
    errors=("not_found",),
)
def get_meetup(org_id, meetup_id):
    """One meetup of the organization, with its counts."""
    return meetup_json(get_or_404(Meetup, meetup_id, "meetup", org=org_id))


@endpoint(
    "POST",
    "/organizations/<org_id>/meetups/<meetup_id>/sync",
    auth=org_member,
    tx=False,
    answer=SyncReport,
    errors=(*platforms.ERRORS, "meetup_cancelled", "meetup_finalized", "meetup_forgotten", "not_found"),
)
def sync_meetup(org_id, meetup_id, caller):
    """Synchronise the RSVP list from the platform; nothing is stored when a platform call fails. A meetup
    older than its organization keeps guests is 409 meetup_forgotten (retention took them off its list)."""
    meetup = Meetup.open(org_id, meetup_id)
    refuse_forgotten(meetup)
    return sync(meetup, caller)


def sync(meetup, caller, event=None):
    """Sync the list of `meetup` (as it was read, open), with `event` when the caller has just read it: all
    platform I/O and the comparison with what is stored first, with no transaction open, then one short
    write of what differs. The counts; a platform's ApiError stores nothing."""
    org_id, meetup_id = meetup.org_id, meetup.id
    event = event or adapter().event(meetup.platform_url)
    profiles = adapter().profiles([r.platform_user_id for r in event.rsvps])
    rsvps = [(r.platform_user_id, r.joined_at, r.waitlisted, r.guests, None, None) for r in event.rsvps]
    profiles = {i: (p.username, p.displayname, False, None, "") for i, p in profiles.items()}
    plan = compare(meetup, stored(meetup, profiles), rsvps, profiles, platform=True)  # before the lock
    with write():
        take_turn(meetup)
        meetup = Meetup.open(org_id, meetup_id)
        counts = apply(meetup, plan)
        del counts["kept"], counts["checked_in"]  # arrived guests the platform no longer lists stay in
        audit.record(AuditType.MEETUP_SYNCED, caller, org=meetup.org_id, meetup=meetup, **counts)
    return SyncReport(**counts)


# --- finalize: closes the door (check-ins, undos, walk-ins, syncs) until an admin reopens it ---------------


@endpoint(
    "PATCH",
    "/organizations/<org_id>/meetups/<meetup_id>/finalize",
    auth=org_admin,
    answer=shapes.Meetup,
    errors=("already_finalized", "not_found"),
)
def finalize_meetup(org_id, meetup_id, caller):
    """Finalize a meetup: check-ins, undos, walk-ins and syncs are refused until it is unfinalized. It
    sends everyone out (`counts.inside` 0; each arrival inside gets its `exited_at`): the night is over.
    MEETUP_FINALIZED keeps how many were `inside`."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    if not Meetup.set_finalized(meetup.id, True):
        raise ApiError(409, "already_finalized", "This meetup is already finalized.")
    room.everyone_out(meetup.org_id, meetup.id)
    audit.record(AuditType.MEETUP_FINALIZED, caller, org=meetup.org_id, meetup=meetup, inside=meetup.inside)
    passes_ended(caller, DoorPass.revoke(meetup.org_id, meetup_id=meetup.id))  # unfinalizing revives none
    return meetup_json(Meetup.get_by_id(meetup.id))


@endpoint(
    "PATCH",
    "/organizations/<org_id>/meetups/<meetup_id>/unfinalize",
    auth=org_admin,
    answer=shapes.Meetup,
    errors=("not_finalized", "not_found"),
)
def unfinalize_meetup(org_id, meetup_id, caller):
    """Reopen a finalized meetup for check-ins and syncs."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    if not Meetup.set_finalized(meetup.id, False):
        raise ApiError(409, "not_finalized", "This meetup is not finalized.")
    audit.record(AuditType.MEETUP_UNFINALIZED, caller, org=meetup.org_id, meetup=meetup)
    return meetup_json(Meetup.get_by_id(meetup.id))


@dataclass
class CancelIn:
    reason: str = text(max_length=500, doc="Why the meetup did not take place; kept in the audit log.")


@endpoint(
    "PATCH",
    "/organizations/<org_id>/meetups/<meetup_id>/cancel",
    auth=org_admin,
    body=CancelIn,
    answer=shapes.Meetup,
    errors=("meetup_cancelled", "meetup_has_arrivals", "not_found"),
)
def cancel_meetup(org_id, meetup_id, body, caller):
    """Cancel a meetup that did not take place: its door closes and its guests get no no-show (their
    outcome is MEETUP_CANCELLED); it stays in the list and the audit log. Refused while anyone is checked
    in (undo their check-ins first)."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    if meetup.cancelled_at is not None:
        raise ApiError(409, "meetup_cancelled", "This meetup is already cancelled.")
    arrived = MeetupGuest.counts([meetup.id])[str(meetup.id)]["arrived"]
    if arrived or not Meetup.cancel(meetup, body.reason):
        raise ApiError(409, "meetup_has_arrivals", ARRIVALS.format(what="cancelled"))
    audit.record(AuditType.MEETUP_CANCELLED, caller, org=meetup.org_id, meetup=meetup, reason=body.reason)
    passes_ended(caller, DoorPass.revoke(meetup.org_id, meetup_id=meetup.id))
    return meetup_json(Meetup.get_by_id(meetup.id))


ARRIVALS = "Guests were checked in at this meetup, so it cannot be {what}."


@endpoint(
    "DELETE",
    "/organizations/<org_id>/meetups/<meetup_id>",
    auth=org_admin,
    status=204,
    errors=("meetup_has_arrivals", "not_found"),
)
def delete_meetup(org_id, meetup_id, caller):
    """Delete a meetup created by mistake, with its guest list: only while nobody has ever been checked in
    at it (an undone check-in counts: cancel such a meetup instead). MEETUP_DELETED keeps its name, date
    and URL."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    DoorPass.outlive(meetup.id)  # rolled back with the rest when the meetup stays
    what = {"name": meetup.name, "date": iso(meetup.date), "platform_url": meetup.platform_url or None}
    # recorded while the meetup's row is there: its date says which door lists it counted in
    audit.record(AuditType.MEETUP_DELETED, caller, org=meetup.org_id, meetup=meetup.id, **what)
    if not Meetup.remove(meetup.id):
        raise ApiError(409, "meetup_has_arrivals", ARRIVALS.format(what="deleted"))
