"""The door: a meetup's guest list (with the ETag doors poll), walk-ins, check-ins and their undo."""

from dataclasses import dataclass

from bottle import request, response

from doorapp import audit
from doorapp.access import org_member
from doorapp.api import endpoint
from doorapp.api.meetups import open_meetup
from doorapp.audit import AuditType
from doorapp.bodies import text
from doorapp.errors import ApiError
from doorapp.models import AuditEvent, Ban, Guest, Meetup, MeetupGuest, get_or_404, iso

ENTRY = "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>"


@dataclass
class CheckInIn:
    force: bool = False  # check in a guest who is banned in this org; the event records the override


@dataclass
class UndoIn:
    reason: str = text(max_length=500, doc="Why the check-in is undone; kept in the audit log.")


def meetup_guest_json(row):
    """API.md's MeetupGuest from a MeetupGuest.door_list() row."""
    checker = row["checker_id"] and {"id": row["checker_id"], "username": row["checker_username"]}
    return {"guest": {"platform_user_id": row["platform_user_id"], "username": row["username"],
                      "displayname": row["displayname"], "is_banned": row["ban_reason"] is not None,
                      "ban_reason": row["ban_reason"]},
            "rsvp": {"rsvp_time": iso(row["rsvp_time"]), "cancelled_rsvp": row["cancelled_rsvp"],
                     "is_walkin": row["is_walkin"], "has_arrived": row["has_arrived"],
                     "arrival_time": iso(row["arrival_time"]), "arrival_order": row["arrival_order"],
                     "checked_in_by": checker or None}}


def entry_json(meetup, guest):
    return meetup_guest_json(MeetupGuest.door_list(meetup).where(MeetupGuest.guest == guest).get())


def list_entry(meetup, platform_user_id):
    """The guest and its entry on the (open) meetup's list: 404 not_found / not_on_list."""
    guest = get_or_404(Guest, platform_user_id, "guest")
    entry = MeetupGuest.get_or_none(MeetupGuest.meetup == meetup.id, MeetupGuest.guest == guest)
    if entry is None:
        raise ApiError(404, "not_on_list", f"{guest.username} is not on this meetup's list; add them as a walk-in.")
    return guest, entry


def refuse_check_in(guest, entry):
    """409 already_checked_in with who let the guest in, when, and which number; or meetup_finalized when
    the meetup was closed meanwhile (the conditional UPDATEs of MeetupGuest.check_in lost a race)."""
    entry = MeetupGuest.get_by_id(entry.id)
    if not entry.has_arrived:
        raise ApiError(409, "meetup_finalized", "This meetup is finalized; an admin can unfinalize it.")
    checker = entry.checked_in_by
    raise ApiError(409, "already_checked_in",
                   f"{guest.username} was already checked in as number {entry.arrival_order}.",
                   arrival_time=iso(entry.arrival_time), arrival_order=entry.arrival_order,
                   checked_in_by=checker and {"id": checker.id, "username": checker.username})


def etag_matches(header, tag):
    """If-None-Match against our tag (weak comparison, `*` matches anything)."""
    sent = [part.strip().removeprefix("W/") for part in (header or "").split(",")]
    return "*" in sent or tag in sent


@endpoint("GET", "/organizations/<org_id>/meetups/<meetup_id>/guests", auth=org_member)
def list_meetup_guests(org_id, meetup_id):
    """The door list: every guest on the meetup with RSVP, check-in and ban status, and the counts.

    The answer carries an ETag; send it back in If-None-Match and an unchanged list answers 304 with
    no body, so a door can poll every second."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    tag = '"%s.%s.%s"' % tuple(v or 0 for v in AuditEvent.list_version(meetup))
    response.set_header("ETag", tag)
    response.set_header("Cache-Control", "private, no-cache")
    if etag_matches(request.get_header("If-None-Match"), tag):
        response.status = 304
        return None
    guests = [meetup_guest_json(row) for row in MeetupGuest.door_list(meetup)]
    return {"total": len(guests), "counts": MeetupGuest.counts([meetup.id])[str(meetup.id)], "guests": guests}


@endpoint("POST", ENTRY + "/add-walkin", auth=org_member, status=201)
def add_walkin(org_id, meetup_id, platform_user_id, user):
    """Add a guest who did not RSVP to the meetup's list as a walk-in (not yet checked in)."""
    meetup = open_meetup(org_id, meetup_id)
    guest = get_or_404(Guest, platform_user_id, "guest")
    if not MeetupGuest.add_walkin(meetup.id, guest.platform_user_id):
        raise ApiError(409, "already_on_list", f"{guest.username} is already on this meetup's list.")
    audit.record(AuditType.WALKIN, user, org=meetup.org_id, meetup=meetup, guest=guest)
    return entry_json(meetup, guest)


@endpoint("POST", ENTRY + "/checkin", auth=org_member, body=CheckInIn)
def check_in_guest(org_id, meetup_id, platform_user_id, body, user):
    """Check a guest in: records arrival time, arrival number and who let them in.

    A guest banned in this organization is refused (409 guest_banned) unless `force` is true; the
    CHECK_IN event then records the override."""
    meetup = open_meetup(org_id, meetup_id)
    guest, entry = list_entry(meetup, platform_user_id)
    if entry.has_arrived:
        refuse_check_in(guest, entry)
    ban = Ban.active(meetup.org_id, guest.platform_user_id)
    if ban and not body.force:
        raise ApiError(409, "guest_banned", f"{guest.username} is banned here: {ban.reason}", ban_reason=ban.reason)
    if not MeetupGuest.check_in(entry, user):
        refuse_check_in(guest, entry)
    audit.record(AuditType.CHECK_IN, user, org=meetup.org_id, meetup=meetup, guest=guest,
                 **({"forced": True} if ban else {}))
    return entry_json(meetup, guest)


@endpoint("PATCH", ENTRY + "/undo-checkin", auth=org_member, body=UndoIn)
def undo_check_in(org_id, meetup_id, platform_user_id, body, user):
    """Undo a check-in; the reason is required and kept in the log. The arrival number is not reused."""
    meetup = open_meetup(org_id, meetup_id)
    guest, entry = list_entry(meetup, platform_user_id)
    if not MeetupGuest.undo_check_in(entry):
        raise ApiError(409, "not_checked_in", f"{guest.username} is not checked in.")
    audit.record(AuditType.UNDO_CHECK_IN, user, org=meetup.org_id, meetup=meetup, guest=guest, reason=body.reason,
                 arrival_order=entry.arrival_order, arrival_time=iso(entry.arrival_time))
    return entry_json(meetup, guest)
