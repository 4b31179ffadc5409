"""A 2xx to a write is on disk before it is sent, so a power cut loses nothing Door answered: on SQLite each
answered check-in's commit flushed the write-ahead log (strace watching a served Door, one process or
two), and on PostgreSQL each commit waited for its WAL to be flushed, even in a database whose default
says not to. (A crash of Door losing nothing it answered: test_concurrency's SIGKILL mid-storm.)"""

import os
import re
import shutil
import signal

import psycopg
import pytest
import requests
from helpers import DOORAPP, SECRET, children, prepared_database, served

STRACE = shutil.which("strace")
CHECK_INS = 20
# strace -y writes a file descriptor with its path: fdatasync(5</tmp/.../door.db-wal>) = 0
FLUSHED = re.compile(r"\b(?:fdatasync|fsync)\(\d+<[^>]*/door\.db-wal>")
SENT = re.compile(r"\b(?:sendto|sendmsg|write|writev)\(\d+<(?:socket|TCP)")
RECEIVED = re.compile(
    r"\b(?:recvfrom|recvmsg|read)\(\d+<(?:socket|TCP)|<\.\.\. (?:recvfrom|recvmsg|read) resumed>"
)


def strace_or_skip():
    if STRACE is None:
        if os.environ.get("DOOR_REQUIRE_STRACE") == "1":
            pytest.fail("DOOR_REQUIRE_STRACE=1 but strace is not installed (apt-get install strace)")
        pytest.skip("strace is not installed (apt-get install strace)")


def check_in_one_by_one(url, meetup, headers):
    """CHECK_INS check-ins, each sent when the one before was answered, each on a new connection (either
    worker may take it) with its own X-Request-ID; the request ids, in order."""
    base = f"{url}/organizations/{meetup.org_id}/meetups/{meetup.id}/guests"
    ids = []
    for guest_id in range(1, CHECK_INS + 1):
        request_id = f"durable-{guest_id:03d}"
        reply = requests.post(
            f"{base}/{guest_id}/checkin", headers={**headers, "X-Request-ID": request_id}, timeout=30
        )
        assert reply.status_code == 200, reply.text
        ids.append(request_id)
    return ids


def unflushed(trace, request_ids):
    """The check-ins (request ids) whose answer was sent with no flush of the WAL between their request's
    arrival and their answer, read from strace's lines in the order the calls were made."""
    lines = trace.splitlines()
    flushes = [n for n, line in enumerate(lines) if FLUSHED.search(line)]
    missing = []
    for request_id in request_ids:
        arrived = min(n for n, line in enumerate(lines) if request_id in line and RECEIVED.search(line))
        answered = min(
            n
            for n, line in enumerate(lines)
            if request_id in line and SENT.search(line) and "HTTP/1.1 200" in line
        )
        if not any(arrived < flush < answered for flush in flushes):
            missing.append(request_id)
    return missing, len(flushes)


@pytest.mark.parametrize("workers", [1, 2])
def test_each_answered_check_in_was_flushed_to_disk_before_its_answer(tmp_path, workers):
    strace_or_skip()
    data_dir, trace_file = tmp_path / "data", tmp_path / "trace"
    meetup, headers = prepared_database(data_dir, None, range(1, CHECK_INS + 1))
    command = [STRACE, "-f", "-y", "-s", "4096", "-o", trace_file]
    command += ["-e", "trace=fdatasync,fsync,read,recvfrom,recvmsg,write,writev,sendto,sendmsg"]
    command += [DOORAPP, "serve", "--workers", workers, "--port", "0", "--data-dir", data_dir]
    with served(*command, env={"DOOR_SECRET_KEY": SECRET}) as traced:
        request_ids = check_in_one_by_one(traced.url, meetup, headers)
        (door,) = children(traced.process.pid)  # strace's child: `doorapp serve`
        os.kill(door, signal.SIGTERM)
        assert traced.process.wait(timeout=30) == 0  # strace ends when Door has, its file written
    served_by = {line.split("doorapp[")[1].split("]")[0] for line in traced.log if "/checkin 200" in line}
    assert len(served_by) == workers, traced.log  # with two workers, each answered some
    missing, flushes = unflushed(trace_file.read_text(errors="replace"), request_ids)
    assert missing == [], f"answered before their commit was flushed: {missing}"
    assert flushes >= CHECK_INS


def test_each_commit_on_postgresql_waits_for_its_wal_flush_whatever_the_database_says(postgres, tmp_path):
    url = postgres.database(postgres.template)
    data_dir = tmp_path / "data"
    meetup, headers = prepared_database(data_dir, url, range(1, CHECK_INS + 1))
    name = url.rsplit("/", 1)[1]
    postgres.sql(f"ALTER DATABASE {name} SET synchronous_commit = off")  # a default a host might set
    with served(
        DOORAPP, "serve", "--port", "0", "--data-dir", data_dir,
        env={"DATABASE_URL": url, "DOOR_SECRET_KEY": SECRET},
    ) as door:  # fmt: skip
        before = wal_syncs(url)
        check_in_one_by_one(door.url, meetup, headers)
        assert door.stop() == 0  # its connections end: their backends report what they did
    after = wal_syncs(url)
    postgres.drop(url)
    # synchronous_commit=off would leave the flushes to the WAL writer: one every 200 ms at most
    assert after - before >= CHECK_INS, (before, after)


def wal_syncs(url):
    """How many times PostgreSQL has flushed its write-ahead log to disk (pg_stat_wal): the whole server's,
    as its backends have reported them (at the latest when they end)."""
    with psycopg.connect(url, autocommit=True) as connection:
        return connection.execute("SELECT wal_sync FROM pg_stat_wal").fetchone()[0]
