"""Meetups: an org's events from the platform, their arrival counter, finalizing, and the versions of the
door lists that doors poll. (The guests on a meetup's list: meetup_guests; what changed on it: changes.)"""

import uuid

from peewee import (
    SQL,
    BooleanField,
    Case,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    TextField,
    UUIDField,
    Value,
    fn,
)

from doorapp.db import BaseModel, Prepared, get_or_404, utcnow
from doorapp.errors import ApiError
from doorapp.models.accounts import Org

FINALIZED = "This meetup is finalized; an admin can unfinalize it."
CANCELLED = "This meetup was cancelled: it did not take place."


class Meetup(BaseModel):
    id = UUIDField(primary_key=True, default=uuid.uuid4)
    org = ForeignKeyField(Org, backref="meetups", on_delete="CASCADE")
    name = CharField(max_length=255)
    date = DateTimeField()
    platform_url = CharField(max_length=1024)
    is_finalized = BooleanField(default=False)
    finalized_at = DateTimeField(null=True)
    created_at = DateTimeField(default=utcnow)
    last_synced_at = DateTimeField(null=True)
    last_arrival_order = IntegerField(default=0)  # per-meetup counter: arrival numbers are never reused
    door_list_version = IntegerField(default=0)  # +1 with each change of this meetup's door list (changes)
    door_list_salt = IntegerField(default=0)  # random, new with each version (changes.Version)
    cancelled_at = DateTimeField(null=True)  # an admin cancelled it: it did not take place, nobody missed it
    cancel_reason = TextField(null=True)
    # People in the room (models.room): how many are inside now (every door action that moves people moves
    # it, in its own transaction), at most `capacity` unless a person overrides it, and the most there were
    capacity = IntegerField(null=True)  # set by an org admin; None: no limit
    inside = IntegerField(default=0)
    peak_inside = IntegerField(default=0)
    peak_at = DateTimeField(null=True)  # when inside first reached peak_inside

    # (org, platform_url) is unique where there is a URL: a meetup from a file may have none ("")

    @property
    def to_come(self):
        """Open and dated later: nobody can have missed it yet (no no-show, no excuse)."""
        return not self.is_finalized and self.date > utcnow()

    @property
    def is_open(self):
        """Neither finalized nor cancelled: its door may still work."""
        return not self.is_finalized and self.cancelled_at is None

    @classmethod
    def still_open(cls):
        """is_open in SQL."""
        return ~cls.is_finalized & cls.cancelled_at.is_null()

    @classmethod
    def open(cls, org_id, meetup_id):
        """The org's meetup: 404 not_found when it is not there, 409 once it is finalized or cancelled."""
        meetup = get_or_404(cls, meetup_id, "meetup", org=org_id)
        cls.refuse_closed(meetup)
        return meetup

    @classmethod
    def refuse_closed(cls, meetup):
        """409 meetup_cancelled or meetup_finalized: the meetup's door is closed, nothing is done there."""
        if meetup.cancelled_at is not None:
            raise ApiError(409, "meetup_cancelled", CANCELLED)
        if meetup.is_finalized:
            raise ApiError(409, "meetup_finalized", FINALIZED)

    @property
    def is_over(self):
        """Whether the night is over (finalized, or dated before now: not to_come): only then can anyone
        have missed it. A cancelled meetup never is. `over()` is the same in SQL."""
        return self.cancelled_at is None and not self.to_come

    @classmethod
    def over(cls, now):
        """is_over in SQL, at `now`."""
        return cls.cancelled_at.is_null() & (cls.is_finalized | (cls.date < now))

    @classmethod
    def cancel(cls, meetup, reason):
        """Cancel the meetup as it was read (`meetup`): False when someone was checked in or it was
        cancelled meanwhile (the arrival counter moved: the UPDATE decides, against a check-in at once)."""
        return (
            cls.update(cancelled_at=utcnow(), cancel_reason=reason)
            .where(
                cls.id == meetup.id,
                cls.cancelled_at.is_null(),
                cls.last_arrival_order == meetup.last_arrival_order,
            )
            .execute()
            == 1
        )

    @classmethod
    def remove(cls, meetup_id):
        """Delete a meetup nobody was ever checked in at, with its list; False when someone was."""
        return cls.delete().where(cls.id == meetup_id, cls.last_arrival_order == 0).execute() == 1

    @classmethod
    def of_org(cls, org_id):
        """An org's meetups, newest date first."""
        return cls.select().where(cls.org == org_id).order_by(cls.date.desc(), cls.created_at.desc())

    @classmethod
    def newest_urls(cls, limit):
        """The platform URLs of the `limit` newest meetups of every org, newest date first (as tuples)."""
        return cls.select(cls.platform_url).order_by(cls.date.desc()).limit(limit).tuples()

    @classmethod
    def next_arrival_order(cls, meetup_id, people=1, force=False):
        """Advance the meetup's arrival counter and return the new number, and count `people` in (see
        admit); None once it is finalized, or when the room has no space for them and not `force`. The
        UPDATE holds the row's write lock, so two check-ins never get the same number nor the last place,
        and a rolled-back one leaves no gap that anybody saw."""
        rows = _NEXT_ARRIVAL.rows(meetup_id, people, int(force), utcnow())
        return next((row.last_arrival_order for row in rows), None)

    @classmethod
    def admit(cls, meetup_id, people, force=False):
        """Count `people` in (a re-entry, a correction), while the meetup is open and the room has space
        for them (or `force`); False otherwise. The conditional UPDATE of the meetup's row decides: of two
        doors at the last place exactly one gets it. It moves the peak on."""
        return _ADMIT.count(meetup_id, people, int(force), utcnow()) == 1

    @classmethod
    def release(cls, meetup_id, people):
        """Count `people` out (an exit, an undo, people who left unseen), never below 0."""
        _RELEASE.count(meetup_id, people)

    @classmethod
    def set_capacity(cls, meetup_id, capacity):
        """How many people the meetup lets in at once (None: no limit)."""
        cls.update(capacity=capacity).where(cls.id == meetup_id).execute()

    @classmethod
    def admitted(cls, people, now):
        """The SET of an UPDATE of a meetup counting `people` in at `now`: inside, and its peak and when."""
        after = cls.inside + people
        higher = after > cls.peak_inside
        return {
            "inside": after,
            "peak_inside": Case(None, [(higher, after)], cls.peak_inside),
            "peak_at": Case(None, [(higher, now)], cls.peak_at),
        }

    @classmethod
    def has_room(cls, people, force):
        """The meetup's room has space for `people` more (no capacity, or within it), or `force` (1)."""
        return (Value(force) == 1) | cls.capacity.is_null() | (cls.inside + people <= cls.capacity)

    @classmethod
    def list_version(cls, org_id, meetup_id):
        """(number, salt, pending) of the org's meetup's door list (changes.Version), or None: a poll's one
        query."""
        return _LIST_VERSION.first(org_id, meetup_id, utcnow())

    @classmethod
    def with_list_version(cls, org_id, meetup_id):
        """The org's meetup, or None, with `list_version`: (number, salt, pending) of its door list, in one
        query. Every change of the list takes the next number in its own transaction (models.changes), so
        the version is exact on any engine with any number of writers, and other orgs never touch it.
        `pending`: the org's meetups dated between now and this one that have yet to begin; one that begins
        counts in the history marks from then on, and changes the version so."""
        meetup = _WITH_LIST_VERSION.first(org_id, meetup_id, utcnow())
        if meetup is not None:
            meetup.list_version = (meetup.door_list_version, meetup.door_list_salt, meetup.pending)
        return meetup

    @classmethod
    def set_finalized(cls, meetup_id, finalized):
        """Finalize (which sends everyone out: nobody is inside a night that is over) or reopen; False when
        it already was so (the UPDATE decides)."""
        out = {"inside": 0} if finalized else {}
        return (
            cls.update(is_finalized=finalized, finalized_at=utcnow() if finalized else None, **out)
            .where(cls.id == meetup_id, cls.is_finalized != finalized)
            .execute()
            == 1
        )


Meetup.add_index(Meetup.index(Meetup.org, Meetup.platform_url, unique=True, where=SQL("platform_url <> ''")))
Meetup.add_index(Meetup.index(Meetup.org, Meetup.date))  # the pending part of a list's version


def _pending(now):
    """How many of the meetup's org's open meetups are dated from `now` to before the meetup's date: each
    becomes over as its date passes, and the history its list shows changes then (changes.Version)."""
    earlier = Meetup.alias("earlier")
    return (
        earlier.select(fn.COUNT(earlier.id))
        .where(
            earlier.org == Meetup.org,
            earlier.date >= now,
            earlier.date < Meetup.date,
            ~earlier.is_finalized,
            earlier.cancelled_at.is_null(),
        )
        .alias("pending")
    )


# A check-in's number, people in and out, and a door's poll: SQL text built once (see Prepared).
_NEXT_ARRIVAL = Prepared(
    ("uuid", "int", "int", "datetime"),
    lambda meetup_id, people, force, now: (
        Meetup.update(last_arrival_order=Meetup.last_arrival_order + 1, **Meetup.admitted(people, now))
        .where(Meetup.id == meetup_id, Meetup.still_open(), Meetup.has_room(people, force))
        .returning(Meetup.last_arrival_order)
    ),
)
_ADMIT = Prepared(
    ("uuid", "int", "int", "datetime"),
    lambda meetup_id, people, force, now: Meetup.update(**Meetup.admitted(people, now)).where(
        Meetup.id == meetup_id, Meetup.still_open(), Meetup.has_room(people, force)
    ),
)
_RELEASE = Prepared(
    ("uuid", "int"),
    lambda meetup_id, people: Meetup.update(
        inside=Case(None, [(Meetup.inside > people, Meetup.inside - people)], 0)
    ).where(Meetup.id == meetup_id),
)
_WITH_LIST_VERSION = Prepared(
    ("uuid", "uuid", "datetime"),
    lambda org_id, meetup_id, now: (
        Meetup.select(Meetup, _pending(now)).where(Meetup.id == meetup_id, Meetup.org == org_id).objects()
    ),
)
_LIST_VERSION = Prepared(
    ("uuid", "uuid", "datetime"),
    lambda org_id, meetup_id, now: (
        Meetup.select(Meetup.door_list_version, Meetup.door_list_salt, _pending(now))
        .where(Meetup.id == meetup_id, Meetup.org == org_id)
        .tuples()
    ),
)
