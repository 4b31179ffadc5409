"""/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/excuse and .../guests-brought: an
admin's corrections to one guest's line of a meetup's summary after the night (excusing a no-show, how many
guests an arrival brought). Each answers the corrected line."""

from dataclasses import dataclass

from doorapp.access import org_admin
from doorapp.api import GUESTS_BROUGHT, endpoint, guests_brought, named
from doorapp.api.door_shapes import GuestOutcome, outcome_json
from doorapp.bodies import number, text
from doorapp.db import get_or_404, iso
from doorapp.door_actions import ENTRY
from doorapp.errors import ApiError
from doorapp.models import AuditEvent, Meetup, MeetupGuest, audit
from doorapp.models.audit import AuditType, check_in_record
from doorapp.models.privacy import seen_here


@dataclass
class ExcuseIn:
    reason: str = text(max_length=500, doc="Why the absence is excused; kept in the audit log.")


@endpoint(
    "PATCH",
    ENTRY + "/excuse",
    auth=org_admin,
    body=ExcuseIn,
    answer=GuestOutcome,
    errors=("already_excused", "meetup_not_started", "not_a_no_show", "not_found", "not_on_list"),
)
def excuse_no_show(org_id, meetup_id, platform_user_id, body, caller):
    """Excuse a guest who RSVP'd and did not come (NO_SHOW becomes EXCUSED_ABSENCE); a reason is required.

    Only once the meetup has begun or is finalized (before: 409 meetup_not_started); a later check-in of
    the guest ends the excuse. An excused absence does not count towards a repeat no-show mark."""
    entry = on_list(org_id, meetup_id, platform_user_id)
    if entry.meetup.to_come:
        raise ApiError(
            409,
            "meetup_not_started",
            f"This meetup starts at {iso(entry.meetup.date)}: an absence can be excused once it has begun.",
        )
    if entry.outcome not in ("NO_SHOW", "EXCUSED_ABSENCE"):
        raise ApiError(409, "not_a_no_show", f"{entry.guest.username} is no no-show: {entry.outcome}.")
    if not MeetupGuest.excuse(entry):
        raise ApiError(409, "already_excused", f"{entry.guest.username}'s absence is already excused.")
    audit.record(
        AuditType.NO_SHOW_EXCUSED,
        caller,
        org=org_id,
        meetup=meetup_id,
        guest=entry.guest_id,
        reason=body.reason,
    )
    return summary_line(org_id, meetup_id, entry)


def summary_line(org_id, meetup_id, entry):
    """The entry's line of the meetup's summary, as it is now."""
    line = MeetupGuest.with_guests(meetup_id).where(MeetupGuest.id == entry.id).get()
    return outcome_json(line, check_in_record(AuditEvent.check_ins(org_id, meetup_id)))


@dataclass
class GuestsBroughtIn:
    guests_brought: int = number(minimum=0, doc=GUESTS_BROUGHT)


@endpoint(
    "PATCH",
    ENTRY + "/guests-brought",
    auth=org_admin,
    body=GuestsBroughtIn,
    answer=GuestOutcome,
    errors=("not_checked_in", "not_found", "not_on_list"),
)
def set_guests_brought(org_id, meetup_id, platform_user_id, body, caller):
    """Correct how many of an arrived guest's RSVP'd guests came with them (0 to guests_count), as the
    summary, the CSV and the door's People count them; at a finalized meetup too. GUESTS_BROUGHT_CHANGED
    keeps the number before (guests_brought_before) and after (guests_brought)."""
    entry = on_list(org_id, meetup_id, platform_user_id)
    before, brought = entry.guests_brought, guests_brought(entry, body.guests_brought)
    if not MeetupGuest.set_guests_brought(entry, brought):
        raise ApiError(409, "not_checked_in", f"{named(entry.guest)} is not checked in.")
    audit.record(
        AuditType.GUESTS_BROUGHT_CHANGED,
        caller,
        org=org_id,
        meetup=meetup_id,
        guest=entry.guest_id,
        guests_brought_before=before,
        guests_brought=brought,
    )
    return summary_line(org_id, meetup_id, entry)


def on_list(org_id, meetup_id, platform_user_id):
    """The guest's entry on the org's meetup's list, open or not: 404 not_found (meetup, guest),
    not_on_list."""
    entry = MeetupGuest.at_door(org_id, meetup_id, platform_user_id)
    if entry is None:
        get_or_404(Meetup, meetup_id, "meetup", org=org_id)
        guest = seen_here(org_id, platform_user_id)
        raise ApiError(404, "not_on_list", f"{named(guest)} is not on this meetup's list.")
    return entry
