"""/organizations/<org_id>/meetups/: an organization's meetups: create from a platform URL, list, get,
sync, finalize; after the night, the attendance summary and its CSV. (The guests on a meetup's list:
meetup_guests.)"""

from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from typing import TypedDict

from doorapp import platforms
from doorapp.access import door, org_admin, org_member
from doorapp.api import adapter, endpoint, passes_ended, shapes
from doorapp.api.door_shapes import OUTCOME_COLUMNS, GuestOutcome, outcome_json
from doorapp.api.shapes import MOMENT, meetup_json
from doorapp.bodies import text
from doorapp.db import get_or_404, iso, write
from doorapp.errors import ApiError
from doorapp.export import CSV, csv_file
from doorapp.models import AuditEvent, AuditType, Meetup, MeetupGuest, Org, audit
from doorapp.models.audit import check_in_record
from doorapp.models.passes import DoorPass
from doorapp.models.privacy import refuse_forgotten
from doorapp.models.sync import apply, compare, stored, take_turn
from doorapp.spreadsheet import PASS_COLUMNS, ExportQuery, People

MAX_BARS = 96  # the chart's bars: 15 minutes each, or wider when the arrivals span more than a day


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
    """Finalize a meetup: check-ins, undos, walk-ins and syncs are refused until it is unfinalized."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    if not Meetup.set_finalized(meetup.id, True):
        raise ApiError(409, "already_finalized", "This meetup is already finalized.")
    audit.record(AuditType.MEETUP_FINALIZED, caller, org=meetup.org_id, meetup=meetup)
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


# --- after the night: the attendance summary and its CSV ---------------------------------------------------


class Bar(TypedDict):
    """Arrivals in the `bar_minutes` from `start`."""

    start: MOMENT
    count: int


class SummaryCounts(TypedDict):
    rsvps: int
    arrived: int
    no_shows: int
    upcoming: int  # expected guests who have not come to a meetup not over (or cancelled): no no-shows
    excused: int
    cancelled: int
    waitlisted: int
    walkins: int
    local_walkins: int
    forced_check_ins: int
    undone_check_ins: int
    guests_brought: int
    people: int


class Summary(TypedDict):
    """A meetup's attendance; `outcomes` counts its guests by outcome (those it has)."""

    meetup: shapes.Meetup
    counts: SummaryCounts
    outcomes: dict[shapes.OUTCOME, int]
    first_arrival: MOMENT | None
    last_arrival: MOMENT | None
    bar_minutes: int
    arrivals: list[Bar]
    guests: list[GuestOutcome]


def arrivals(times):
    """Arrivals per 15 minutes (wider when they span more than MAX_BARS bars): [{start, count}]."""
    if not times:
        return 15, []
    minutes, day = 15, min(times).replace(hour=0, minute=0, second=0, microsecond=0)
    while (max(times) - min(times)) // timedelta(minutes=minutes) >= MAX_BARS - 1:
        minutes *= 2
    first = day + (min(times) - day) // timedelta(minutes=minutes) * timedelta(minutes=minutes)  # bars start
    counts = Counter((t - first) // timedelta(minutes=minutes) for t in times)
    return minutes, [
        Bar(start=iso(first + n * timedelta(minutes=minutes)), count=counts[n])
        for n in range(max(counts) + 1)
    ]


def summary_json(meetup):
    """The summary of get_meetup_summary, in three queries (entries, check-in events, the meetup's counts)."""
    entries = list(MeetupGuest.with_guests(meetup.id))  # those the org no longer keeps count, unnamed
    outcomes = Counter(e.outcome for e in entries)
    times = [e.arrival_time for e in entries if e.has_arrived]
    brought = sum(e.guests_brought or 0 for e in entries if e.has_arrived)
    events = AuditEvent.check_ins(meetup.org_id, meetup.id)
    kinds = Counter("forced" if e.details.get("forced") else e.event_type for e in events)
    record = check_in_record(events)
    bar_minutes, bars = arrivals(times)
    return Summary(
        meetup=meetup_json(meetup),
        counts=SummaryCounts(
            rsvps=sum(not e.is_walkin and not e.cancelled_rsvp for e in entries),
            arrived=len(times),
            no_shows=outcomes["NO_SHOW"],
            upcoming=outcomes["UPCOMING"] + outcomes["MEETUP_CANCELLED"],
            excused=outcomes["EXCUSED_ABSENCE"],
            cancelled=outcomes["CANCELLED"],
            waitlisted=outcomes["WAITLIST"],
            walkins=sum(e.is_walkin for e in entries),
            local_walkins=sum(
                e.is_walkin and (e.guest.is_local if e.guest_id else e.guest_was_local) for e in entries
            ),
            forced_check_ins=kinds["forced"],
            undone_check_ins=kinds[AuditType.UNDO_CHECK_IN],
            guests_brought=brought,
            people=len(times) + brought,
        ),
        outcomes=dict(outcomes),
        first_arrival=iso(min(times, default=None)),
        last_arrival=iso(max(times, default=None)),
        bar_minutes=bar_minutes,
        arrivals=bars,
        guests=[outcome_json(e, record) for e in entries if e.guest_id is not None],
    )


@endpoint(
    "GET",
    "/organizations/<org_id>/meetups/<meetup_id>/summary",
    auth=org_member,
    answer=Summary,
    errors=("not_found",),
)
def get_meetup_summary(org_id, meetup_id):
    """The meetup's attendance: counts, first and last arrival, arrivals per 15 minutes, each guest's outcome.

    `rsvps` counts RSVPs not cancelled (the waitlisted included), as the door list's counts do.
    Outcomes use Meetup's words where they exist (ATTENDED, NO_SHOW, EXCUSED_ABSENCE) and Door's own for
    the rest (WALK_IN, CANCELLED, WAITLIST, NOT_CHECKED_IN). An expected guest who has not come is a
    NO_SHOW only once the meetup is over (finalized, or dated before now): before, UPCOMING; at a cancelled
    meetup, MEETUP_CANCELLED; `upcoming` counts both. `people` counts arrivals and the guests they brought
    (each one's `guests_brought`, as the door recorded it), as the door list's counts do.
    A guest's `ban_overridden` and `undone_check_ins` say what the counts tell of them.
    One rule for this and the CSV export: the same columns, each one that members see of these guests at
    the door (names, RSVPs, arrivals, who checked them in) or that the counts tell (cancelled, excused,
    forced, undone); what is an admin's alone (ban, excuse and undo reasons, the audit log) is in neither.
    A guest the organization forgot (retention, an erasure) has no line and is in every count and bar."""
    return summary_json(get_or_404(Meetup, meetup_id, "meetup", org=org_id))


# for people: the name first, no ids, and a door pass worded in the file's language in checked_in_by
PEOPLE_COLUMNS = ("displayname", "username", *(c for c in OUTCOME_COLUMNS[3:] if c not in PASS_COLUMNS))


@endpoint(
    "GET",
    "/organizations/<org_id>/meetups/<meetup_id>/export",
    auth=org_admin,
    query=ExportQuery,
    produces=CSV,
    errors=("not_found",),
)
def export_meetup_guests(org_id, meetup_id, query):
    """The meetup's guest list with each guest's outcome, as CSV (UTF-8 with a byte-order mark).

    The summary's `guests`, column for column; the file, a copy that leaves Door, is for admins.
    `style=data` (the default) is for programs: the API's column names and outcome words, times in UTC ISO
    8601. `style=people` is for a spreadsheet: columns and outcomes in `lang`, times in the organization's
    time zone (its `time_zone`, else the server's) to the minute, separated by `sep` (semicolon for a
    spreadsheet set to Spanish or another language that writes decimal commas)."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    name = f"{meetup.name} {meetup.date:%Y-%m-%d}"
    record = check_in_record(AuditEvent.check_ins(meetup.org_id, meetup.id))
    entries = [e for e in MeetupGuest.with_guests(meetup.id) if e.guest_id is not None]
    lines = [outcome_json(entry, record) for entry in entries]
    if query.style == "data":
        return csv_file(name, OUTCOME_COLUMNS, [line.values() for line in lines])
    people = People(query, Org.get_by_id(org_id).time_zone)
    rows = [people.outcome_row(line, e, PEOPLE_COLUMNS) for line, e in zip(lines, entries, strict=True)]
    return csv_file(name, people.header(PEOPLE_COLUMNS), rows, people.separator)
