"""The door: a meetup's guest list (with the ETag doors poll), walk-ins, check-ins and their undo."""

import gzip
import json
import threading
from dataclasses import dataclass

from bottle import request, response

from doorapp import audit
from doorapp.access import org_member
from doorapp.api import endpoint
from doorapp.api.attendance import history_badges
from doorapp.api.meetups import open_meetup
from doorapp.audit import AuditType
from doorapp.bodies import text
from doorapp.errors import ApiError
from doorapp.models import Guest, Meetup, MeetupGuest, db, get_or_404, iso

ENTRY = "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>"
FINALIZED = "This meetup is finalized; an admin can unfinalize it."
# (database, meetup id) -> (ETag, JSON, gzipped JSON) of the door list last rendered. A list of 2,000 takes
# tens of milliseconds to render and every door polls it, so doors share one rendering while its ETag is
# current.
_rendered = {}
_rendering = threading.Lock()  # a changed list is rendered by one thread while the others wait for it
# (database, meetup id) -> (the org's newest ban or excuse event id, {guest id: history}): the list's history
# (MeetupGuest.history) is of earlier meetups, so a check-in here leaves it alone; bans and excuses in the
# org move the version on. A rendering looks up only the guests it has not seen (a walk-in: one row).
_histories = {}


@dataclass
class CheckInIn:
    force: bool = False  # check in a guest who is banned in this org; the event records the override


@dataclass
class UndoIn:
    reason: str = text(max_length=500, doc="Why the check-in is undone; kept in the audit log.")


def person(user):
    return user and {"id": user.id, "username": user.username}


def meetup_guest_json(entry, history=None):
    """API.md's MeetupGuest from an entry of MeetupGuest.door_list() or .at_door(), with the guest's
    `history` in the org before this meetup (given by the door list for all its guests at once)."""
    guest, ban, meetup = entry.guest, entry.ban, entry.meetup
    if history is None:
        history = MeetupGuest.history(meetup.org_id, [guest.platform_user_id], meetup.date)
    history = history_badges(history.get(guest.platform_user_id))
    return {"guest": {"platform_user_id": guest.platform_user_id, "username": guest.username,
                      "displayname": guest.displayname, "is_banned": ban is not None,
                      "ban_reason": ban and ban.reason, "history": history},
            "rsvp": {"rsvp_time": iso(entry.rsvp_time), "cancelled_rsvp": entry.cancelled_rsvp,
                     "waitlisted": entry.waitlisted, "guests_count": entry.guests_count,
                     "is_walkin": entry.is_walkin, "has_arrived": entry.has_arrived,
                     "arrival_time": iso(entry.arrival_time), "arrival_order": entry.arrival_order,
                     "checked_in_by": person(entry.checked_in_by)}}


def door_entry(org_id, meetup_id, platform_user_id):
    """The guest's entry on the open meetup's list (MeetupGuest.at_door): 404 not_found (meetup, guest),
    409 meetup_finalized, 404 not_on_list."""
    entry = MeetupGuest.at_door(org_id, meetup_id, platform_user_id)
    if entry is None:
        open_meetup(org_id, meetup_id)
        guest = get_or_404(Guest, platform_user_id, "guest")
        raise ApiError(404, "not_on_list",
                       f"{guest.username} is not on this meetup's list; add them as a walk-in.")
    if entry.meetup.is_finalized:
        raise ApiError(409, "meetup_finalized", FINALIZED)
    return entry


def refuse_check_in(entry):
    """409 already_checked_in with who let the guest in, when, and which number; or meetup_finalized when
    the meetup was closed meanwhile (a conditional UPDATE of MeetupGuest.check_in lost a race)."""
    if not entry.has_arrived:
        entry = MeetupGuest.at_door(entry.meetup.org_id, entry.meetup_id, entry.guest_id)
    if not entry.has_arrived:
        raise ApiError(409, "meetup_finalized", FINALIZED)
    raise ApiError(409, "already_checked_in",
                   f"{entry.guest.username} was already checked in as number {entry.arrival_order}.",
                   arrival_time=iso(entry.arrival_time), arrival_order=entry.arrival_order,
                   checked_in_by=person(entry.checked_in_by))


def door_list_body(meetup, tag, accept_encoding):
    """The door list as JSON, rendered once per ETag; gzipped (a twentieth of the size) for clients that
    take it."""
    key = (db.database, str(meetup.id))
    with _rendering:
        cached = _rendered.get(key)
        if cached is None or cached[0] != tag:
            rows = list(MeetupGuest.door_list(meetup))
            history = list_history(meetup, [row.guest_id for row in rows])
            guests = [meetup_guest_json(row, history) for row in rows]
            counts = MeetupGuest.counts([meetup.id])[str(meetup.id)]
            body = json.dumps({"total": len(guests), "counts": counts, "guests": guests}).encode()
            if len(_rendered) >= 32:
                _rendered.clear()
            cached = _rendered[key] = (tag, body, gzip.compress(body, 6, mtime=0))
    response.content_type = "application/json"
    if not accepts_gzip(accept_encoding):
        return cached[1]
    response.set_header("Content-Encoding", "gzip")
    return cached[2]


def list_history(meetup, guest_ids):
    """{guest id: history} of the list's guests (see _histories); called under _rendering."""
    key, version = (db.database, str(meetup.id)), meetup.list_version[1]
    seen_version, known = _histories.get(key, (None, {}))
    if seen_version != version:
        known = {}
    missing = [i for i in guest_ids if i not in known]
    if missing:
        wanted = missing if len(missing) <= 500 else MeetupGuest.guests_of(meetup.id)  # 500: parameter limits
        found = MeetupGuest.history(meetup.org_id, wanted, meetup.date)
        known.update({i: found.get(i) for i in missing})
    if len(_histories) >= 32:
        _histories.clear()
    _histories[key] = (version, known)
    return known


def accepts_gzip(header):
    """Whether an Accept-Encoding header takes gzip (RFC 9110 section 12.5.3; q=0 refuses it)."""
    for part in (header or "").split(","):
        name, _, params = part.partition(";")
        weight = params.replace(" ", "").lower().removeprefix("q=")
        if name.strip().lower() in ("gzip", "x-gzip") and weight not in ("0", "0.", "0.0", "0.00", "0.000"):
            return True
    return False


def etag_matches(header, tag):
    """If-None-Match against our tag (weak comparison, `*` matches anything)."""
    sent = [part.strip().removeprefix("W/") for part in (header or "").split(",")]
    return "*" in sent or tag.removeprefix("W/") in sent


@endpoint("GET", "/organizations/<org_id>/meetups/<meetup_id>/guests", auth=org_member)
def list_meetup_guests(org_id, meetup_id):
    """The door list: every guest on the meetup with RSVP, check-in and ban status, and the counts.

    The answer carries an ETag; send it back in If-None-Match and an unchanged list answers 304 with
    no body, so a door can poll every second."""
    meetup = Meetup.with_list_version(org_id, meetup_id)
    if meetup is None:
        raise ApiError(404, "not_found", f"No meetup has the id {meetup_id}.")
    tag = 'W/"%s.%s.%s"' % meetup.list_version  # weak: the same for the plain and the gzipped list
    response.set_header("ETag", tag)
    response.set_header("Cache-Control", "private, no-cache")
    response.set_header("Vary", "Accept-Encoding")
    if etag_matches(request.get_header("If-None-Match"), tag):
        response.status = 304
        return None
    return door_list_body(meetup, tag, request.get_header("Accept-Encoding"))


@endpoint("POST", ENTRY + "/add-walkin", auth=org_member, status=201)
def add_walkin(org_id, meetup_id, platform_user_id, user):
    """Add a guest who did not RSVP to the meetup's list as a walk-in (not yet checked in)."""
    meetup = open_meetup(org_id, meetup_id)
    guest = get_or_404(Guest, platform_user_id, "guest")
    if not MeetupGuest.add_walkin(meetup.id, guest.platform_user_id):
        raise ApiError(409, "already_on_list", f"{guest.username} is already on this meetup's list.")
    audit.record(AuditType.WALKIN, user, org=meetup.org_id, meetup=meetup, guest=guest)
    return meetup_guest_json(MeetupGuest.at_door(org_id, meetup_id, guest.platform_user_id))


@endpoint("POST", ENTRY + "/checkin", auth=org_member, body=CheckInIn)
def check_in_guest(org_id, meetup_id, platform_user_id, body, user):
    """Check a guest in: records arrival time, arrival number and who let them in.

    A guest banned in this organization is refused (409 guest_banned) unless `force` is true; the
    CHECK_IN event then records the override."""
    entry = door_entry(org_id, meetup_id, platform_user_id)
    if entry.has_arrived:
        refuse_check_in(entry)
    if entry.ban and not body.force:
        raise ApiError(409, "guest_banned", f"{entry.guest.username} is banned here: {entry.ban.reason}",
                       ban_reason=entry.ban.reason)
    if not MeetupGuest.check_in(entry, user):
        refuse_check_in(entry)
    audit.record(AuditType.CHECK_IN, user, org=org_id, meetup=meetup_id, guest=entry.guest_id,
                 **({"forced": True} if entry.ban else {}))
    return meetup_guest_json(entry)


@endpoint("PATCH", ENTRY + "/undo-checkin", auth=org_member, body=UndoIn)
def undo_check_in(org_id, meetup_id, platform_user_id, body, user):
    """Undo a check-in; the reason is required and kept in the log. The arrival number is not reused."""
    entry = door_entry(org_id, meetup_id, platform_user_id)
    undone = {"arrival_order": entry.arrival_order, "arrival_time": iso(entry.arrival_time)}
    if not MeetupGuest.undo_check_in(entry):
        raise ApiError(409, "not_checked_in", f"{entry.guest.username} is not checked in.")
    audit.record(AuditType.UNDO_CHECK_IN, user, org=org_id, meetup=meetup_id, guest=entry.guest_id,
                 reason=body.reason, **undone)
    return meetup_guest_json(entry)
