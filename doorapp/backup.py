"""Online copies of the SQLite database (SQLite's backup API: safe while the service runs).

`door backup DEST` calls backup() (on PostgreSQL: dump(), PostgreSQL's own pg_dump); `serve` runs a
Scheduler that backs up by itself once a day and after a meetup is finalized, keeping the latest KEEP in
<data dir>/backups, and a Checkpointer that copies the write-ahead log into the database file; an upgrade
first takes a copy with before_upgrade(). A backup is one self-contained file: restore it by copying it
over door.db while Door is stopped (README, "Back up and restore").
"""

import logging
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from contextlib import closing
from datetime import datetime
from pathlib import Path

from peewee import fn

from doorapp import faults
from doorapp.db import PRAGMAS
from doorapp.models import AuditEvent, AuditType
from doorapp.paths import private_dir, private_file

log = logging.getLogger("doorapp.backup")
KEEP = 14  # automatic backups kept in <data dir>/backups
DAILY = 24 * 60 * 60  # seconds between backups when nothing is finalized
CHECK_EVERY = 60  # seconds between the scheduler's looks at the database
FLUSHES = [name for name in ("fullfsync", "checkpoint_fullfsync") if name in PRAGMAS]  # macOS's (db.PRAGMAS)


def backup(database_path, dest):
    """`door backup DEST`: copy the database to a file, or into a folder (a dated file; "DEST/" is made)."""
    if a_folder(dest):
        return backup_into(database_path, dest)
    return copy(database_path, Path(dest))


def a_folder(dest):
    """DEST names a folder (one that exists, or "DEST/" to be made)."""
    return str(dest).endswith(("/", "\\")) or Path(dest).is_dir()


def dump(database_url, dest):
    """`door backup DEST` on PostgreSQL: its own dump tool, pg_dump, in its custom format (pg_restore reads
    it) into a file, or a dated file in a folder. The password reaches pg_dump in its environment, never on
    its command line, where other users of the machine could read it."""
    import psycopg.conninfo  # installed: DATABASE_URL names PostgreSQL

    from doorapp.db import postgres_options

    program = shutil.which("pg_dump")
    if program is None:
        raise SystemExit(
            "DATABASE_URL names a PostgreSQL database and its backup tool, pg_dump, is not installed here "
            "(Debian: apt-get install postgresql-client): back it up with pg_dump --format=custom, or with "
            "your provider's backups. Nothing was written."
        )
    if a_folder(dest):
        dest = dated(private_dir(dest), suffix=".dump")
    name, options = postgres_options(database_url)
    password = options.pop("password", None)
    private_file(dest)  # made 0600 before pg_dump writes into it
    dumped = subprocess.run(
        [
            program,
            "--format=custom",
            f"--file={dest}",
            f"--dbname={psycopg.conninfo.make_conninfo(dbname=name, **options)}",
        ],
        env={**os.environ, **({"PGPASSWORD": password} if password else {})},
        capture_output=True,
        text=True,
    )
    if dumped.returncode != 0:
        Path(dest).unlink(missing_ok=True)
        said = " ".join(dumped.stderr.split()) or f"exit status {dumped.returncode}"
        raise SystemExit(f"pg_dump could not back up the database ({said}). Nothing was written.")
    return Path(dest)


def backup_into(database_path, folder, prefix="door"):
    folder = Path(folder)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return copy(database_path, dated(folder, prefix))


def dated(folder, prefix="door", suffix=".db"):
    """A new file's path in `folder`, named by the time to the microsecond: door-20261121-190000-000000.db."""
    return folder / f"{prefix}-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}{suffix}"


def copy(database_path, dest):
    """An online copy of the database at `dest`, written under another name and renamed when complete."""
    dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = private_file(dest.with_name(dest.name + ".partial"))  # a copy holds what the database holds
    source = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(tmp)
        with target:
            source.backup(target)
        # The copy keeps the source's WAL mode; a rollback journal makes it one file that can be read,
        # copied and restored on its own, with no -wal or -shm beside it.
        target.execute("PRAGMA journal_mode=DELETE")
        target.close()
    finally:
        source.close()
    tmp.replace(dest)
    return dest


def backups_dir(data_dir):
    return private_dir(Path(data_dir) / "backups")


def before_upgrade(database_path, data_dir):
    """The copy a newer Door takes before it migrates an older database (kept: it is never pruned). On
    PostgreSQL (no file: `database_path` is None) it says so; each migration is one transaction there."""
    if database_path is None:
        print(
            "Upgrading the PostgreSQL database in place (each step in one transaction). Door does not copy "
            "PostgreSQL databases: take one with pg_dump before upgrading.",
            flush=True,
        )
        return None
    path = backup_into(database_path, backups_dir(data_dir), prefix="before-upgrade")
    print(f"Upgrading the database; the old one is kept in {path}", flush=True)
    return path


def automatic(folder):
    """The automatic backups (and `door backup` copies) in `folder`, oldest first."""
    return sorted(Path(folder).glob("door-*.db"))


def prune(folder, keep=KEEP):
    for old in automatic(folder)[:-keep]:
        old.unlink()


def last_finalized(database_path):
    """The id of the newest MEETUP_FINALIZED event in the SQLite file at `database_path` (0 when none)."""
    sql, params = (
        AuditEvent.select(fn.MAX(AuditEvent.id))
        .where(AuditEvent.event_type == AuditType.MEETUP_FINALIZED)
        .sql()
    )
    connection = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True)
    try:
        return connection.execute(sql, params).fetchone()[0] or 0
    finally:
        connection.close()


def due(database_path, folder):
    """Back up when the newest backup is a day old (or there is none), or lacks a meetup finalized since."""
    backups = automatic(folder)
    if not backups or time.time() - backups[-1].stat().st_mtime >= DAILY:
        return True
    return last_finalized(database_path) > last_finalized(backups[-1])


# Held while a chore's job has the database open. `serve --workers` forks its workers from the process that
# runs the chores, and a fork must wait for it: a child forked while a SQLite connection is open inherits
# SQLite's record of that connection's file locks and shared-memory index, and its own connections then read
# an old snapshot (a user create-admin just made is refused), are told the database is locked (503), or
# overwrite other processes' commits.
_chore_running = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_chore_running.acquire,
        after_in_parent=_chore_running.release,
        after_in_child=_chore_running.release,
    )


class Periodic(threading.Thread):
    """A thread of `serve` that runs `job` every `every` seconds until stop(); never during a fork."""

    def __init__(self, name, every, job):
        super().__init__(name=name, daemon=True)
        self.every, self.job, self.stopping = every, job, threading.Event()

    def run(self):
        while not self.stopping.wait(self.every):
            with _chore_running:
                self.job()

    def stop(self):
        """Stop; a job in progress may finish (a backup of a door-sized database: well under a second)."""
        self.stopping.set()
        self.join(timeout=5)


class Scheduler(Periodic):
    """The service's own backups: every `every` seconds, back up when due() and keep the latest KEEP.
    PostgreSQL (no `database_path`) is backed up by its own tools (pg_dump), not by Door."""

    def __init__(self, database_path, data_dir, every=CHECK_EVERY):
        super().__init__("door-backups", every, self.back_up_if_due)
        self.database_path, self.folder = database_path, backups_dir(data_dir)

    def back_up_if_due(self):
        try:
            if self.database_path is not None and due(self.database_path, self.folder):
                log.info("backed up to %s", backup_into(self.database_path, self.folder))
                prune(self.folder)
        except (OSError, sqlite3.Error):  # a full disk must not stop the door; the log says why
            log.exception("automatic backup failed")


class Checkpointer(Periodic):
    """For `doorapp serve` on SQLite: copy the WAL into the database file once a second, here, instead of in
    a request. SQLite does it in the commit that fills 1,000 pages of WAL, and that writer then holds every
    other writer's turn through the checkpoint's fsyncs: under load a check-in's p99 was 190 ms with them in
    the requests, 32 ms without. One per database (the process that starts the workers runs it); the
    requests' connections are told to leave checkpoints alone by db.checkpoint_elsewhere().
    PostgreSQL (no `database_path`) checkpoints by itself."""

    def __init__(self, database_path, every=1.0):
        super().__init__("door-checkpoints", every, self.checkpoint)
        self.database_path = database_path

    def checkpoint(self):
        if self.database_path is None:
            return
        try:  # PASSIVE: waits for no reader or writer; what it cannot copy now, it copies next time
            with closing(sqlite3.connect(self.database_path, isolation_level=None)) as connection:
                for pragma in FLUSHES:  # macOS: the copy reaches the disk, not only the drive's cache
                    connection.execute(f"PRAGMA {pragma}=1")
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as error:  # a read-only or lost file, a full disk: /health tells it too
            if failures := faults.failed("checkpoint"):
                log.warning(
                    "checkpoint failed (%d in a row; said again every %d minutes while it goes on): %s",
                    failures,
                    faults.LOG_EVERY // 60,
                    error,
                )
            return
        if failures := faults.worked("checkpoint"):
            log.info("checkpoints work again, after %d failures", failures)
