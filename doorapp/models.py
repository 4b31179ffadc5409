"""The database: one handle bound in create_app, every model, and the queries that belong to them.

`db` is a proxy bound by connect() to the engine DATABASE_URL names: a SQLite file (the default) or
PostgreSQL (`postgresql://`, through psycopg 3, the optional extra `postgres`, with pooled connections).
The models' queries are portable SQL built by peewee; what differs between the engines lives here: how
writers are serialized (write()) and how a whole-database step such as a migration is made exclusive
(exclusive()). Timestamps are stored as naive UTC datetimes and rendered by iso().
"""

import json
import os
import secrets
import threading
import uuid
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

from urllib.parse import unquote, urlsplit

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

from peewee import (JOIN, BigIntegerField, BooleanField, Case, CharField, DatabaseProxy, DateTimeField,
                    ForeignKeyField, IntegerField, JSONField, Model, SqliteDatabase, TextField, UUIDField,
                    Value, fn)

from doorapp.errors import ApiError
from doorapp.search import name_filter

# cache_size: 512 KiB of pages per connection (SQLite's default is 2 MiB), one per server thread. In WAL mode
# another connection's commit empties the cache anyway, and the file's pages stay in the OS's cache: the
# smaller one cost nothing measurable in bench/door and took 15 MB off a server's peak memory.
PRAGMAS = {"journal_mode": "wal", "synchronous": "normal", "foreign_keys": 1, "busy_timeout": 5000,
           "cache_size": -512}
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
MIGRATION_LOCK = 0x646F6F72  # pg_advisory_xact_lock key of migrations ("door")
db = DatabaseProxy()
_write_lock = threading.Lock()  # serialises this process's SQLite writers (STYLE.md section 15)
_lock_file = {}  # path and fd of the SQLite database's lock file (_writers_turn), open while it is in use


def database_for(url, sqlite_path):
    """An unconnected handle for DATABASE_URL: PostgreSQL for postgresql://, else the SQLite file."""
    if sqlite_path is not None:
        return SqliteDatabase(str(sqlite_path), pragmas=PRAGMAS)
    if not url.startswith(POSTGRES_SCHEMES):
        raise SystemExit("DATABASE_URL must be sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/NAME.")
    try:
        from playhouse.postgres_ext import PooledPsycopg3Database
        import psycopg  # noqa: F401  (peewee would otherwise fail later, less clearly)
    except ImportError:
        raise SystemExit("DATABASE_URL names PostgreSQL, but its driver is not installed: "
                         "pip install 'doorapp[postgres]'.") from None
    parts = urlsplit(url)
    options = {key: unquote(value) for key, value in
               (pair.split("=", 1) for pair in parts.query.split("&") if "=" in pair)}
    options.update({key: value for key, value in (("host", parts.hostname), ("port", parts.port),
                   ("user", parts.username and unquote(parts.username)),
                   ("password", parts.password and unquote(parts.password))) if value})
    # Pooled: a connection is reused across requests; one found broken is replaced, not kept.
    return PooledPsycopg3Database(unquote(parts.path.lstrip("/")), max_connections=32, stale_timeout=300,
                                  timeout=10, **options)


def connect(database):
    """Bind the models to `database` (from database_for) and connect this thread."""
    if db.obj is not None and not db.is_closed():
        db.close()
    if db.obj is not None and hasattr(db.obj, "close_all"):
        db.close_all()
    db.initialize(database)
    db.connect(reuse_if_open=True)


def is_sqlite():
    return isinstance(db.obj, SqliteDatabase)


def drop_connection():
    """After the database failed a request: a PostgreSQL connection may be broken for good (a restart of
    the server cuts every one), so this thread's is closed and the next request takes a fresh one. A SQLite
    file's connection stays (its errors are a lock or a missing file, not the connection)."""
    if not is_sqlite() and not db.is_closed():
        try:
            db.manual_close()
        except Exception:  # noqa: BLE001 (closing a cut connection may fail too; it is dropped either way)
            pass


def utcnow():
    return datetime.now(timezone.utc).replace(tzinfo=None)


def iso(moment):
    """A stored UTC datetime as ISO 8601 with `Z`, at the precision it is stored with."""
    return None if moment is None else moment.isoformat() + "Z"


@contextmanager
def write():
    """A short write transaction. SQLite has one writer at a time: writers queue on this process's lock,
    then on the database's lock file (the other processes of `serve --workers`), and BEGIN IMMEDIATE takes
    the file's write lock up front. PostgreSQL runs writers side by side in plain (READ COMMITTED)
    transactions: the conditional UPDATEs and unique indexes on the models decide every race."""
    if is_sqlite():
        with _write_lock, _writers_turn(), db.atomic("IMMEDIATE"):
            yield
    else:
        with db.atomic():
            yield


@contextmanager
def _writers_turn():
    """The SQLite database's writers' turn among processes: an exclusive flock on `<database>.lock`. The
    kernel wakes the next writer as the lock is released; SQLite's own wait (busy_timeout) sleeps and
    tries again, up to 100 ms between tries, and gave a check-in a p99 of 955 ms with two processes. A
    writer that does not take it (the sqlite3 shell) is still waited for by busy_timeout. Windows, which
    runs one process, has no flock."""
    if fcntl is None or db.database == ":memory:":
        yield
        return
    if _lock_file.get("path") != db.database:  # called under _write_lock: one thread at a time
        _forget_lock_file()
        _lock_file.update(path=db.database, fd=os.open(f"{db.database}.lock", os.O_RDWR | os.O_CREAT, 0o600))
    lock = _lock_file["fd"]
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)


def _forget_lock_file():
    """Close the lock file of the database used before (tests use many), or the descriptor a forked child
    (a worker of `serve --workers`) inherited: that one shares its flock with the parent's and its
    siblings', so each process opens the lock file itself."""
    if _lock_file:
        os.close(_lock_file.pop("fd"))
        _lock_file.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_lock_file)


@contextmanager
def exclusive():
    """A transaction no other process runs at the same time (migrations, first start): SQLite's BEGIN
    IMMEDIATE, PostgreSQL's transaction-scoped advisory lock. DDL is transactional on both."""
    if is_sqlite():
        with _write_lock, db.atomic("IMMEDIATE"):
            yield
    else:
        with db.atomic():
            db.execute_sql("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            yield


def checkpoint_elsewhere():
    """SQLite: this process's connections, open and future, no longer checkpoint (backup.Checkpointer
    does)."""
    if is_sqlite():
        db.pragma("wal_autocheckpoint", 0, permanent=True)


def run_prepared(statements):
    """Run [(sql, params)] built earlier by query.sql() (outside the write lock); the rows changed."""
    return sum(db.execute_sql(sql, params).rowcount for sql, params in statements)


class Prepared:
    """A statement whose SQL text is built once per engine, then run with new values: peewee building the
    same text, and working out again how to turn the same columns into objects, on every request was most
    of a check-in's time (issue 11).
    `build(*values)` makes the query as usual; it is built once with stand-in values of the declared `kinds`
    ("uuid", "int", "str" or "datetime"), their places in the compiled parameters are noted (a value may
    have several), and each call fills them in. A None value is sent as NULL: right for an INSERT's values
    and an UPDATE's SET, never in a WHERE. A query whose stand-ins cannot all be found again is simply
    built every time."""

    STAND_IN = 7_349_000_000_000
    KINDS = {  # kind: (the stand-in number i, how a value goes into the parameters as peewee sends it)
        "uuid": (lambda i: uuid.UUID(int=Prepared.STAND_IN + i),
                 lambda v: v.hex if isinstance(v, uuid.UUID) else uuid.UUID(str(v)).hex),
        "int": (lambda i: -Prepared.STAND_IN - i, int),
        "datetime": (lambda i: datetime(1901, 1, 1, 0, 0, i, tzinfo=timezone.utc), lambda v: v),
        "str": (lambda i: f"stand-in {Prepared.STAND_IN + i}", str),
    }
    # What a cursor wrapper works out from the first result's columns (the same for every run), kept per
    # engine and given to the wrappers of later runs; the rest of a wrapper's state is its own.
    OWN_STATE = {"cursor", "count", "index", "initialized", "populated", "row_cache"}

    def __init__(self, kinds, build):
        self.kinds, self.build, self.compiled, self.columns = kinds, build, {}, {}

    def rows(self, *values):
        """The query's rows (models, tuples: as the built query gives them) for these values."""
        query, cursor = self._execute(values)
        if cursor is None:
            return list(query.execute())
        wrapper, engine = query._get_cursor_wrapper(cursor), type(db.obj)
        known = self.columns.get(engine)
        if known is not None:
            wrapper.__dict__.update(known)
            wrapper.initialized = True
        rows = list(wrapper)
        if known is None and wrapper.initialized:
            self.columns[engine] = {k: v for k, v in vars(wrapper).items() if k not in self.OWN_STATE}
        return rows

    def first(self, *values):
        rows = self.rows(*values)
        return rows[0] if rows else None

    def count(self, *values):
        """For an INSERT, an UPDATE: how many rows it changed."""
        query, cursor = self._execute(values)
        return query.execute() if cursor is None else cursor.rowcount

    def _execute(self, values):
        engine = type(db.obj)  # the SQL text depends on the engine (quoting, placeholders), not the database
        compiled = self.compiled.get(engine, False)
        if compiled is False:
            compiled = self.compiled[engine] = self._compile()
        if compiled is None:
            return self.build(*values), None
        query, sql, slots = compiled
        params = [param if slot is None else None if values[slot] is None
                  else self.KINDS[self.kinds[slot]][1](values[slot]) for param, slot in zip(*slots)]
        return query, db.execute_sql(sql, params)

    def _compile(self):
        stand_ins = [self.KINDS[kind][0](i) for i, kind in enumerate(self.kinds)]
        query = self.build(*stand_ins)
        sql, params = query.sql()
        sent = [self.KINDS[kind][1](value) for kind, value in zip(self.kinds, stand_ins)]
        slots = [sent.index(param) if param in sent else None for param in params]
        if {slot for slot in slots if slot is not None} != set(range(len(sent))):
            return None
        return query, sql, (params, slots)


def get_or_404(model, key, what=None, **where):
    """The row with this primary key (and these column values), or 404 not_found."""
    conditions = [getattr(model, name) == value for name, value in where.items()]
    row = model.get_or_none(model._meta.primary_key == key, *conditions)
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
    sessions_since = DateTimeField(null=True)  # tokens issued (iat, whole seconds) before it no longer work

    @classmethod
    def end_sessions(cls, user_id, **changes):
        """Apply `changes` and end every session (token) the account has so far, in one UPDATE."""
        return cls.update(sessions_since=cls.session_start(), **changes).where(cls.id == user_id) \
            .execute() == 1

    @staticmethod
    def session_start():
        """The next whole second (a token's `iat` has no finer resolution): every token issued until now,
        this second's included, is of an earlier session."""
        return (utcnow() + timedelta(seconds=1)).replace(microsecond=0)

    @classmethod
    def named(cls, username):
        return cls.get_or_none(cls.username == username)

    @classmethod
    def site_admin_exists(cls):
        return cls.select().where(cls.role == "SITE_ADMIN").exists()

    @classmethod
    def listed(cls, pending_only=False):
        """Accounts oldest first; with `pending_only`, those waiting for approval."""
        query = cls.select().order_by(cls.created_at, cls.id)
        return query.where(~cls.is_approved) if pending_only else query

    @classmethod
    def create_named(cls, username, password_hash, **fields):
        """A new user, or None when the name is taken (call it inside a write transaction)."""
        if cls.select().where(cls.username == username).exists():
            return None
        return cls.create(username=username, password_hash=password_hash, **fields)

    @classmethod
    def count_recovery_try(cls, user, step, limit):
        """Count one try (+1) against the user's current recovery code while it has had fewer than `limit`,
        or take one back (-1); True when counted."""
        where = [cls.id == user.id, cls.recovery_code_hash == user.recovery_code_hash]
        if step > 0:
            where.append(cls.recovery_code_failures < limit)
        counted = cls.update(recovery_code_failures=cls.recovery_code_failures + step).where(*where)
        return counted.execute() == 1

    @classmethod
    def reset_password(cls, user, password_hash):
        """Set the password with the user's current recovery code, which it uses up, and end the account's
        earlier sessions; False when the code was replaced or used meanwhile."""
        return cls.update(password_hash=password_hash, recovery_code_used=True,
                          sessions_since=cls.session_start()).where(
            cls.id == user.id, cls.recovery_code_hash == user.recovery_code_hash, ~cls.recovery_code_used
        ).execute() == 1

    @classmethod
    def replace_hash(cls, user, password_hash):
        """Store a new hash of the same password, unless the password changed meanwhile."""
        cls.update(password_hash=password_hash).where(cls.id == user.id,
                                                      cls.password_hash == user.password_hash).execute()

    @classmethod
    def search(cls, q, limit=20):
        """Approved, enabled users whose name matches `q` (name_filter), by name; at most `limit`."""
        wanted = name_filter(q)
        users = cls.select().where(cls.is_approved, ~cls.is_disabled).order_by(cls.username)
        return [u for u in users.iterator() if wanted(u.username)][:limit]


    @classmethod
    def signed_in(cls, username, org_id=None):
        """The user of a token, with `org_role`: their role in the org `org_id`, loaded in the same query
        (None when not a member, or no org asked for)."""
        if org_id is None:
            user = cls.named(username)
            if user is not None:
                user.org_role = None
            return user
        return _SIGNED_IN.first(username, org_id)


class Org(BaseModel):
    id = UUIDField(primary_key=True, default=uuid.uuid4)
    name = CharField(max_length=128, unique=True)
    slug = CharField(max_length=64, unique=True)
    created_at = DateTimeField(default=utcnow)
    door_lists_version = IntegerField(default=0)  # +1 with each change of all its door lists (a ban, ...)

    @classmethod
    def taken(cls, field, value, org_id=None):
        """True when another org than `org_id` has `value` in `field` (name or slug)."""
        others = cls.select().where(cls.id != org_id) if org_id is not None else cls.select()
        return others.where(getattr(cls, field) == value).exists()


class Membership(BaseModel):
    user = ForeignKeyField(User, backref="memberships", on_delete="CASCADE")
    org = ForeignKeyField(Org, backref="memberships", on_delete="CASCADE")
    role = CharField()  # STAFF | ADMIN

    class Meta:
        indexes = ((("user", "org"), True),)

    @classmethod
    def of_users(cls, user_ids):
        """The memberships of these users with their orgs, by org name (one query)."""
        return cls.select(cls, Org).join(Org).where(cls.user.in_(user_ids)).order_by(Org.name)

    @classmethod
    def of_org(cls, org_id, user_id=None):
        """The org's memberships with their users, by username; or the one of `user_id` (None if absent)."""
        query = cls.select(cls, User).join(User).where(cls.org == org_id)
        if user_id is None:
            return query.order_by(User.username)
        return query.where(cls.user == user_id).first()

    @classmethod
    def administers_any(cls, user_id):
        """True when the user is an ADMIN of at least one organization."""
        return cls.select().where(cls.user == user_id, cls.role == "ADMIN").exists()


class Guest(BaseModel):
    platform_user_id = BigIntegerField(primary_key=True)
    username = CharField(max_length=255, index=True)
    displayname = CharField(max_length=255, default="")
    created_at = DateTimeField(default=utcnow)
    is_local = BooleanField(default=False)  # let in by a name typed at the door: not on the platform

    @classmethod
    def search(cls, q, limit, offset):
        """(How many platform guests match `q`, the page of them from `offset`), by username. A name matches
        as at the door (name_filter), so the filter runs here over (id, username, displayname) rows: 10,000
        guests take some 30 ms."""
        query = cls.select().where(~cls.is_local).order_by(cls.username, cls.platform_user_id)
        if not q:
            return query.count(), list(query.limit(limit).offset(offset))
        wanted = name_filter(q)
        ids = [i for i, username, name in query.select(cls.platform_user_id, cls.username, cls.displayname)
               .tuples().iterator() if wanted(name, username)]
        shown = ids[offset:offset + limit]
        rows = {g.platform_user_id: g for g in cls.select().where(cls.platform_user_id.in_(shown))}
        return len(ids), [rows[i] for i in shown]

    @classmethod
    def of_platform(cls, platform_user_id):
        """The platform guest with this id, or None (local guests are not the platform's)."""
        return cls.get_or_none(cls.platform_user_id == platform_user_id, ~cls.is_local)

    @classmethod
    def create_local(cls, displayname):
        """A guest who is not on the platform, named at the door. Their id is a random negative number
        (platform ids are positive, and a random one needs no counter shared between processes); within
        2**53, so JavaScript holds it exactly."""
        return cls.create(platform_user_id=-1 - secrets.randbelow(2**53 - 1), username="",
                          displayname=displayname, is_local=True)

    @classmethod
    def local_in_org(cls, guest_id, org_id):
        """The guest let in by name with this id, if on a list of one of the org's meetups; else None."""
        on_list = MeetupGuest.select().join(Meetup).where(MeetupGuest.guest == cls.platform_user_id,
                                                          Meetup.org == org_id)
        return cls.get_or_none(cls.platform_user_id == guest_id, cls.is_local, fn.EXISTS(on_list))

    @classmethod
    def move_to(cls, local, guest):
        """Move a local guest's list entries and bans to `guest` (their platform account); None when `guest`
        is already on one of the same lists (nothing moved), else (entries, bans) moved. A ban `guest`
        already has in an org replaces the local one."""
        lists = MeetupGuest.select(MeetupGuest.meetup).where(MeetupGuest.guest == local.platform_user_id)
        if MeetupGuest.select().where(MeetupGuest.guest == guest.platform_user_id,
                                      MeetupGuest.meetup.in_(lists)).exists():
            return None
        entries = MeetupGuest.update(guest=guest).where(MeetupGuest.guest == local.platform_user_id).execute()
        banned = Ban.select(Ban.org).where(Ban.guest == guest.platform_user_id)
        Ban.delete().where(Ban.guest == local.platform_user_id, Ban.org.in_(banned)).execute()
        bans = Ban.update(guest=guest).where(Ban.guest == local.platform_user_id).execute()
        return entries, bans

    @classmethod
    def upsert(cls, rows):
        """The insert of guests [(platform_user_id, username, displayname)] that refreshes known ones."""
        return (cls.insert_many(rows, fields=[cls.platform_user_id, cls.username, cls.displayname])
                .on_conflict(conflict_target=[cls.platform_user_id],
                             preserve=[cls.username, cls.displayname]))

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

    @classmethod
    def active(cls, org_id, guest_id):
        return cls.get_or_none(cls.org == org_id, cls.guest == guest_id)

    @classmethod
    def of_org(cls, org_id, guest_id=None):
        """The org's bans with their guests and who banned them, by username (or just this guest's)."""
        query = (cls.select(cls, Guest, User).join(Guest).switch(cls).join(User, JOIN.LEFT_OUTER)
                 .where(cls.org == org_id).order_by(Guest.username, Guest.platform_user_id))
        return query if guest_id is None else query.where(cls.guest == guest_id)

    @classmethod
    def impose(cls, org_id, guest_id, reason, user):
        """Ban the guest; False when a ban is already there (the unique index decides, not a read)."""
        return cls.insert(org=org_id, guest=guest_id, reason=reason, banned_by=user).on_conflict_ignore() \
            .as_rowcount().execute() == 1

    @classmethod
    def lift(cls, ban):
        """Delete the ban; False when it was already gone."""
        return cls.delete().where(cls.id == ban.id).execute() == 1


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
    door_list_version = IntegerField(default=0)  # +1 with each change of this meetup's door list

    class Meta:
        indexes = ((("org", "platform_url"), True),)

    @classmethod
    def of_org(cls, org_id):
        """An org's meetups, newest date first (SPEC.md)."""
        return cls.select().where(cls.org == org_id).order_by(cls.date.desc(), cls.created_at.desc())

    @classmethod
    def newest_urls(cls, limit):
        """The platform URLs of the `limit` newest meetups of every org, newest date first (as tuples)."""
        return cls.select(cls.platform_url).order_by(cls.date.desc()).limit(limit).tuples()

    @classmethod
    def next_arrival_order(cls, meetup_id):
        """Advance the meetup's arrival counter and return the new number; None once it is finalized. The
        UPDATE holds the row's write lock, so two check-ins never get the same number, and a rolled-back
        one leaves no gap that anybody saw. It moves the door list's version on too (CHECK_IN's share of
        door_list_changed, in the same statement)."""
        return next((row.last_arrival_order for row in _NEXT_ARRIVAL.rows(meetup_id)), None)

    @classmethod
    def list_version(cls, org_id, meetup_id):
        """The version of the org's meetup's door list (see with_list_version), or None: a poll's answer."""
        return _LIST_VERSION.first(meetup_id, org_id)

    @classmethod
    def with_list_version(cls, org_id, meetup_id):
        """The org's meetup, or None, with `list_version`: (its door list's counter, its org's counter), in
        one query. Every change of the list moves one of them on in its own transaction (door_list_changed),
        so the version is exact on any engine with any number of writers, and other orgs never touch it."""
        meetup = _WITH_LIST_VERSION.first(meetup_id, org_id)
        if meetup is not None:
            meetup.list_version = (meetup.door_list_version, meetup.door_lists_version)
        return meetup

    @classmethod
    def set_finalized(cls, meetup_id, finalized):
        """Finalize or reopen; False when it already was so (the UPDATE decides)."""
        return cls.update(is_finalized=finalized, finalized_at=utcnow() if finalized else None).where(
            cls.id == meetup_id, cls.is_finalized != finalized).execute() == 1


def count_where(condition):
    """An aggregate: how many rows of the group meet `condition` (0 for none)."""
    return fn.COALESCE(fn.SUM(Case(None, [(condition, 1)], 0)), 0)


RECENT = 5  # the org's last meetups a guest's "repeat no-show" mark looks at


class MeetupGuest(BaseModel):
    """A guest on a meetup's list: an RSVP from the platform or a walk-in, and its check-in state."""
    meetup = ForeignKeyField(Meetup, backref="entries", on_delete="CASCADE")
    guest = ForeignKeyField(Guest)
    rsvp_time = DateTimeField(default=utcnow)
    cancelled_rsvp = BooleanField(default=False)
    cancelled_at = DateTimeField(null=True)   # when a sync found the RSVP gone
    waitlisted = BooleanField(default=False)  # on the platform's waiting list (not expected at the door)
    guests_count = IntegerField(default=0)    # people the guest brings along ("+2")
    excused_at = DateTimeField(null=True)     # an admin excused the absence (EXCUSED_ABSENCE)
    is_walkin = BooleanField(default=False)
    has_arrived = BooleanField(default=False)
    arrival_time = DateTimeField(null=True)
    arrival_order = IntegerField(null=True)
    checked_in_by = ForeignKeyField(User, null=True)

    class Meta:
        # (meetup, rsvp_time), for the door list's order, is added by migrations.m0002_door_list_order
        indexes = ((("meetup", "guest"), True), (("meetup", "arrival_order"), True))

    @classmethod
    def counts(cls, meetup_ids):
        """{meetup_id: {rsvps, cancelled, walkins, arrived}} in one query (API.md's `counts`)."""
        total = count_where
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
    def _at_the_door(cls):
        """Entries with what the door shows: meetup, guest, checker (or None) and `ban`, the guest's ban in
        the meetup's org (or None), joined."""
        return (cls.select(cls, Meetup.id, Meetup.org, Meetup.date, Meetup.is_finalized,
                           Guest.platform_user_id, Guest.username, Guest.displayname, Guest.is_local, Ban.id,
                           Ban.reason, User.id, User.username)
                .join(Meetup).switch(cls).join(Guest).switch(cls)
                .join(Ban, JOIN.LEFT_OUTER, attr="ban", on=(Ban.guest == cls.guest) & (Ban.org == Meetup.org))
                .switch(cls).join(User, JOIN.LEFT_OUTER, on=User.id == cls.checked_in_by))

    @classmethod
    def door_list(cls, meetup):
        """The meetup's entries by rsvp_time, with what the door shows, in one query."""
        return cls._at_the_door().where(cls.meetup == meetup.id).order_by(cls.rsvp_time, cls.id)

    @classmethod
    def at_door(cls, org_id, meetup_id, guest_id):
        """The guest's entry on the org's meetup's list, as door_list() gives it, or None."""
        return _AT_DOOR.first(meetup_id, org_id, guest_id)

    @classmethod
    def add_walkin(cls, meetup_id, guest_id):
        """Put the guest on the list as a walk-in; False when already on it (the unique index decides)."""
        return cls.insert(meetup=meetup_id, guest=guest_id, is_walkin=True).on_conflict_ignore() \
            .as_rowcount().execute() == 1

    @classmethod
    def check_in(cls, entry, user):
        """Mark the entry arrived with the meetup's next number; False when it already was or the meetup is
        finalized (the UPDATEs decide; the caller rolls back on False, which returns the number)."""
        number = Meetup.next_arrival_order(entry.meetup_id)
        arrival = {"has_arrived": True, "arrival_time": utcnow(), "arrival_order": number,
                   "checked_in_by": user}
        if number is None or _ARRIVED.count(arrival["arrival_time"], number, user.id, entry.id) != 1:
            return False
        for name, value in arrival.items():  # the instance now shows the row as stored
            setattr(entry, name, value)
        return True

    @classmethod
    def undo_check_in(cls, entry):
        """Clear the check-in; its number stays used (the counter never goes back). False when not arrived."""
        cleared = {"has_arrived": False, "arrival_time": None, "arrival_order": None, "checked_in_by": None}
        if cls.update(**cleared).where(cls.id == entry.id, cls.has_arrived).execute() != 1:
            return False
        for name, value in cleared.items():  # the instance now shows the row as stored
            setattr(entry, name, value)
        return True

    @classmethod
    def add_rsvps(cls, meetup_id, rows):
        """The insert of RSVPs [(platform_user_id, rsvp_time, waitlisted, guests_count)] leaving guests
        already on the list alone."""
        fields = [cls.meetup, cls.guest, cls.rsvp_time, cls.waitlisted, cls.guests_count]
        return (cls.insert_many([(meetup_id, *row) for row in rows], fields=fields)
                .on_conflict_ignore())

    @classmethod
    def rsvp_states(cls, meetup):
        """{platform_user_id: (cancelled_rsvp, is_walkin, waitlisted, guests_count)} of everyone on the
        meetup's list."""
        rows = cls.select(cls.guest, cls.cancelled_rsvp, cls.is_walkin, cls.waitlisted, cls.guests_count) \
            .where(cls.meetup == meetup)
        return {guest_id: tuple(state) for guest_id, *state in rows.tuples()}

    @classmethod
    def set_cancelled(cls, meetup, guest_ids, cancelled):
        """Mark these guests' RSVPs (un)cancelled, and when, in one statement; the number of rows changed."""
        if not guest_ids:
            return 0
        return (cls.update(cancelled_rsvp=cancelled, cancelled_at=utcnow() if cancelled else None)
                .where(cls.meetup == meetup, cls.guest.in_(list(guest_ids))).execute())

    @classmethod
    def set_rsvp_details(cls, meetup, guest_ids, waitlisted, guests_count):
        """Set these guests' waitlist mark and guest count, in one statement."""
        return (cls.update(waitlisted=waitlisted, guests_count=guests_count)
                .where(cls.meetup == meetup, cls.guest.in_(list(guest_ids))).execute())

    @property
    def outcome(self):
        """Meetup's attendance words where they exist (ATTENDED, NO_SHOW, EXCUSED_ABSENCE), Door's own for
        the rest (WALK_IN, CANCELLED, WAITLIST, and NOT_CHECKED_IN: a walk-in whose check-in was undone)."""
        if self.has_arrived:
            return "WALK_IN" if self.is_walkin else "ATTENDED"
        if self.is_walkin:
            return "NOT_CHECKED_IN"
        if self.cancelled_rsvp:
            return "CANCELLED"
        if self.waitlisted:
            return "WAITLIST"
        return "EXCUSED_ABSENCE" if self.excused_at else "NO_SHOW"

    @classmethod
    def no_show(cls):
        """The condition of a NO_SHOW outcome (see `outcome`), in SQL."""
        return (~cls.has_arrived & ~cls.is_walkin & ~cls.cancelled_rsvp & ~cls.waitlisted
                & cls.excused_at.is_null())

    @classmethod
    def with_guests(cls, meetup_id):
        """The meetup's entries with their guests and checkers joined, in arrival order, then RSVP order."""
        arrived_first = Case(None, [(cls.has_arrived, 0)], 1)
        return (cls.select(cls, Guest, User.id, User.username).join(Guest).switch(cls)
                .join(User, JOIN.LEFT_OUTER, on=User.id == cls.checked_in_by).where(cls.meetup == meetup_id)
                .order_by(arrived_first, cls.arrival_order, cls.rsvp_time, cls.id))

    @classmethod
    def history(cls, org_id, guests, before):
        """{platform_user_id: {visits, last_visit, recent_no_shows}} of `guests` (ids or a query of them)
        over the org's meetups dated before `before`, in one query: arrivals, the last one, and no-shows at
        the org's RECENT last meetups (the guest-ids index reads only these guests' rows)."""
        return _as_history(cls._history_rows(org_id, guests, before))

    @classmethod
    def _history_rows(cls, org_id, guests, before):
        recent = (Meetup.select(Meetup.id).where(Meetup.org == org_id, Meetup.date < before)
                  .order_by(Meetup.date.desc()).limit(RECENT))
        return (cls.select(cls.guest, count_where(cls.has_arrived).alias("visits"),
                           fn.MAX(cls.arrival_time).alias("last_visit"),
                           count_where(cls.no_show() & cls.meetup.in_(recent)).alias("recent_no_shows"))
                .join(Meetup).where(cls.guest.in_(guests), Meetup.org == org_id, Meetup.date < before)
                .group_by(cls.guest).tuples())

    @classmethod
    def history_of(cls, org_id, guest_id, before):
        """history() of one guest (a door's answer to a check-in), from SQL text built once."""
        return _as_history(_HISTORY_OF_ONE.rows(org_id, guest_id, before))

    @classmethod
    def guests_of(cls, meetup_id):
        return cls.select(cls.guest).where(cls.meetup == meetup_id)

    @classmethod
    def of_guest(cls, org_id, guest_id):
        """The guest's entries at the org's meetups, newest meetup first, with the meetups joined."""
        return (cls.select(cls, Meetup).join(Meetup).where(cls.guest == guest_id, Meetup.org == org_id)
                .order_by(Meetup.date.desc()))

    @classmethod
    def excuse(cls, entry):
        """Excuse an absence; False when the guest arrived or was already excused (the UPDATE decides)."""
        return cls.update(excused_at=utcnow()).where(cls.id == entry.id, ~cls.has_arrived,
                                                     cls.excused_at.is_null()).execute() == 1


def _as_history(rows):
    return {guest: {"visits": visits, "last_visit": last, "recent_no_shows": no_shows}
            for guest, visits, last, no_shows in rows}


# The statements of a check-in and a door's poll that peewee would otherwise build again for every request.
_SIGNED_IN = Prepared(("str", "uuid"), lambda username, org_id: (
    User.select(User, Membership.role.alias("org_role"))
    .join(Membership, JOIN.LEFT_OUTER, on=(Membership.user == User.id) & (Membership.org == org_id))
    .where(User.username == username).objects()))
_NEXT_ARRIVAL = Prepared(("uuid",), lambda meetup_id: (
    Meetup.update(last_arrival_order=Meetup.last_arrival_order + 1,  # a check-in changes the door list
                  door_list_version=Meetup.door_list_version + 1)
    .where(Meetup.id == meetup_id, ~Meetup.is_finalized).returning(Meetup.last_arrival_order)))
_ARRIVED = Prepared(("datetime", "int", "int", "int"), lambda at, number, user_id, entry_id: (
    MeetupGuest.update(has_arrived=True, arrival_time=at, arrival_order=number, checked_in_by=user_id)
    .where(MeetupGuest.id == entry_id, ~MeetupGuest.has_arrived)))
_WITH_LIST_VERSION = Prepared(("uuid", "uuid"), lambda meetup_id, org_id: (
    Meetup.select(Meetup, Org.door_lists_version).join(Org)
    .where(Meetup.id == meetup_id, Meetup.org == org_id).objects()))
_LIST_VERSION = Prepared(("uuid", "uuid"), lambda meetup_id, org_id: (
    Meetup.select(Meetup.door_list_version, Org.door_lists_version).join(Org)
    .where(Meetup.id == meetup_id, Meetup.org == org_id).tuples()))
_AT_DOOR = Prepared(("uuid", "uuid", "int"), lambda meetup_id, org_id, guest_id: (
    MeetupGuest._at_the_door()
    .where(MeetupGuest.meetup == meetup_id, Meetup.org == org_id, MeetupGuest.guest == guest_id)))
_HISTORY_OF_ONE = Prepared(("uuid", "int", "datetime"), lambda org_id, guest_id, before: (
    MeetupGuest._history_rows(org_id, [guest_id], before)))


class AuditEvent(BaseModel):
    """Written in the same transaction as its action; never updated or deleted."""
    event_type = CharField(max_length=32, index=True)
    timestamp = DateTimeField(default=utcnow)
    org = ForeignKeyField(Org, null=True, on_delete="CASCADE", index=False)  # indexed below, with timestamp
    actor = ForeignKeyField(User, null=True, index=False)
    guest = ForeignKeyField(Guest, null=True, index=False)
    meetup_id = UUIDField(null=True)
    reason = TextField(null=True)
    details = JSONField(default=dict)

    class Meta:
        # One index per way the log is read (newest first within each); the rowid ends every index, so
        # `timestamp DESC, id DESC` is an index order.
        indexes = ((("org", "timestamp"), False), (("org", "event_type", "timestamp"), False),
                   (("guest", "timestamp"), False), (("actor", "timestamp"), False),
                   (("meetup_id", "timestamp"), False))

    @classmethod
    def log(cls, org_id, *, orgless=False, types=(), since=None, until=None, guest_id=None, meetup_id=None,
            actor_id=None, guest=None, meetup=None, actor=None):
        """An org's events, newest first, narrowed by API.md's filters (None: not filtered; guest/meetup/actor
        are a path's scope, the *_id ones the query's, and both must match).
        `orgless` adds events that belong to no org (GUEST_CREATED): they show in guest-scoped lists."""
        where = [(cls.org == org_id) | cls.org.is_null() if orgless else cls.org == org_id]
        where += [cls.event_type.in_(types)] if types else []
        where += [cls.timestamp >= since] if since is not None else []
        where += [cls.timestamp <= until] if until is not None else []
        for field, value in ((cls.guest, guest_id), (cls.guest, guest), (cls.meetup_id, meetup_id),
                             (cls.meetup_id, meetup), (cls.actor, actor_id), (cls.actor, actor)):
            where += [field == value] if value is not None else []
        return cls.select().where(*where).order_by(cls.timestamp.desc(), cls.id.desc())

    @classmethod
    def record(cls, event_type, actor_id, org_id, meetup_id, guest_id, reason, details):
        """Write one event, from SQL text built once (every check-in writes one)."""
        _RECORD.count(event_type, utcnow(), org_id, actor_id, guest_id, meetup_id, reason,
                      json.dumps(details))

    @classmethod
    def with_people(cls, query):
        """A log() query's events as dicts with their actor's and guest's names joined: id, event_type,
        timestamp, org, actor, actor_username, guest, guest_username, guest_displayname, meetup_id, reason,
        details (dicts: turning 50 joined rows into objects was most of a page's time)."""
        names = (User.username.alias("actor_username"), Guest.username.alias("guest_username"),
                 Guest.displayname.alias("guest_displayname"))
        return (query.select(cls.id, cls.event_type, cls.timestamp, cls.org, cls.actor, cls.guest,
                             cls.meetup_id, cls.reason, cls.details, *names)
                .join_from(cls, User, JOIN.LEFT_OUTER).join_from(cls, Guest, JOIN.LEFT_OUTER).dicts())


_RECORD = Prepared(("str", "datetime", "uuid", "int", "int", "uuid", "str", "str"), lambda *values: (
    AuditEvent.insert(dict(zip((AuditEvent.event_type, AuditEvent.timestamp, AuditEvent.org, AuditEvent.actor,
                                AuditEvent.guest, AuditEvent.meetup_id, AuditEvent.reason), values),
                           details=Value(values[-1], converter=False)))))


def door_list_changed(org_id=None, meetup_id=None):
    """Move on the version of the meetup's door list, or of every door list of the org (a ban, an excuse:
    they change guests' status and history on all of them); call it inside the change's transaction."""
    if meetup_id is not None:
        Meetup.update(door_list_version=Meetup.door_list_version + 1).where(Meetup.id == meetup_id).execute()
    else:
        Org.update(door_lists_version=Org.door_lists_version + 1).where(Org.id == org_id).execute()


def guests_renamed(guest_ids):
    """Move on the version of every door list these guests are on (a sync, in any org, renamed them)."""
    if guest_ids:
        lists = MeetupGuest.select(MeetupGuest.meetup).where(MeetupGuest.guest.in_(sorted(guest_ids)))
        Meetup.update(door_list_version=Meetup.door_list_version + 1).where(Meetup.id.in_(lists)).execute()


class IdempotencyKey(BaseModel):
    """A door action's Idempotency-Key and its first answer: the same key again returns that answer instead
    of acting twice. Written in the action's own transaction, so a rolled-back action leaves no key."""
    RETENTION = timedelta(hours=24)
    user = ForeignKeyField(User, on_delete="CASCADE", index=False)
    key = CharField(max_length=255)
    request = CharField(max_length=64)  # sha256 of method, path and body: a reused key is told apart
    status = IntegerField(null=True)
    answer = TextField(null=True)
    created_at = DateTimeField(default=utcnow, index=True)

    class Meta:
        indexes = ((("user", "key"), True),)

    @classmethod
    def claim(cls, user, key, request):
        """Take the key for this request: None when it is new (or expired), else the stored row. The
        unique index decides: a concurrent claim of the same key waits for the first one's transaction,
        then finds its answer."""
        cls.delete().where(cls.created_at < utcnow() - cls.RETENTION).execute()
        row = {"user": user, "key": key, "request": request}
        if cls.insert(**row).on_conflict_ignore().as_rowcount().execute() == 1:
            return None
        return cls.get(cls.user == user, cls.key == key)

    @classmethod
    def answered(cls, user, key, status, answer):
        cls.update(status=status, answer=answer).where(cls.user == user, cls.key == key).execute()


class Failure(BaseModel):
    """A failed login, setup or recovery attempt, keyed by what it counts against ('user:alice', 'addr:…')."""
    key = CharField(max_length=300)
    at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("key", "at"), False),)

    @classmethod
    def reserve(cls, keys, limit, window):
        """Inside a write transaction: (None, the new rows' ids) after counting one attempt against each key,
        or (the first full key's oldest attempt time, None) when a key has `limit` attempts in `window`."""
        now = utcnow()
        cls.delete().where(cls.at < now - window).execute()
        for key in keys:
            recent = cls.select().where(cls.key == key, cls.at > now - window)
            if recent.count() >= limit:
                return recent.order_by(cls.at).first().at, None
        return None, [cls.insert(key=key, at=now).execute() for key in keys]

    @classmethod
    def forgive(cls, ids):
        cls.delete().where(cls.id.in_(ids)).execute()


class Setting(BaseModel):
    """Small named values the service keeps between starts (the setup code's hash)."""
    key = CharField(primary_key=True, max_length=64)
    value = TextField()

    @classmethod
    def setup_code(cls):
        """(The setup code's hash, when it was issued), or (None, None)."""
        rows = {s.key: s.value for s in cls.select().where(cls.key.in_(("setup_code", "setup_code_at")))}
        issued = rows.get("setup_code_at")
        return rows.get("setup_code"), issued and datetime.fromisoformat(issued)

    @classmethod
    def set_setup_code(cls, code_hash):
        for key, value in (("setup_code", code_hash), ("setup_code_at", utcnow().isoformat())):
            upsert = cls.insert(key=key, value=value)
            upsert.on_conflict(conflict_target=[cls.key], update={cls.value: value}).execute()

    @classmethod
    def forget_setup_code(cls):
        cls.delete().where(cls.key.in_(("setup_code", "setup_code_at"))).execute()


MODELS = [User, Org, Membership, Guest, Ban, Meetup, MeetupGuest, AuditEvent, Failure, Setting,
          IdempotencyKey]
