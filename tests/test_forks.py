"""`serve --workers` forks its workers (and replaces one that dies) from the process whose chores open the
SQLite database every second. A worker forked while a chore had it open read old snapshots, was told the
database is locked and even overwrote other processes' commits; a fork now waits for the chore."""

import os
import sqlite3
import threading
import time
from contextlib import closing

from doorapp.backup import Periodic

ROWS = 20


def commit(connection, mark):
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("INSERT INTO t VALUES (?)", (mark,))
    connection.execute("COMMIT")


def connect(path):
    return closing(sqlite3.connect(path, isolation_level=None, timeout=5))


def test_a_worker_forked_while_a_chore_has_the_database_open_loses_no_ones_commits(tmp_path):
    path = str(tmp_path / "door.db")
    with closing(sqlite3.connect(path, isolation_level=None)) as setup:
        setup.execute("PRAGMA journal_mode=wal")
        setup.execute("CREATE TABLE t (mark INTEGER)")
    opened, done = threading.Event(), threading.Event()

    def checkpoint():  # as backup.Checkpointer's job, only slower: it keeps its connection a moment
        with closing(sqlite3.connect(path, isolation_level=None)) as connection:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            opened.set()
            done.wait(0.5)

    chore = Periodic("door-checkpoints", 0.01, checkpoint)
    chore.start()
    try:
        assert opened.wait(5)
        threading.Timer(0.3, done.set).start()
        pid = os.fork()  # a worker started (or replaced) while the chore has the database open
        if pid == 0:
            try:  # a worker: one connection, kept
                with connect(path) as connection:
                    for _ in range(ROWS):
                        commit(connection, 2)
                        time.sleep(0.02)
            finally:
                os._exit(0)
        for _ in range(ROWS):  # another process's writes meanwhile (as create-admin's, a connection each)
            with connect(path) as connection:
                commit(connection, 1)
            time.sleep(0.02)
        assert os.waitpid(pid, 0)[1] == 0
    finally:
        chore.stop()
    with closing(sqlite3.connect(path)) as check:
        counts = dict(check.execute("SELECT mark, COUNT(*) FROM t GROUP BY mark").fetchall())
    assert counts == {1: ROWS, 2: ROWS}
