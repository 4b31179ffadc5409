"""The audit log: its event types, what each one records and what of the door lists it changes, the
AuditEvent table, and record(), the one way to write an event.

A new audit type is one line in AuditType and one row in EVENTS (tests walk both). Its row's `moves` is how
its change reaches the doors: record() writes the change record (models.changes) that the door list's
deltas are read from, so a type that changes what a door row shows declares which rows it changes, and
nothing else is needed for every door to be sent them."""

import json
from dataclasses import dataclass
from enum import StrEnum

from peewee import (
    JOIN,
    SQL,
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    JSONField,
    TextField,
    UUIDField,
    Value,
    fn,
)

from doorapp.caller import Caller
from doorapp.db import BaseModel, Prepared, utcnow
from doorapp.models import changes
from doorapp.models.accounts import Org, User
from doorapp.models.guests import Guest
from doorapp.models.passes import DoorPass


class AuditType(StrEnum):
    CHECK_IN = "CHECK_IN"  # a guest was checked in
    UNDO_CHECK_IN = "UNDO_CHECK_IN"  # a check-in was undone, with a reason
    WALKIN = "WALKIN"  # a guest was added to a meetup without an RSVP
    GUEST_CREATED = "GUEST_CREATED"  # a guest was registered from the platform (no org)
    BAN = "BAN"  # a guest was banned in an org, with a reason
    UNBAN = "UNBAN"  # a ban was lifted
    MEETUP_CREATED = "MEETUP_CREATED"  # a meetup was created from a platform URL
    MEETUP_SYNCED = "MEETUP_SYNCED"  # a meetup's RSVP list was synchronised
    MEETUP_FINALIZED = "MEETUP_FINALIZED"  # check-ins and syncs were closed
    MEETUP_UNFINALIZED = "MEETUP_UNFINALIZED"  # check-ins and syncs were reopened
    MEMBER_ADDED = "MEMBER_ADDED"  # a user joined an org
    MEMBER_ROLE_CHANGED = "MEMBER_ROLE_CHANGED"  # a member's org role changed
    MEMBER_REMOVED = "MEMBER_REMOVED"  # a user left an org
    ORG_UPDATED = "ORG_UPDATED"  # an org's name or slug changed
    # a guest let in by name was linked to a platform account (the event's guest: the platform one)
    GUEST_LINKED = "GUEST_LINKED"
    NO_SHOW_EXCUSED = "NO_SHOW_EXCUSED"  # an admin excused a guest's absence, with a reason
    MEETUP_IMPORTED = "MEETUP_IMPORTED"  # a meetup's list was filled or updated from a file
    MEETUP_CANCELLED = "MEETUP_CANCELLED"  # an admin cancelled a night that did not happen (a reason)
    MEETUP_DELETED = "MEETUP_DELETED"  # an admin deleted a meetup made by mistake (nobody was checked in)
    PASS_CREATED = "PASS_CREATED"  # an admin made a door pass (a phone's way in to the door)
    PASS_REVOKED = "PASS_REVOKED"  # an admin revoked a door pass
    GUESTS_BROUGHT_CHANGED = "GUESTS_BROUGHT_CHANGED"  # an admin corrected how many guests an arrival brought
    EXIT = "EXIT"  # an arrival stepped out (with the guests they brought)
    REENTRY = "REENTRY"  # an arrival who stepped out came back in (their number and time unchanged)
    PEOPLE_LEFT = "PEOPLE_LEFT"  # people left without being found on the list (the door's "someone left")
    CAPACITY_CHANGED = "CAPACITY_CHANGED"  # an admin set (or lifted) how many people a meetup lets in at once
    TAG_CREATED = "TAG_CREATED"  # an admin made a tag of the org
    TAG_CHANGED = "TAG_CHANGED"  # an admin renamed or recoloured a tag
    TAG_DELETED = "TAG_DELETED"  # an admin deleted a tag (and took it off every guest)
    GUEST_TAGGED = "GUEST_TAGGED"  # an admin set a guest's tags and note in the org
    BAN_EXPIRED = "BAN_EXPIRED"  # a ban older than the org keeps bans ended by itself (no actor)
    GUEST_ERASED = "GUEST_ERASED"  # an admin erased what the org held of one person (it names no one)
    RETENTION_APPLIED = "RETENTION_APPLIED"  # Door forgot what the org keeps no longer (no actor)


class Moves(StrEnum):
    """What of the door lists an event's change changes: record() writes it to the change record
    (models.changes), which the door list's version and deltas are read from."""

    NOTHING = "nothing"  # no door list shows what changed
    # the event's guest's row (and those of the guests its `rows_of` details name): on the event's meetup's
    # list and, for their history, on the org's lists dated after it; with no meetup, on every list of the
    # org (a ban)
    GUEST = "the guest's rows"
    STATE = "the meetup's counts or state"  # no row: finalized, people counted
    LIST = "the meetup's whole list"  # rebuilt: every door reads it whole again
    # the org's guest rows: the meetup starts or stops counting in the history (no-shows, the last meetups
    # a mark looks at) of the org's lists dated after it, which are read whole again, and its own state
    # changes; with no meetup, every list of the org is read whole again
    ORG = "the org's guest rows"
    # a sync or an import names the rows it wrote (models.sync), a tag the rows of its guests (api/tags)
    IN_CHANGE = "recorded by the change itself"


@dataclass(frozen=True)
class Event:
    moves: Moves
    details: tuple = ()  # the keys of `details` the event may carry (a reader shows any other as it comes)
    rows_of: tuple = ()  # of those, the ones that name more guests whose rows changed (Moves.GUEST)
    private: tuple = ()  # of those, the ones with names or free text: shredding takes them away


DOOR_TIME = "door_time"  # when the door acted, by the device's clock (the body's door_time)
OVER_CAPACITY = ("over_capacity", "capacity")  # let in past the meetup's capacity, which was this
TAG = ("tag_id", "label", "color")
# Every audit type: what of the door lists it changes, and its detail keys. One row per type.
EVENTS = {
    # forced: a ban was overridden; guests_brought: of the RSVP's guests, how many came (when it had any);
    # over_capacity: a person let them in past the meetup's `capacity` (the event's reason says why)
    AuditType.CHECK_IN: Event(Moves.GUEST, (DOOR_TIME, "forced", "guests_brought", *OVER_CAPACITY)),
    AuditType.UNDO_CHECK_IN: Event(Moves.GUEST, ("arrival_order", "arrival_time", DOOR_TIME)),
    AuditType.WALKIN: Event(Moves.GUEST, (DOOR_TIME,)),
    AuditType.GUEST_CREATED: Event(Moves.NOTHING),
    AuditType.BAN: Event(Moves.GUEST),
    AuditType.UNBAN: Event(Moves.GUEST, ("ban_reason",), private=("ban_reason",)),
    # a meetup dated before a list starts counting in its history (once over: dated in the past already)
    AuditType.MEETUP_CREATED: Event(Moves.ORG, ("platform_url",)),
    AuditType.MEETUP_SYNCED: Event(Moves.IN_CHANGE, ("inserted", "updated", "cancelled", "skipped", "total")),
    # finalizing a meetup still to come makes it over; the lists dated after it see that in their version
    # (its `pending` part), and every one of them is read whole then; it sends the people `inside` out,
    # whose rows the handler names (models.room.everyone_out)
    AuditType.MEETUP_FINALIZED: Event(Moves.STATE, ("inside",)),
    AuditType.MEETUP_UNFINALIZED: Event(Moves.ORG),
    AuditType.MEMBER_ADDED: Event(Moves.NOTHING, ("user_id", "username", "role"), private=("username",)),
    AuditType.MEMBER_ROLE_CHANGED: Event(
        Moves.NOTHING, ("user_id", "username", "old", "new"), private=("username",)
    ),
    AuditType.MEMBER_REMOVED: Event(Moves.NOTHING, ("user_id", "username", "role"), private=("username",)),
    AuditType.ORG_UPDATED: Event(Moves.NOTHING, ("changes",), private=("changes",)),  # {field: {old, new}}
    # the moved counts; local_id: the guest let in by name who was linked, who leaves the lists the platform
    # guest is now on
    AuditType.GUEST_LINKED: Event(
        Moves.GUEST, ("local_id", "entries", "bans"), rows_of=("local_id",), private=("local_id",)
    ),
    AuditType.NO_SHOW_EXCUSED: Event(Moves.GUEST),  # the guest's no-shows on the org's later lists
    AuditType.MEETUP_IMPORTED: Event(
        Moves.IN_CHANGE,
        ("file", "format", "rows", "added", "updated", "cancelled", "unchanged", "problems", "checked_in"),
        private=("file",),
    ),
    AuditType.MEETUP_CANCELLED: Event(Moves.ORG),  # its guests' no-shows are gone from every list
    # what it was; recorded before the meetup's row goes, which says which lists are dated after it
    AuditType.MEETUP_DELETED: Event(Moves.ORG, ("name", "date", "platform_url"), private=("name",)),
    AuditType.PASS_CREATED: Event(Moves.NOTHING, ("pass_id", "label", "ends_at"), private=("label",)),
    AuditType.PASS_REVOKED: Event(Moves.NOTHING, ("pass_id", "label"), private=("label",)),
    AuditType.GUESTS_BROUGHT_CHANGED: Event(
        Moves.GUEST, ("guests_brought_before", "guests_brought")
    ),  # the door's People count moves
    # an arrival's row says they are out (or back): that row on the meetup's list, and its counts
    AuditType.EXIT: Event(Moves.GUEST, (DOOR_TIME,)),
    AuditType.REENTRY: Event(Moves.GUEST, (DOOR_TIME, *OVER_CAPACITY)),
    AuditType.PEOPLE_LEFT: Event(Moves.STATE, ("people", "inside", DOOR_TIME)),  # inside: after it
    AuditType.CAPACITY_CHANGED: Event(Moves.STATE, ("capacity_before", "capacity")),
    AuditType.TAG_CREATED: Event(Moves.NOTHING, TAG),  # on nobody yet
    # the rows of every guest with the tag, on every list of the org: the handler names them (api/tags.py)
    AuditType.TAG_CHANGED: Event(Moves.IN_CHANGE, (*TAG, "label_before", "color_before")),
    AuditType.TAG_DELETED: Event(Moves.IN_CHANGE, (*TAG, "guests")),  # guests: how many had it
    # the guest's rows on every list of the org (the event has no meetup): the labels and the note as set
    AuditType.GUEST_TAGGED: Event(Moves.GUEST, ("tags", "note"), private=("tags", "note")),
    AuditType.BAN_EXPIRED: Event(Moves.GUEST, ("banned_at",)),  # the guest's; the ban's reason is gone
    # how many entries, bans and events of the person the org held (all gone now); it names no one, so the
    # erasure names their rows itself, before they go (models.privacy.erase)
    AuditType.GUEST_ERASED: Event(Moves.IN_CHANGE, ("entries", "bans", "events")),
    # what it forgot: entries that lost their guest, guests deleted, bans ended, events shredded; each batch
    # names the rows it takes (models.privacy.forget_some), each ended ban is its own BAN_EXPIRED
    AuditType.RETENTION_APPLIED: Event(Moves.IN_CHANGE, ("entries", "guests_deleted", "bans", "events")),
}

# How record() writes each Moves to the change record: (org id, meetup id, guest id, more guest ids).
RECORD_MOVES = {
    Moves.NOTHING: lambda org_id, meetup_id, guest_id, more: None,
    Moves.GUEST: lambda org_id, meetup_id, guest_id, more: changes.rows([guest_id], org_id, meetup_id, more),
    Moves.STATE: lambda org_id, meetup_id, guest_id, more: changes.state(meetup_id),
    Moves.LIST: lambda org_id, meetup_id, guest_id, more: changes.whole([meetup_id]),
    Moves.ORG: lambda org_id, meetup_id, guest_id, more: changes.later_lists(org_id, meetup_id),
    Moves.IN_CHANGE: lambda org_id, meetup_id, guest_id, more: None,
}


def record(event_type, caller, org=None, meetup=None, guest=None, reason=None, **details):
    """Write one event; call it after the change, inside the same transaction. What the change did to the
    door lists (EVENTS' `moves`) is written to their change record here, in that transaction: the doors'
    next poll is sent it. `caller`: who did it, the request's Caller (a handler's `caller`), or None for
    Door itself."""
    if caller is not None and not isinstance(caller, Caller):
        raise TypeError(f"record() takes the request's Caller (a handler's `caller`), not {caller!r}")
    event = EVENTS[event_type]
    undeclared = set(details) - set(event.details)
    assert not undeclared, f"{event_type} declares no detail {undeclared}: add it to EVENTS"
    org_id, meetup_id = getattr(org, "id", org), getattr(meetup, "id", meetup)
    guest_id = getattr(guest, "platform_user_id", guest)
    AuditEvent.record(
        AuditType(event_type).value,
        caller.actor if caller else (None, None),
        org_id,
        meetup_id,
        guest_id,
        reason,
        details,
    )
    RECORD_MOVES[event.moves](org_id, meetup_id, guest_id, [details.get(key) for key in event.rows_of])


def check_in_record(events):
    """{guest id: (a check-in overrode their ban, how many of their check-ins were undone)} from a meetup's
    AuditEvent.check_ins()."""
    record = {}
    for event in events:
        forced, undone = record.get(event.guest_id, (False, 0))
        forced = forced or bool(event.details.get("forced"))
        record[event.guest_id] = (forced, undone + (event.event_type == AuditType.UNDO_CHECK_IN))
    return record


class AuditEvent(BaseModel):
    """Written in the same transaction as its action; never changed afterwards but shredded (its guest,
    reason and private details taken away: doorapp.models.privacy), never deleted but with its org."""

    event_type = CharField(max_length=32, index=True)
    timestamp = DateTimeField(default=utcnow)
    org = ForeignKeyField(Org, null=True, on_delete="CASCADE", index=False)  # indexed below, with timestamp
    actor = ForeignKeyField(User, null=True, index=False)
    actor_pass = ForeignKeyField(DoorPass, null=True, index=False)  # a door pass acted (actor is null)
    guest = ForeignKeyField(Guest, null=True, index=False)
    meetup_id = UUIDField(null=True)
    reason = TextField(null=True)
    details = JSONField(default=dict)
    # its guest, reason and the names and free text of its details are gone (retention, an erasure)
    shredded = BooleanField(default=False, constraints=[SQL("DEFAULT FALSE")])  # a bulk load may leave it out

    class Meta:
        # One index per way the log is read (newest first within each); the rowid ends every index, so
        # `timestamp DESC, id DESC` is an index order.
        indexes = (
            (("org", "timestamp"), False),
            (("org", "event_type", "timestamp"), False),
            (("guest", "timestamp"), False),
            (("actor", "timestamp"), False),
            (("actor_pass", "event_type"), False),
            (("meetup_id", "timestamp"), False),
        )

    @classmethod
    def log(
        cls,
        org_id,
        *,
        orgless=False,
        types=(),
        since=None,
        until=None,
        guest_id=None,
        meetup_id=None,
        actor_id=None,
        guest=None,
        meetup=None,
        actor=None,
    ):
        """An org's events, newest first, narrowed by the filters (None: not filtered; guest/meetup/actor
        are a path's scope, the *_id ones the query's, and both must match).
        `orgless` adds events that belong to no org (GUEST_CREATED): they show in guest-scoped lists."""
        where = [(cls.org == org_id) | cls.org.is_null() if orgless else cls.org == org_id]
        where += [cls.event_type.in_(types)] if types else []
        where += [cls.timestamp >= since] if since is not None else []
        where += [cls.timestamp <= until] if until is not None else []
        for field, value in (
            (cls.guest, guest_id),
            (cls.guest, guest),
            (cls.meetup_id, meetup_id),
            (cls.meetup_id, meetup),
            (cls.actor, actor_id),
            (cls.actor, actor),
        ):
            where += [field == value] if value is not None else []
        return cls.select().where(*where).order_by(cls.timestamp.desc(), cls.id.desc())

    @classmethod
    def check_ins(cls, org_id, meetup_id):
        """The meetup's CHECK_IN and UNDO_CHECK_IN events, oldest first, in one query."""
        types = (AuditType.CHECK_IN, AuditType.UNDO_CHECK_IN)
        return list(cls.log(org_id, meetup=meetup_id, types=types))[::-1]

    @classmethod
    def record(cls, event_type, actors, org_id, meetup_id, guest_id, reason, details):
        """Write one event, from SQL text built once (every check-in writes one); `actors`: Caller.actor."""
        _RECORD.count(event_type, utcnow(), org_id, *actors, guest_id, meetup_id, reason, json.dumps(details))

    @classmethod
    def with_people(cls, query):
        """A log() query's events as dicts with their actor's and guest's names joined: id, event_type,
        timestamp, org, actor, actor_username, guest, guest_username, guest_displayname, meetup_id, reason,
        details, shredded, and of a door pass that acted: actor_pass, pass_label, pass_maker,
        pass_maker_username (dicts: turning 50 joined rows into objects was most of a page's time)."""
        maker = User.alias("maker")
        names = (
            User.username.alias("actor_username"),
            Guest.username.alias("guest_username"),
            Guest.displayname.alias("guest_displayname"),
            cls.actor_pass,
            DoorPass.label.alias("pass_label"),
            maker.id.alias("pass_maker"),
            maker.username.alias("pass_maker_username"),
        )
        return (
            query.select(
                cls.id,
                cls.event_type,
                cls.timestamp,
                cls.org,
                cls.actor,
                cls.guest,
                cls.meetup_id,
                cls.reason,
                cls.details,
                cls.shredded,
                *names,
            )
            .join_from(cls, User, JOIN.LEFT_OUTER, on=User.id == cls.actor)
            .join_from(cls, Guest, JOIN.LEFT_OUTER)
            .join_from(cls, DoorPass, JOIN.LEFT_OUTER, on=DoorPass.id == cls.actor_pass)
            .join_from(DoorPass, maker, JOIN.LEFT_OUTER, on=maker.id == DoorPass.created_by)
            .dicts()
        )


# Every check-in writes one: SQL text built once (see Prepared).
_RECORD = Prepared(
    ("str", "datetime", "uuid", "int", "int", "int", "uuid", "str", "str"),
    lambda *values: AuditEvent.insert(
        dict(
            zip(
                (
                    AuditEvent.event_type,
                    AuditEvent.timestamp,
                    AuditEvent.org,
                    AuditEvent.actor,
                    AuditEvent.actor_pass,
                    AuditEvent.guest,
                    AuditEvent.meetup_id,
                    AuditEvent.reason,
                ),
                values,
                strict=False,  # values end with the details
            ),
            details=Value(values[-1], converter=False),
        )
    ),
)


def door_passes(org_id, pass_id=None):
    """The org's door passes (or the one `pass_id`), newest first, with their makers joined and
    `check_ins`, the CHECK_IN events each wrote."""
    made = AuditEvent.select(fn.COUNT(AuditEvent.id)).where(
        AuditEvent.actor_pass == DoorPass.id, AuditEvent.event_type == AuditType.CHECK_IN.value
    )
    where = [DoorPass.org == org_id] + ([DoorPass.id == pass_id] if pass_id is not None else [])
    return (
        DoorPass.select(DoorPass, User.id, User.username, made.alias("check_ins"))
        .join(User, on=User.id == DoorPass.created_by)
        .where(*where)
        .order_by(DoorPass.created_at.desc(), DoorPass.id.desc())
    )
