"""The database seam: one handle bound in create_app, and what every model shares.

`db` is a proxy bound by connect() to the engine DATABASE_URL names: a SQLite file (the default) or
PostgreSQL (`postgresql://`, through psycopg 3, the optional extra `postgres`, with pooled connections).
The models (doorapp.models, one module per aggregate) build portable SQL with peewee; what differs between
the engines lives here: how writers are serialized (write()) and how a whole-database step such as a
migration is made exclusive (exclusive()). Also here: Prepared (SQL text built once for hot statements),
get_or_404, BaseModel. Timestamps are stored as naive UTC datetimes and rendered by iso().
"""

import contextlib
import os
import select
import sys
import threading
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

from peewee import Case, DatabaseProxy, Model, OperationalError, SqliteDatabase, fn

from doorapp import faults
from doorapp.errors import ApiError

# synchronous=full: each commit flushes the write-ahead log before it returns, so a 2xx to a write survives a
# power cut (normal flushes at checkpoints only); on macOS, fullfsync empties the drive's cache too, for
# commits and checkpoints. Its cost: bench/README.md, "Issue 34".
# cache_size: 512 KiB of pages per connection (SQLite's default is 2 MiB), one per server thread. In WAL mode
# another connection's commit empties the cache anyway, and the file's pages stay in the OS's cache: the
# smaller one cost nothing measurable in bench/door and took 15 MB off a server's peak memory.
PRAGMAS = {
    "journal_mode": "wal",
    "synchronous": "full",
    "foreign_keys": 1,
    "busy_timeout": 5000,
    "cache_size": -512,
    **({"fullfsync": 1, "checkpoint_fullfsync": 1} if sys.platform == "darwin" else {}),
}
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
MIGRATION_LOCK = 0x646F6F72  # pg_advisory_xact_lock key of migrations ("door")
NAMED_LOCKS = 0x646F6F72  # the first of queue_on()'s two-part advisory lock keys (a space of its own)
db = DatabaseProxy()
_write_lock = threading.Lock()  # serialises this process's SQLite writers
_lock_file = {}  # path and fd of the SQLite database's lock file (_writers_turn), open while it is in use


def database_for(url, sqlite_path):
    """An unconnected handle for DATABASE_URL: PostgreSQL for postgresql://, else the SQLite file."""
    if sqlite_path is not None:
        return SqliteDatabase(str(sqlite_path), pragmas=PRAGMAS)
    if not url.startswith(POSTGRES_SCHEMES):
        raise SystemExit("DATABASE_URL must be sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/NAME.")
    try:
        import psycopg  # noqa: F401  (peewee would otherwise fail later, less clearly)
        from playhouse.postgres_ext import PooledPsycopg3Database
    except ImportError:
        raise SystemExit(
            "DATABASE_URL names PostgreSQL, but its driver is not installed: pip install 'doorapp[postgres]'."
        ) from None
    name, options = postgres_options(url)
    # A commit returns once it is on disk, whatever the server's or database's default (a later -c wins)
    options["options"] = f"{options.get('options', '')} -c synchronous_commit=on".strip()
    # Pooled: a connection is reused across requests; one found broken is replaced, not kept.
    return PooledPsycopg3Database(name, max_connections=32, stale_timeout=300, timeout=10, **options)


def postgres_options(url):
    """(database name, connection options) of a postgresql:// URL. The user and password are everything
    before the last "@", so a password holding "#", "/" or "?" works unencoded as well as percent-encoded;
    a URL that still cannot be read is refused in one line that never shows it."""
    userinfo, _, rest = url.split("://", 1)[1].rpartition("@")
    try:
        parts = urlsplit(f"postgresql://{rest}")
        port = parts.port
    except ValueError:
        raise SystemExit(
            "DATABASE_URL is no postgresql://USER:PASSWORD@HOST:PORT/NAME address (check its host and port)."
        ) from None
    user, _, password = userinfo.partition(":")
    options = {
        key: unquote(value)
        for key, value in (pair.split("=", 1) for pair in parts.query.split("&") if "=" in pair)
    }
    given = {"host": parts.hostname, "port": port, "user": unquote(user), "password": unquote(password)}
    options.update({key: value for key, value in given.items() if value})
    options.setdefault("connect_timeout", "5")  # a database out of reach: /health says 503 within seconds
    return unquote(parts.path.lstrip("/")), options


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
        with contextlib.suppress(Exception):  # closing a cut connection may fail too; it is dropped anyway
            db.manual_close()


def close_for_good():
    """Close this thread's connection, a pooled one too: a chore leaves none for a worker to inherit."""
    if is_sqlite():
        db.close()
    elif not db.is_closed():
        db.manual_close()


def drop_if_cut():
    """Before a request uses it: a PostgreSQL connection its server has closed (a restart, an
    administrator) has something to read while idle, the server's last words and its end, so it is
    dropped and the request takes a fresh one, and is answered instead of failing (one per server thread
    after a restart). An idle connection that is fine has nothing to read: no round trip is made."""
    if is_sqlite() or db.is_closed():
        return
    try:
        descriptor = db.connection().fileno()
        if hasattr(select, "poll"):
            probe = select.poll()
            probe.register(descriptor, select.POLLIN)
            readable = bool(probe.poll(0))
        else:  # Windows
            readable = bool(select.select([descriptor], [], [], 0)[0])
    except Exception:  # a connection already known to be broken
        readable = True
    if readable:
        drop_connection()


def utcnow():
    return datetime.now(UTC).replace(tzinfo=None)


def iso(moment):
    """A stored UTC datetime as ISO 8601 with `Z`, at the precision it is stored with."""
    return None if moment is None else moment.isoformat() + "Z"


@contextmanager
def write():
    """A short write transaction. SQLite has one writer at a time: writers queue on this process's lock,
    then on the database's lock file (the other processes of `serve --workers`), and BEGIN IMMEDIATE takes
    the file's write lock up front. PostgreSQL runs writers side by side in plain (READ COMMITTED)
    transactions: the conditional UPDATEs and unique indexes on the models decide every race."""
    try:
        if is_sqlite():
            with _write_lock, _writers_turn(), db.atomic("IMMEDIATE"):
                yield
        else:
            with db.atomic():
                yield
    except OperationalError as error:  # a read-only file, a full disk, a lost server: /health tells it
        if not race_lost(error):
            faults.failed("write")
        raise
    faults.worked("write")


# What a writer that lost a race to another transaction is told: the unique index it filled was filled
# (and committed) by the other one meanwhile, or PostgreSQL ended it to break a deadlock or keep a
# serializable order. SQLite's unique and primary-key codes count too: the same request on either engine.
RACES = {"23505", "40001", "40P01", 1555, 2067}  # PostgreSQL's SQLSTATEs; SQLite's extended result codes
TRIES = 3


def race_lost(error):
    """True when `error` (peewee's, or the driver's it wraps) says another transaction won a race."""
    original = getattr(error, "orig", error)  # peewee keeps the driver's error it wraps there
    return (getattr(original, "sqlstate", None) or getattr(original, "sqlite_errorcode", None)) in RACES


def decided(act):
    """act() -- a request's transactions -- run again when it lost a race (race_lost): its work rolled
    back, and the run again sees the winner's committed row, so its own check answers as it does when the
    two come one after the other (409 ..._exists, _taken), and a handler cannot get it wrong by forgetting.
    A check-then-insert is decided once the other commits; a deadlock may need another turn. Lost every
    time: OperationalError, which the request chain answers as 503 service_unavailable (try again)."""
    for _ in range(TRIES):
        try:
            return act()
        except Exception as error:  # told apart by race_lost; anything else goes on
            if not race_lost(error):
                raise
            lost = error
    raise OperationalError(f"lost {TRIES} races in a row: {lost}") from lost


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


def queue_on(*names):
    """Inside a write transaction: wait until every other transaction that queued on one of `names` has
    ended, so a count read now stays true until this one commits (PostgreSQL's transaction-scoped advisory
    locks, taken in one order; SQLite's writers take turns anyway)."""
    if not is_sqlite():
        for name in sorted(set(names)):
            db.execute_sql("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (NAMED_LOCKS, name))


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
    """Run [(sql, params)] built earlier (by in_chunks, outside the write lock); the rows changed."""
    return sum(db.execute_sql(sql, params).rowcount for sql, params in statements)


CHUNK = 1000  # rows of one statement: under SQLite's 32,766 parameters and PostgreSQL's 65,535


def in_chunks(build, rows, size=CHUNK):
    """[(sql, params)] of build(chunk) for each chunk of `rows`, a query over a list of rows: an INSERT's
    VALUES, an IN list (rows of one value). Each row is a tuple of the values as peewee sends them (a UUID
    as its hex); the first row's are checked against peewee's. Peewee builds the query of one row and of
    two, which shows where a row's placeholders repeat; a chunk's text repeats them as many times. Peewee
    building a 500-row INSERT took 40 ms, most of a large sync's time (issue 22); this takes microseconds."""
    if not rows:
        return []
    (text, params), (twice, _) = build(rows[:1]).sql(), build(rows[:1] * 2).sql()
    width, mark = len(rows[0]), db.param
    for group in (f"({', '.join([mark] * width)})", mark if width == 1 else None):
        at = text.find(group) if group else -1
        while at >= 0 and text[:at] + group + ", " + text[at:] != twice:
            at = text.find(group, at + 1)
        if at >= 0:
            break
    first = text[:at].count(mark)
    if at < 0 or params[first : first + width] != list(rows[0]):
        raise ValueError(f"in_chunks cannot repeat the rows of {text[:80]!r} with {rows[0]!r}")
    head, tail, before, after = text[:at], text[at + len(group) :], params[:first], params[first + width :]
    return [
        (head + ", ".join([group] * len(chunk)) + tail, [*before, *(v for row in chunk for v in row), *after])
        for chunk in (rows[i : i + size] for i in range(0, len(rows), size))
    ]


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
        "uuid": (
            lambda i: uuid.UUID(int=Prepared.STAND_IN + i),
            lambda v: v.hex if isinstance(v, uuid.UUID) else uuid.UUID(str(v)).hex,
        ),
        "int": (lambda i: -Prepared.STAND_IN - i, int),
        "datetime": (lambda i: datetime(1901, 1, 1, 0, 0, i, tzinfo=UTC), lambda v: v),
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
        params = [
            param
            if slot is None
            else None
            if values[slot] is None
            else self.KINDS[self.kinds[slot]][1](values[slot])
            for param, slot in zip(*slots, strict=True)
        ]
        return query, db.execute_sql(sql, params)

    def _compile(self):
        stand_ins = [self.KINDS[kind][0](i) for i, kind in enumerate(self.kinds)]
        query = self.build(*stand_ins)
        sql, params = query.sql()
        sent = [self.KINDS[kind][1](value) for kind, value in zip(self.kinds, stand_ins, strict=True)]
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


def count_where(condition):
    """An aggregate: how many rows of the group meet `condition` (0 for none)."""
    return fn.COALESCE(fn.SUM(Case(None, [(condition, 1)], 0)), 0)
