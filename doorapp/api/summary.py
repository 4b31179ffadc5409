"""After the night: .../meetups/<meetup_id>/summary, a meetup's attendance (its numbers, arrivals per 15
minutes, the peak of people inside, each guest's outcome with the organization's tags and note on them), and
.../export, its guest list as CSV for programs or for people."""

from collections import Counter
from datetime import timedelta
from typing import TypedDict

from doorapp.access import org_admin, org_member
from doorapp.api import endpoint, shapes
from doorapp.api.door_shapes import OUTCOME_COLUMNS, GuestOutcome, guest_tags, outcome_json
from doorapp.api.shapes import MOMENT, meetup_json
from doorapp.db import get_or_404, iso
from doorapp.export import CSV, csv_file
from doorapp.models import AuditEvent, AuditType, Meetup, MeetupGuest, Org
from doorapp.models.audit import check_in_record
from doorapp.spreadsheet import PASS_COLUMNS, ExportQuery, People, labels

MAX_BARS = 96  # the chart's bars: 15 minutes each, or wider when the arrivals span more than a day


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
    peak_inside: int  # the most people inside at once (when: the summary's peak_at)


class Summary(TypedDict):
    """A meetup's attendance; `outcomes` counts its guests by outcome (those it has)."""

    meetup: shapes.Meetup
    counts: SummaryCounts
    outcomes: dict[shapes.OUTCOME, int]
    first_arrival: MOMENT | None
    last_arrival: MOMENT | None
    peak_at: MOMENT | None  # when the people inside first reached counts.peak_inside (null: nobody came)
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
    """The summary of get_meetup_summary, in three queries (entries, check-in events, the meetup's counts)
    and one more when guests have tags."""
    entries = list(MeetupGuest.with_guests(meetup.id))  # those the org no longer keeps count, unnamed
    tags = guest_tags(meetup.org_id, entries)
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
            peak_inside=meetup.peak_inside,
        ),
        outcomes=dict(outcomes),
        first_arrival=iso(min(times, default=None)),
        last_arrival=iso(max(times, default=None)),
        peak_at=iso(meetup.peak_at),
        bar_minutes=bar_minutes,
        arrivals=bars,
        guests=[outcome_json(e, record, tags) for e in entries if e.guest_id is not None],
    )


@endpoint(
    "GET",
    "/organizations/<org_id>/meetups/<meetup_id>/summary",
    auth=org_member,
    answer=Summary,
    errors=("not_found",),
)
def get_meetup_summary(org_id, meetup_id):
    """The meetup's attendance: counts, first and last arrival, arrivals per 15 minutes, the peak of
    people inside and when, each guest's outcome.

    `rsvps` counts RSVPs not cancelled (the waitlisted included), as the door list's counts do.
    Outcomes use Meetup's words where they exist (ATTENDED, NO_SHOW, EXCUSED_ABSENCE) and Door's own for
    the rest (WALK_IN, CANCELLED, WAITLIST, NOT_CHECKED_IN). An expected guest who has not come is a
    NO_SHOW only once the meetup is over (finalized, or dated before now): before, UPCOMING; at a cancelled
    meetup, MEETUP_CANCELLED; `upcoming` counts both. `people` counts arrivals and the guests they brought
    (each one's `guests_brought`, as the door recorded it), as the door list's counts do.
    A guest's `ban_overridden` and `undone_check_ins` say what the counts tell of them. `peak_inside` is
    the most people inside at once (arrivals and their guests, less those out), `peak_at` when it was first
    reached.
    One rule for this and the CSV export: the same columns, each one that members see of these guests at
    the door (names, RSVPs, arrivals, who checked them in, the organization's tags and note) or that the
    counts tell (cancelled, excused, forced, undone); what is an admin's alone (ban, excuse and undo
    reasons, the audit log) is in neither.
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
    spreadsheet set to Spanish or another language that writes decimal commas). A guest's `tags` are
    their labels, separated by commas."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    name = f"{meetup.name} {meetup.date:%Y-%m-%d}"
    record = check_in_record(AuditEvent.check_ins(meetup.org_id, meetup.id))
    entries = [e for e in MeetupGuest.with_guests(meetup.id) if e.guest_id is not None]
    tags = guest_tags(meetup.org_id, entries)
    lines = [outcome_json(entry, record, tags) for entry in entries]
    if query.style == "data":
        return csv_file(name, OUTCOME_COLUMNS, [{**line, "tags": labels(line)}.values() for line in lines])
    people = People(query, Org.get_by_id(org_id).time_zone)
    rows = [people.outcome_row(line, e, PEOPLE_COLUMNS) for line, e in zip(lines, entries, strict=True)]
    return csv_file(name, people.header(PEOPLE_COLUMNS), rows, people.separator)
