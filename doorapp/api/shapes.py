"""The JSON shape of each object the API answers with, written once: one function per object, from model
rows to plain dicts. Handlers of every prefix use them; nothing else decides how an object looks on the
wire (never model_to_dict: it would leak hashes and tie the API to the schema)."""

from doorapp.db import iso
from doorapp.models import MeetupGuest, Membership
from doorapp.models.meetup_guests import RECENT

REPEAT_NO_SHOWS = 2  # no-shows at the org's RECENT last meetups that mark a guest as a repeat no-show
OUTCOME_COLUMNS = (
    "platform_user_id",
    "username",
    "displayname",
    "outcome",
    "guests_count",
    "rsvp_time",
    "cancelled_at",
    "arrival_order",
    "arrival_time",
    "checked_in_by",
    "excused_at",
    "ban_overridden",
    "undone_check_ins",
)


def person_json(user):
    """Who did something (checked a guest in, banned them): {id, username}, or None."""
    return user and {"id": user.id, "username": user.username}


def users_json(users):
    """User for each user, with their memberships loaded in one query."""
    users = list(users)
    memberships = {}
    for m in Membership.of_users([u.id for u in users]):
        memberships.setdefault(m.user_id, []).append(
            {"org_id": str(m.org.id), "org_name": m.org.name, "org_slug": m.org.slug, "role": m.role}
        )
    return [
        {
            "id": u.id,
            "username": u.username,
            "role": u.role,
            "is_approved": u.is_approved,
            "is_disabled": u.is_disabled,
            "disabled_at": iso(u.disabled_at),
            "disabled_reason": u.disabled_reason,
            "created_at": iso(u.created_at),
            "org_memberships": memberships.get(u.id, []),
        }
        for u in users
    ]


def user_json(user):
    return users_json([user])[0]


def org_json(org):
    return {
        "id": str(org.id),
        "name": org.name,
        "slug": org.slug,
        "created_at": iso(org.created_at),
        "time_zone": org.time_zone or None,
    }


def member_json(membership):
    return {"user_id": membership.user.id, "username": membership.user.username, "role": membership.role}


def guest_json(guest):
    return {
        "platform_user_id": guest.platform_user_id,
        "username": guest.username,
        "displayname": guest.displayname,
        "created_at": iso(guest.created_at),
    }


def banned_json(ban):
    """A banned-list entry; `ban` comes from Ban.of_org(), with its guest and banner joined."""
    return {
        "platform_user_id": ban.guest.platform_user_id,
        "username": ban.guest.username,
        "displayname": ban.guest.displayname,
        "reason": ban.reason,
        "banned_at": iso(ban.banned_at),
        "banned_by": person_json(ban.banned_by),
    }


def meetup_json(meetup, counts=None):
    """Meetup; pass `counts` from MeetupGuest.counts() when rendering many."""
    counts = counts or MeetupGuest.counts([meetup.id])[str(meetup.id)]
    return {
        "id": str(meetup.id),
        "org_id": str(meetup.org_id),
        "name": meetup.name,
        "date": iso(meetup.date),
        "platform_url": meetup.platform_url or None,  # a meetup from a file may have none
        "is_finalized": meetup.is_finalized,
        "finalized_at": iso(meetup.finalized_at),
        "created_at": iso(meetup.created_at),
        "last_synced_at": iso(meetup.last_synced_at),
        "is_over": meetup.is_over,
        "cancelled_at": iso(meetup.cancelled_at),
        "cancel_reason": meetup.cancel_reason,
        "counts": counts,
    }


def history_json(history):
    """What the door says of a guest's past in the org: {visits, last_visit, recent_no_shows, recent,
    repeat_no_show}; `history` is one value of MeetupGuest.history() (None: never on a list here)."""
    history = history or {"visits": 0, "last_visit": None, "recent_no_shows": 0}
    return {
        "visits": history["visits"],
        "last_visit": iso(history["last_visit"]),
        "recent_no_shows": history["recent_no_shows"],
        "recent": RECENT,
        "repeat_no_show": history["recent_no_shows"] >= REPEAT_NO_SHOWS,
    }


def meetup_guest_json(entry, history=None):
    """MeetupGuest (a row of the door list) from an entry of MeetupGuest.door_list() or .at_door(), with
    the guest's `history` in the org before this meetup (given by the door list for all its guests at
    once; else read here)."""
    guest, ban, meetup = entry.guest, entry.ban, entry.meetup
    if history is None:
        history = MeetupGuest.history_of(meetup.org_id, guest.platform_user_id, meetup.date)
    return {
        "guest": {
            "platform_user_id": guest.platform_user_id,
            "username": guest.username,
            "displayname": guest.displayname,
            "is_local": guest.is_local,
            "is_banned": ban is not None,
            "ban_reason": ban and ban.reason,
            "history": history_json(history.get(guest.platform_user_id)),
        },
        "rsvp": {
            "rsvp_time": iso(entry.rsvp_time),
            "cancelled_rsvp": entry.cancelled_rsvp,
            "waitlisted": entry.waitlisted,
            "guests_count": entry.guests_count,
            "is_walkin": entry.is_walkin,
            "has_arrived": entry.has_arrived,
            "arrival_time": iso(entry.arrival_time),
            "arrival_order": entry.arrival_order,
            "checked_in_by": person_json(entry.checked_in_by),
        },
    }


def outcome_json(entry, record):
    """One guest's line of a meetup's summary and of its CSV (OUTCOME_COLUMNS): who, and how their evening
    went. `entry` comes from MeetupGuest.with_guests(), `record` from audit.check_in_record()."""
    guest, checker = entry.guest, entry.checked_in_by
    forced, undone = record.get(guest.platform_user_id, (False, 0))
    values = (
        guest.platform_user_id,
        guest.username,
        guest.displayname,
        entry.outcome,
        entry.guests_count,
        None if entry.is_walkin else iso(entry.rsvp_time),
        iso(entry.cancelled_at),
        entry.arrival_order,
        iso(entry.arrival_time),
        checker and checker.username,
        iso(entry.excused_at),
        forced,
        undone,
    )
    return dict(zip(OUTCOME_COLUMNS, values, strict=True))


def event_json(event):
    """Event from a row of AuditEvent.with_people()."""
    actor, guest = event["actor"], event["guest"]
    return {
        "id": event["id"],
        "event_type": event["event_type"],
        "timestamp": iso(event["timestamp"]),
        "org_id": event["org"] and str(event["org"]),
        "actor": None if actor is None else {"id": actor, "username": event["actor_username"]},
        "guest": None
        if guest is None
        else {
            "platform_user_id": guest,
            "username": event["guest_username"],
            "displayname": event["guest_displayname"],
        },
        "meetup_id": event["meetup_id"] and str(event["meetup_id"]),
        "reason": event["reason"],
        "details": event["details"],
    }
