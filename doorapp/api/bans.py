"""Bans: an org's admins ban and unban guests; every member sees the banned list."""

from dataclasses import dataclass

from doorapp import audit
from doorapp.access import org_admin, org_member
from doorapp.api import endpoint
from doorapp.api.guests import guest_json
from doorapp.audit import AuditType
from doorapp.bodies import text
from doorapp.errors import ApiError
from doorapp.models import Ban, Guest, Org, get_or_404, iso


@dataclass
class BanIn:
    reason: str = text(max_length=500, doc="Why the guest is banned; shown at the door and kept in the log.")


def banned_json(ban):
    """A banned-list entry; `ban` comes from Ban.of_org(), with its guest and banner joined."""
    by = ban.banned_by
    return {"platform_user_id": ban.guest.platform_user_id, "username": ban.guest.username,
            "displayname": ban.guest.displayname, "reason": ban.reason, "banned_at": iso(ban.banned_at),
            "banned_by": by and {"id": by.id, "username": by.username}}


@endpoint("GET", "/organizations/<org_id>/guests/banned", auth=org_member)
def list_banned_guests(org_id):
    """The guests banned in this organization, by username, with reason, time and who banned them."""
    get_or_404(Org, org_id, "organization")
    bans = [banned_json(ban) for ban in Ban.of_org(org_id)]
    return {"total": len(bans), "guests": bans}


@endpoint("PATCH", "/organizations/<org_id>/guests/<platform_user_id>/ban", auth=org_admin, body=BanIn)
def ban_guest(org_id, platform_user_id, body, user):
    """Ban a guest in this organization. A reason is required."""
    org, guest = get_or_404(Org, org_id, "organization"), get_or_404(Guest, platform_user_id, "guest")
    if not Ban.impose(org.id, guest.platform_user_id, body.reason, user):
        raise ApiError(409, "already_banned", f"{guest.username} is already banned here.")
    audit.record(AuditType.BAN, user, org=org, guest=guest, reason=body.reason)
    return banned_json(Ban.of_org(org.id, guest.platform_user_id).get())


@endpoint("PATCH", "/organizations/<org_id>/guests/<platform_user_id>/unban", auth=org_admin)
def unban_guest(org_id, platform_user_id, user):
    """Lift a guest's ban in this organization."""
    org, guest = get_or_404(Org, org_id, "organization"), get_or_404(Guest, platform_user_id, "guest")
    ban = Ban.active(org.id, guest.platform_user_id)
    if ban is None or not Ban.lift(ban):
        raise ApiError(409, "not_banned", f"{guest.username} is not banned here.")
    audit.record(AuditType.UNBAN, user, org=org, guest=guest, ban_reason=ban.reason)
    return guest_json(guest)
