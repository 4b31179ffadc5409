"""The database: one handle bound in create_app, every model, and the queries that belong to them.

Timestamps are stored as naive UTC datetimes and rendered by iso(). Nothing here is SQLite-only SQL,
so the same models run on PostgreSQL.
"""

import threading
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone

from peewee import (BigIntegerField, BooleanField, Case, CharField, DateTimeField, ForeignKeyField, IntegerField,
                    JSONField, Model, SqliteDatabase, TextField, UUIDField, fn)

from doorapp.errors import ApiError

PRAGMAS = {"journal_mode": "wal", "synchronous": "normal", "foreign_keys": 1, "busy_timeout": 5000}
db = SqliteDatabase(None, pragmas=PRAGMAS)
_write_lock = threading.Lock()  # serialises this process's writers (STYLE.md section 15)


def utcnow():
    return datetime.now(timezone.utc).replace(tzinfo=None)


def iso(moment):
    """A stored UTC datetime as ISO 8601 with `Z`, at the precision it is stored with."""
    return None if moment is None else moment.isoformat() + "Z"


@contextmanager
def write():
    """A short write transaction that takes the lock up front (BEGIN IMMEDIATE)."""
    with _write_lock, db.atomic("IMMEDIATE"):
        yield


def run_prepared(statements):
    """Run [(sql, params)] built earlier by query.sql() (outside the write lock); the rows changed."""
    return sum(db.execute_sql(sql, params).rowcount for sql, params in statements)


def get_or_404(model, key, what=None, **where):
    """The row with this primary key (and these column values), or 404 not_found."""
    row = model.get_or_none(model._meta.primary_key == key, *(getattr(model, k) == v for k, v in where.items()))
    if row is None:
        raise ApiError(404, "not_found", f"No {what or model.__name__.lower()} has the id {key}.")
    return row


class BaseModel(Model):
    class Meta:
        database = db
        legacy_table_names = False


class User(BaseModel):
    username = CharField(max_length=64, unique=True)
    password_hash = CharField()
    role = CharField(default="USER")  # USER | SITE_ADMIN
    is_approved = BooleanField(default=False)
    is_disabled = BooleanField(default=False)
    disabled_at = DateTimeField(null=True)
    disabled_reason = TextField(null=True)
    created_at = DateTimeField(default=utcnow)
    recovery_code_hash = CharField(null=True)  # argon2id of the 6 digits; null when none was generated
    recovery_code_used = BooleanField(default=False)
    recovery_code_created_at = DateTimeField(null=True)
    recovery_code_failures = IntegerField(default=0)  # wrong attempts against the current code

    @classmethod
    def search(cls, q, limit=20):
        return (cls.select().where(cls.is_approved, ~cls.is_disabled, cls.username.contains(q))
                .order_by(cls.username).limit(limit))


class Org(BaseModel):
    id = UUIDField(primary_key=True, default=uuid.uuid4)
    name = CharField(max_length=128, unique=True)
    slug = CharField(max_length=64, unique=True)
    created_at = DateTimeField(default=utcnow)


class Membership(BaseModel):
    user = ForeignKeyField(User, backref="memberships", on_delete="CASCADE")
    org = ForeignKeyField(Org, backref="memberships", on_delete="CASCADE")
    role = CharField()  # STAFF | ADMIN

    class Meta:
        indexes = ((("user", "org"), True),)

    @classmethod
    def role_of(cls, user_id, org_id):
        row = cls.get_or_none(cls.user == user_id, cls.org == org_id)
        return row and row.role


class Guest(BaseModel):
    platform_user_id = BigIntegerField(primary_key=True)
    username = CharField(max_length=255, index=True)
    displayname = CharField(max_length=255, default="")
    created_at = DateTimeField(default=utcnow)

    @classmethod
    def search(cls, q=""):
        """Guests whose username or displayname contains `q` (case-insensitive), by username."""
        query = cls.select().order_by(cls.username, cls.platform_user_id)
        return query.where(cls.username.contains(q) | cls.displayname.contains(q)) if q else query

    @classmethod
    def upsert(cls, rows):
        """The insert of guests [(platform_user_id, username, displayname)] that refreshes known ones."""
        return (cls.insert_many(rows, fields=[cls.platform_user_id, cls.username, cls.displayname])
                .on_conflict(conflict_target=[cls.platform_user_id], preserve=[cls.username, cls.displayname]))

    @classmethod
    def profiles_of(cls, ids):
        """{platform_user_id: (username, displayname)} of the known guests among `ids`."""
        rows = (cls.select(cls.platform_user_id, cls.username, cls.displayname)
                .where(cls.platform_user_id.in_(ids)).tuples())
        return {i: (username, displayname) for i, username, displayname in rows}


class Ban(BaseModel):
    """An active ban of a guest in an org; unbanning deletes it (the audit log keeps the history)."""
    org = ForeignKeyField(Org, on_delete="CASCADE")
    guest = ForeignKeyField(Guest, on_delete="CASCADE")
    reason = TextField()
    banned_at = DateTimeField(default=utcnow)
    banned_by = ForeignKeyField(User, null=True)

    class Meta:
        indexes = ((("org", "guest"), True),)


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

    class Meta:
        indexes = ((("org", "platform_url"), True),)

    @classmethod
    def of_org(cls, org_id):
        """An org's meetups, newest date first (SPEC.md)."""
        return cls.select().where(cls.org == org_id).order_by(cls.date.desc(), cls.created_at.desc())


class MeetupGuest(BaseModel):
    """A guest on a meetup's list: an RSVP from the platform or a walk-in, and its check-in state."""
    meetup = ForeignKeyField(Meetup, backref="entries", on_delete="CASCADE")
    guest = ForeignKeyField(Guest)
    rsvp_time = DateTimeField(default=utcnow)
    cancelled_rsvp = BooleanField(default=False)
    is_walkin = BooleanField(default=False)
    has_arrived = BooleanField(default=False)
    arrival_time = DateTimeField(null=True)
    arrival_order = IntegerField(null=True)
    checked_in_by = ForeignKeyField(User, null=True)

    class Meta:
        indexes = ((("meetup", "guest"), True), (("meetup", "arrival_order"), True))

    @classmethod
    def counts(cls, meetup_ids):
        """{meetup_id: {rsvps, cancelled, walkins, arrived}} in one query (API.md's `counts`)."""
        def total(condition):
            return fn.COALESCE(fn.SUM(Case(None, [(condition, 1)], 0)), 0)
        rows = (cls.select(cls.meetup,
                           total(~cls.is_walkin & ~cls.cancelled_rsvp).alias("rsvps"),
                           total(cls.cancelled_rsvp).alias("cancelled"),
                           total(cls.is_walkin).alias("walkins"),
                           total(cls.has_arrived).alias("arrived"))
                .where(cls.meetup.in_(list(meetup_ids))).group_by(cls.meetup).dicts())
        found = {str(row.pop("meetup")): row for row in rows}
        empty = {"rsvps": 0, "cancelled": 0, "walkins": 0, "arrived": 0}
        return {str(mid): found.get(str(mid), dict(empty)) for mid in meetup_ids}

    @classmethod
    def add_rsvps(cls, meetup_id, rows):
        """The insert of RSVPs [(platform_user_id, rsvp_time)] that leaves guests already on the list alone."""
        return (cls.insert_many([(meetup_id, guest_id, at) for guest_id, at in rows],
                                fields=[cls.meetup, cls.guest, cls.rsvp_time])
                .on_conflict_ignore())

    @classmethod
    def rsvp_states(cls, meetup):
        """{platform_user_id: (cancelled_rsvp, is_walkin)} of everyone on the meetup's list."""
        rows = cls.select(cls.guest, cls.cancelled_rsvp, cls.is_walkin).where(cls.meetup == meetup)
        return {guest_id: (cancelled, walkin) for guest_id, cancelled, walkin in rows.tuples()}

    @classmethod
    def set_cancelled(cls, meetup, guest_ids, cancelled):
        """Mark these guests' RSVPs (un)cancelled in one statement; the number of rows changed."""
        if not guest_ids:
            return 0
        return (cls.update(cancelled_rsvp=cancelled)
                .where(cls.meetup == meetup, cls.guest.in_(list(guest_ids))).execute())


class AuditEvent(BaseModel):
    """Written in the same transaction as its action; never updated or deleted."""
    event_type = CharField(max_length=32)
    timestamp = DateTimeField(default=utcnow, index=True)
    org = ForeignKeyField(Org, null=True, on_delete="CASCADE")
    actor = ForeignKeyField(User, null=True)
    guest = ForeignKeyField(Guest, null=True)
    meetup_id = UUIDField(null=True, index=True)
    reason = TextField(null=True)
    details = JSONField(default=dict)

    class Meta:
        indexes = ((("org", "timestamp"), False), (("guest", "timestamp"), False),
                   (("actor", "timestamp"), False))


class Failure(BaseModel):
    """A failed login, setup or recovery attempt, keyed by what it counts against ('user:alice', 'addr:…')."""
    key = CharField(max_length=300)
    at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("key", "at"), False),)


class Setting(BaseModel):
    """Small named values the service keeps between starts (the setup code's hash)."""
    key = CharField(primary_key=True, max_length=64)
    value = TextField()


MODELS = [User, Org, Membership, Guest, Ban, Meetup, MeetupGuest, AuditEvent, Failure, Setting]
