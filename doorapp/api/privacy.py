"""An organization's data protection (admins): how long it keeps what it knows of guests and the notice
it shows them (/organizations/<org_id>/privacy, the notice for its doors too), and one person's data:
everything it holds about them as a file, and erasing it (.../guests/<platform_user_id>/export, /erase).
What is kept and forgotten: doorapp.models.privacy; retention's hourly pass: doorapp.privacy."""

from dataclasses import dataclass
from typing import TypedDict

from bottle import response

from doorapp.access import door, org_admin
from doorapp.api import endpoint, shapes
from doorapp.api.door_shapes import GuestTags, Rsvp, guest_tags_json, rsvp_json
from doorapp.api.shapes import MOMENT, UUID, banned_json, event_json, guest_json
from doorapp.bodies import number, text
from doorapp.db import get_or_404, iso, queue_on
from doorapp.models import AuditEvent, AuditType, Ban, MeetupGuest, Org, audit
from doorapp.models.privacy import erase, seen_here

NOTICE_MAX = 4000
UNCHANGED = "unchanged"  # keep_bans_months absent from a PATCH (null is a value: until lifted)
MONTHS = "Months, 1 to 120."


@dataclass
class PrivacyChange:
    keep_guests_months: int = number(1, 120, default=None, doc=MONTHS)
    keep_bans_months: int | None = number(1, 120, default=UNCHANGED, doc=MONTHS + " null: until lifted.")
    keep_audit_details_months: int = number(1, 120, default=None, doc=MONTHS)
    notice: str = text(
        max_length=NOTICE_MAX,
        min_length=0,
        default=None,
        doc="What the organization tells the people at its door about their data; empty: nothing.",
    )


class Privacy(TypedDict):
    """How long the organization keeps what it knows of guests, and the notice it shows them.

    `keep_guests_months`: an entry of a meetup dated longer ago loses its guest (it still counts);
    `keep_bans_months`: a ban older than this ends (BAN_EXPIRED), null: until lifted;
    `keep_audit_details_months`: an older audit event is shredded (its type, time, actor, meetup and
    numbers stay). Door applies them at start and every hour."""

    keep_guests_months: int
    keep_bans_months: int | None
    keep_audit_details_months: int
    notice: str


class Notice(TypedDict):
    """How the organization uses the data of the people at its door, as it wrote it ("" for none)."""

    notice: str


@dataclass
class EraseIn:
    reason: str = text(
        max_length=500,
        doc="Why (the request and when it came, say): kept in the audit log, so not the person's name.",
    )


class Erased(TypedDict):
    """How many of the person's list entries, bans and audit events the organization held, now gone."""

    entries: int
    bans: int
    events: int


class ExportMeetup(TypedDict):
    id: UUID
    name: str
    date: MOMENT


class ExportEntry(TypedDict):
    meetup: ExportMeetup
    rsvp: Rsvp


class GuestExport(TypedDict):
    """Everything the organization holds about one person: who they are, their entries on its meetups'
    lists, their ban there, its tags and note on them, and its audit events about them (with the
    platform's registration)."""

    guest: shapes.Guest
    entries: list[ExportEntry]
    bans: list[shapes.Ban]
    tags: GuestTags
    events: list[shapes.AuditEvent]


def privacy_json(org):
    return Privacy(
        keep_guests_months=org.keep_guests_months,
        keep_bans_months=org.keep_bans_months,
        keep_audit_details_months=org.keep_audit_details_months,
        notice=org.privacy_notice,
    )


@endpoint("GET", "/organizations/<org_id>/privacy", auth=org_admin, answer=Privacy, errors=("not_found",))
def get_privacy(org_id):
    """How long the organization keeps what it knows of guests, and the notice it shows them."""
    return privacy_json(get_or_404(Org, org_id, "organization"))


@endpoint(
    "PATCH",
    "/organizations/<org_id>/privacy",
    auth=org_admin,
    body=PrivacyChange,
    answer=Privacy,
    errors=("not_found",),
)
def update_privacy(org_id, body, caller):
    """Change how long the organization keeps what it knows of guests, or its notice; what is older than
    a new setting is forgotten within the hour. The change is recorded (ORG_UPDATED)."""
    org = get_or_404(Org, org_id, "organization")
    wanted = {
        "keep_guests_months": body.keep_guests_months,
        "keep_audit_details_months": body.keep_audit_details_months,
        "privacy_notice": body.notice,
    }
    wanted = {name: value for name, value in wanted.items() if value is not None}
    if body.keep_bans_months != UNCHANGED:
        wanted["keep_bans_months"] = body.keep_bans_months
    changes = {k: {"old": getattr(org, k), "new": v} for k, v in wanted.items() if v != getattr(org, k)}
    if changes:
        Org.update(**{k: change["new"] for k, change in changes.items()}).where(Org.id == org.id).execute()
        audit.record(AuditType.ORG_UPDATED, caller, org=org, changes=changes)
    return privacy_json(Org.get_by_id(org.id))


@endpoint("GET", "/organizations/<org_id>/privacy/notice", auth=door, answer=Notice, errors=("not_found",))
def get_privacy_notice(org_id):
    """The organization's notice to the people at its door ("How this organization uses your data"), for
    its doors and door passes to show."""
    return Notice(notice=get_or_404(Org, org_id, "organization").privacy_notice)


@endpoint(
    "POST",
    "/organizations/<org_id>/guests/<platform_user_id>/erase",
    auth=org_admin,
    body=EraseIn,
    answer=Erased,
    errors=("not_found",),
)
def erase_guest(org_id, platform_user_id, body, caller):
    """Erase everything this organization holds about one person, now.

    Their entries on its meetups' lists lose them (the meetups' counts, summaries and arrival numbers do not
    change), their ban here ends, its tags and note on them go, its audit events about them are shredded, and
    its doors' stored answers naming them go. A guest let in by name, or a platform guest with no entry, ban
    or event left in any organization, is deleted; every other organization's records of them stay as they
    were. Afterwards they are 404 here (history, export, ban, the door's search) until one of its lists has
    them again. The GUEST_ERASED event names no one. Erased data leaves Door's daily backups as they rotate
    out: within 14 days."""
    get_or_404(Org, org_id, "organization")
    queue_on(f"erase {org_id} {platform_user_id}")  # two admins at once: the second finds them gone
    guest = seen_here(org_id, platform_user_id)
    return Erased(**erase(org_id, guest, caller, body.reason))


@endpoint(
    "GET",
    "/organizations/<org_id>/guests/<platform_user_id>/export",
    auth=org_admin,
    answer=GuestExport,
    errors=("not_found",),
)
def export_guest(org_id, platform_user_id):
    """Everything this organization holds about one person, as a file to give them (a download, JSON):
    who they are, their entries on its meetups' lists, their ban here, its tags and note on them, its audit
    events about them."""
    get_or_404(Org, org_id, "organization")
    guest = seen_here(org_id, platform_user_id)
    entries = [
        ExportEntry(
            meetup=ExportMeetup(id=str(e.meetup.id), name=e.meetup.name, date=iso(e.meetup.date)),
            rsvp=rsvp_json(e),
        )
        for e in MeetupGuest.of_guest(org_id, guest.platform_user_id)
    ]
    bans = [banned_json(ban) for ban in Ban.of_org(org_id, guest.platform_user_id)]
    events = AuditEvent.with_people(AuditEvent.log(org_id, orgless=True, guest=guest.platform_user_id))
    response.set_header("Content-Disposition", f'attachment; filename="guest-{guest.platform_user_id}.json"')
    return GuestExport(
        guest=guest_json(guest),
        entries=entries,
        bans=bans,
        tags=guest_tags_json(org_id, guest.platform_user_id),
        events=[event_json(e) for e in events],
    )
