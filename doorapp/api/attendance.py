"""After the night: a meetup's attendance summary and its CSV, excusing a no-show, a guest's history."""

from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

from doorapp.access import org_admin, org_member
from doorapp.api import endpoint
from doorapp.api.meetups import meetup_json
from doorapp.bodies import text
from doorapp.db import get_or_404, iso, utcnow
from doorapp.errors import ApiError
from doorapp.export import CSV, csv_file
from doorapp.models import AuditEvent, AuditType, Ban, Guest, Meetup, MeetupGuest, Org, audit
from doorapp.models.meetups import RECENT

MEETUP = "/organizations/<org_id>/meetups/<meetup_id>"
REPEAT_NO_SHOWS = 2  # no-shows at the org's RECENT last meetups that mark a guest as a repeat no-show
MAX_BARS = 96        # the chart's bars: 15 minutes each, or wider when the arrivals span more than a day


@dataclass
class ExcuseIn:
    reason: str = text(max_length=500, doc="Why the absence is excused; kept in the audit log.")


COLUMNS = ("platform_user_id", "username", "displayname", "outcome", "guests_count", "rsvp_time",
           "cancelled_at", "arrival_order", "arrival_time", "checked_in_by", "excused_at")


def outcome_json(entry):
    """One guest's line of the summary and of its CSV (COLUMNS): who, and how their evening went. `entry`
    comes from MeetupGuest.with_guests()."""
    guest, checker = entry.guest, entry.checked_in_by
    return dict(zip(COLUMNS, (guest.platform_user_id, guest.username, guest.displayname, entry.outcome,
                              entry.guests_count, None if entry.is_walkin else iso(entry.rsvp_time),
                              iso(entry.cancelled_at), entry.arrival_order, iso(entry.arrival_time),
                              checker and checker.username, iso(entry.excused_at))))


def arrivals(times):
    """Arrivals per 15 minutes (wider when they span more than MAX_BARS bars): [{start, count}]."""
    if not times:
        return 15, []
    minutes, day = 15, min(times).replace(hour=0, minute=0, second=0, microsecond=0)
    while (max(times) - min(times)) // timedelta(minutes=minutes) >= MAX_BARS - 1:
        minutes *= 2
    first = day + (min(times) - day) // timedelta(minutes=minutes) * timedelta(minutes=minutes)  # bars start
    counts = Counter((t - first) // timedelta(minutes=minutes) for t in times)
    return minutes, [{"start": iso(first + n * timedelta(minutes=minutes)), "count": counts[n]}
                     for n in range(max(counts) + 1)]


def summary_json(meetup):
    """The summary of get_meetup_summary, in three queries (entries, check-in events, the meetup's counts)."""
    entries = list(MeetupGuest.with_guests(meetup.id))
    outcomes = Counter(e.outcome for e in entries)
    times = [e.arrival_time for e in entries if e.has_arrived]
    brought = sum(e.guests_count for e in entries if e.has_arrived)
    check_ins = AuditEvent.log(meetup.org_id, meetup=meetup.id,
                               types=(AuditType.CHECK_IN, AuditType.UNDO_CHECK_IN))
    kinds = Counter("forced" if e.details.get("forced") else e.event_type for e in check_ins)
    bar_minutes, bars = arrivals(times)
    return {"meetup": meetup_json(meetup),
            "counts": {"rsvps": sum(not e.is_walkin and not e.cancelled_rsvp for e in entries),
                       "arrived": len(times),
                       "no_shows": outcomes["NO_SHOW"], "excused": outcomes["EXCUSED_ABSENCE"],
                       "cancelled": outcomes["CANCELLED"], "waitlisted": outcomes["WAITLIST"],
                       "walkins": sum(e.is_walkin for e in entries),
                       "local_walkins": sum(e.is_walkin and e.guest.is_local for e in entries),
                       "forced_check_ins": kinds["forced"],
                       "undone_check_ins": kinds[AuditType.UNDO_CHECK_IN],
                       "guests_brought": brought, "people": len(times) + brought},
            "outcomes": dict(outcomes), "first_arrival": iso(min(times, default=None)),
            "last_arrival": iso(max(times, default=None)), "bar_minutes": bar_minutes, "arrivals": bars,
            "guests": [outcome_json(e) for e in entries]}


@endpoint("GET", MEETUP + "/summary", auth=org_member)
def get_meetup_summary(org_id, meetup_id):
    """The meetup's attendance: counts, first and last arrival, arrivals per 15 minutes, each guest's outcome.

    `rsvps` counts RSVPs not cancelled (the waitlisted included), as the door list's counts do.
    Outcomes use Meetup's words where they exist (ATTENDED, NO_SHOW, EXCUSED_ABSENCE) and Door's own for
    the rest (WALK_IN, CANCELLED, WAITLIST, NOT_CHECKED_IN). `people` counts the guests arrivals brought."""
    return summary_json(get_or_404(Meetup, meetup_id, "meetup", org=org_id))


@endpoint("GET", MEETUP + "/export", auth=org_admin, produces=CSV)
def export_meetup_guests(org_id, meetup_id):
    """The meetup's guest list with each guest's outcome, as CSV (UTF-8 with a byte-order mark)."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    rows = [outcome_json(e).values() for e in MeetupGuest.with_guests(meetup.id)]
    return csv_file(f"{meetup.name} {meetup.date:%Y-%m-%d}", COLUMNS, rows)


@endpoint("PATCH", MEETUP + "/guests/<platform_user_id>/excuse", auth=org_admin, body=ExcuseIn)
def excuse_no_show(org_id, meetup_id, platform_user_id, body, user):
    """Excuse a guest who RSVP'd and did not come (NO_SHOW becomes EXCUSED_ABSENCE); a reason is required.

    Works on finalized meetups too; an excused absence does not count towards a repeat no-show mark."""
    entry = MeetupGuest.at_door(org_id, meetup_id, platform_user_id)
    if entry is None:
        get_or_404(Meetup, meetup_id, "meetup", org=org_id)
        guest = get_or_404(Guest, platform_user_id, "guest")
        raise ApiError(404, "not_on_list", f"{guest.username} is not on this meetup's list.")
    if entry.outcome not in ("NO_SHOW", "EXCUSED_ABSENCE"):
        raise ApiError(409, "not_a_no_show", f"{entry.guest.username} is no no-show: {entry.outcome}.")
    if not MeetupGuest.excuse(entry):
        raise ApiError(409, "already_excused", f"{entry.guest.username}'s absence is already excused.")
    audit.record(AuditType.NO_SHOW_EXCUSED, user, org=org_id, meetup=meetup_id, guest=entry.guest_id,
                 reason=body.reason)
    return outcome_json(MeetupGuest.with_guests(meetup_id).where(MeetupGuest.id == entry.id).get())


# --- a guest's history in the organization ------------------------------------------------------------------

def history_badges(history):
    """What the door row says of a guest's past here: {visits, last_visit, recent_no_shows, recent,
    repeat_no_show}; `history` is one value of MeetupGuest.history() (None: never on a list here)."""
    history = history or {"visits": 0, "last_visit": None, "recent_no_shows": 0}
    return {"visits": history["visits"], "last_visit": iso(history["last_visit"]),
            "recent_no_shows": history["recent_no_shows"], "recent": RECENT,
            "repeat_no_show": history["recent_no_shows"] >= REPEAT_NO_SHOWS}


def upcoming(entry):
    """UPCOMING for an expected guest of a meetup yet to come (open, dated later): no no-show yet."""
    meetup = entry.meetup
    if entry.outcome == "NO_SHOW" and not meetup.is_finalized and meetup.date > utcnow():
        return "UPCOMING"
    return None


@endpoint("GET", "/organizations/<org_id>/guests/<platform_user_id>/history", auth=org_admin)
def get_guest_history(org_id, platform_user_id):
    """A guest's history in this organization: meetups attended, no-shows, last visit, bans.

    Each meetup's outcome is as the summary gives it, or UPCOMING for a meetup yet to come.

    `repeat_no_show` counts no-shows at the organization's last 5 meetups only; an excused absence does not
    count, and the mark never bans anyone by itself."""
    org, guest = get_or_404(Org, org_id, "organization"), get_or_404(Guest, platform_user_id, "guest")
    meetups = [{"meetup_id": str(e.meetup.id), "name": e.meetup.name, "date": iso(e.meetup.date),
                "outcome": upcoming(e) or e.outcome, "guests_count": e.guests_count,
                "arrival_time": iso(e.arrival_time)}
               for e in MeetupGuest.of_guest(org.id, guest.platform_user_id)]
    history = MeetupGuest.history(org.id, [guest.platform_user_id], utcnow() + timedelta(days=1))
    bans = AuditEvent.log(org.id, guest=guest.platform_user_id, types=(AuditType.BAN, AuditType.UNBAN))
    ban = Ban.active(org.id, guest.platform_user_id)
    outcomes = Counter(m["outcome"] for m in meetups)
    return {"guest": {"platform_user_id": guest.platform_user_id, "username": guest.username,
                      "displayname": guest.displayname},
            **history_badges(history.get(guest.platform_user_id)),
            "attended": outcomes["ATTENDED"] + outcomes["WALK_IN"], "no_shows": outcomes["NO_SHOW"],
            "excused": outcomes["EXCUSED_ABSENCE"], "is_banned": ban is not None,
            "ban_reason": ban and ban.reason,
            "bans": [{"event_type": e.event_type, "timestamp": iso(e.timestamp), "reason": e.reason}
                     for e in bans],
            "meetups": meetups}
