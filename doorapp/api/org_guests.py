"""/organizations/<org_id>/guests/: guests as one organization knows them: the banned list, banning and
unbanning (admins), linking a guest let in by name to their platform account, and a guest's history here;
and .../meetups/<meetup_id>/walkin-matches, the guests Door knows that a door may add as walk-ins."""

from collections import Counter
from dataclasses import dataclass
from typing import Literal, TypedDict

from doorapp import platforms
from doorapp.access import door, org_admin, org_member
from doorapp.api import adapter, endpoint, shapes
from doorapp.api.door_shapes import History, WalkinMatch, history_json
from doorapp.api.shapes import MOMENT, OUTCOME, UUID, banned_json, guest_json
from doorapp.bodies import number, text
from doorapp.db import get_or_404, iso, write
from doorapp.errors import ApiError
from doorapp.models import AuditEvent, AuditType, Ban, Guest, Meetup, MeetupGuest, Org, audit
from doorapp.models.local_guests import link_guest, local_guest
from doorapp.models.privacy import hidden_here, seen_here


@dataclass
class LinkIn:
    username: str = text(max_length=255, doc="Their username on the platform (as POST /guests/ takes it).")


@dataclass
class BanIn:
    reason: str = text(max_length=500, doc="Why the guest is banned; shown at the door and kept in the log.")


class BanList(TypedDict):
    total: int
    guests: list[shapes.Ban]


class HistoryGuest(TypedDict):
    """The guest as this organization's lists name them: a platform member a file listed before Door read
    their profile has the name of the newest list that gave one (`is_local` false, no username)."""

    platform_user_id: int
    username: str
    displayname: str
    is_local: bool


class BanEvent(TypedDict):
    event_type: Literal["BAN", "UNBAN"]
    timestamp: MOMENT
    reason: str | None


class HistoryMeetup(TypedDict):
    """A meetup of the guest's: its outcome as the summary gives it (UPCOMING for one yet to come)."""

    meetup_id: UUID
    name: str
    date: MOMENT
    outcome: OUTCOME
    guests_count: int
    arrival_time: MOMENT | None


class GuestHistory(History):
    """A guest's history in an organization."""

    guest: HistoryGuest
    attended: int
    no_shows: int
    excused: int
    is_banned: bool
    ban_reason: str | None
    bans: list[BanEvent]
    meetups: list[HistoryMeetup]


@dataclass
class MatchQuery:
    q: str = text(
        max_length=255,
        doc="What the door typed: words that start words of the username or display name (any order, "
        "case, accents), as the door's search.",
    )
    limit: int = number(1, 20, default=8)


class WalkinMatches(TypedDict):
    """The first `limit` matches by username, and how many match in all (`total`)."""

    total: int
    guests: list[WalkinMatch]


@endpoint(
    "GET",
    "/organizations/<org_id>/meetups/<meetup_id>/walkin-matches",
    auth=door,
    query=MatchQuery,
    answer=WalkinMatches,
    errors=("not_found",),
)
def list_walkin_matches(org_id, meetup_id, query):
    """The guests Door knows who match what the door typed and are not on this meetup's list, each marked
    when banned here: the walk-ins the door may add in one tap. The platform's guests (from any list or
    walk-in) come first, then the people this organization let in by name or read from a file at an
    earlier meetup (`is_local`), so a regular from last month's spreadsheet is not typed in twice.

    A door pass may read it (the door adds walk-ins): it answers only to a typed `q`, at most 20 at a
    time and no further pages, with what the door would see of the guest once added (name, username, a
    ban here and its reason); a guest the platform knows but Door does not is found by POST /guests/."""
    meetup = get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    leaving_out = MeetupGuest.guests_of(meetup.id) | hidden_here(meetup.org_id)  # on it, or erased here
    total, guests = Guest.search(query.q, query.limit, 0, leaving_out=leaving_out, org_id=meetup.org_id)
    bans = {
        ban.guest_id: ban.reason
        for ban in Ban.select().where(
            Ban.org == meetup.org_id, Ban.guest.in_([g.platform_user_id for g in guests])
        )
    }
    matches = [
        WalkinMatch(
            platform_user_id=g.platform_user_id,
            username=g.username,
            displayname=g.displayname,
            is_local=g.is_local,
            is_banned=g.platform_user_id in bans,
            ban_reason=bans.get(g.platform_user_id),
        )
        for g in guests
    ]
    return WalkinMatches(total=total, guests=matches)


@endpoint(
    "GET", "/organizations/<org_id>/guests/banned", auth=org_member, answer=BanList, errors=("not_found",)
)
def list_banned_guests(org_id):
    """The guests banned in this organization, by username, with reason, time and who banned them."""
    get_or_404(Org, org_id, "organization")
    bans = [banned_json(ban) for ban in Ban.of_org(org_id)]
    return BanList(total=len(bans), guests=bans)


@endpoint(
    "PATCH",
    "/organizations/<org_id>/guests/<platform_user_id>/ban",
    auth=org_admin,
    body=BanIn,
    answer=shapes.Ban,
    errors=("already_banned", "not_found"),
)
def ban_guest(org_id, platform_user_id, body, caller):
    """Ban a guest in this organization. A reason is required."""
    org, guest = get_or_404(Org, org_id, "organization"), seen_here(org_id, platform_user_id)
    if not Ban.impose(org.id, guest.platform_user_id, body.reason, caller.user):
        raise ApiError(409, "already_banned", f"{guest.username} is already banned here.")
    audit.record(AuditType.BAN, caller, org=org, guest=guest, reason=body.reason)
    return banned_json(Ban.of_org(org.id, guest.platform_user_id).get())


@endpoint(
    "PATCH",
    "/organizations/<org_id>/guests/<platform_user_id>/unban",
    auth=org_admin,
    answer=shapes.Guest,
    errors=("not_banned", "not_found"),
)
def unban_guest(org_id, platform_user_id, caller):
    """Lift a guest's ban in this organization."""
    org, guest = get_or_404(Org, org_id, "organization"), seen_here(org_id, platform_user_id)
    ban = Ban.active(org.id, guest.platform_user_id)
    if ban is None or not Ban.lift(ban):
        raise ApiError(409, "not_banned", f"{guest.username} is not banned here.")
    audit.record(AuditType.UNBAN, caller, org=org, guest=guest, ban_reason=ban.reason)
    return guest_json(guest)


@endpoint(
    "PATCH",
    "/organizations/<org_id>/guests/<platform_user_id>/link",
    auth=org_admin,
    body=LinkIn,
    tx=False,
    answer=shapes.Guest,
    errors=(*platforms.ERRORS, "already_on_list", "not_found"),
)
def link_local_guest(org_id, platform_user_id, body, caller):
    """Link a guest let in by name (`is_local`) to their platform account, found by username.

    Their list entries (walk-ins, check-ins) and bans move to the platform guest, who is registered if
    new; the audit log keeps the earlier events under the local guest and records GUEST_LINKED. 404 unless
    the local guest is on a list of this organization; 409 already_on_list when the platform guest is on
    one of the same lists already (nothing is moved)."""
    found_local(org_id, platform_user_id)
    profile = adapter().profile(body.username)  # no transaction is open while the platform answers
    with write():
        local = found_local(org_id, platform_user_id)
        guest = Guest.of_platform(profile.platform_user_id)
        if guest is None:
            guest = Guest.register(profile)
            audit.record(AuditType.GUEST_CREATED, caller, guest=guest)
        moved = link_guest(org_id, local, guest)
        if moved is None:
            raise ApiError(
                409, "already_on_list", f"{guest.username} is already on a list {local.displayname} is on."
            )
        if not moved[0]:  # another admin linked them meanwhile (the UPDATE waited for it): 404 as after it
            found_local(org_id, platform_user_id)
        audit.record(
            AuditType.GUEST_LINKED,
            caller,
            org=org_id,
            guest=guest,
            local_id=local.platform_user_id,
            entries=moved[0],
            bans=moved[1],
        )
    return guest_json(guest)


def found_local(org_id, platform_user_id):
    local = local_guest(org_id, platform_user_id)
    if local is None:
        raise ApiError(
            404, "not_found", f"No guest let in by name at this organization has the id {platform_user_id}."
        )
    return local


@endpoint(
    "GET",
    "/organizations/<org_id>/guests/<platform_user_id>/history",
    auth=org_admin,
    answer=GuestHistory,
    errors=("not_found",),
)
def get_guest_history(org_id, platform_user_id):
    """A guest's history in this organization: meetups attended, no-shows, last visit, bans.

    Each meetup's outcome is as the summary gives it (UPCOMING for a meetup yet to come, never NO_SHOW).

    `repeat_no_show` counts no-shows at the organization's last 5 meetups only; an excused absence does not
    count, and the mark never bans anyone by itself."""
    org, guest = get_or_404(Org, org_id, "organization"), seen_here(org_id, platform_user_id)
    entries = list(MeetupGuest.of_guest(org.id, guest.platform_user_id))
    meetups = [
        HistoryMeetup(
            meetup_id=str(e.meetup.id),
            name=e.meetup.name,
            date=iso(e.meetup.date),
            outcome=e.outcome,
            guests_count=e.guests_count,
            arrival_time=iso(e.arrival_time),
        )
        for e in entries
    ]
    history = MeetupGuest.history(org.id, [guest.platform_user_id])
    bans = AuditEvent.log(org.id, guest=guest.platform_user_id, types=(AuditType.BAN, AuditType.UNBAN))
    ban = Ban.active(org.id, guest.platform_user_id)
    outcomes = Counter(m["outcome"] for m in meetups)
    return GuestHistory(
        guest=HistoryGuest(
            platform_user_id=guest.platform_user_id,
            username=guest.username,
            displayname=guest.displayname or next((e.listed_name for e in entries if e.listed_name), ""),
            is_local=guest.is_local,
        ),
        **history_json(history.get(guest.platform_user_id)),
        attended=outcomes["ATTENDED"] + outcomes["WALK_IN"],
        no_shows=outcomes["NO_SHOW"],
        excused=outcomes["EXCUSED_ABSENCE"],
        is_banned=ban is not None,
        ban_reason=ban and ban.reason,
        bans=[BanEvent(event_type=e.event_type, timestamp=iso(e.timestamp), reason=e.reason) for e in bans],
        meetups=meetups,
    )
