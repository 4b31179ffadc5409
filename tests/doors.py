"""Door as a bigger group runs it, for tests of races: `doorapp serve --workers N` processes on one port,
`doorapp create-admin`, and requests sent at the same moment, each on a connection of its own (so the
kernel hands them to either process). Only the command line and HTTP: nothing of Door is imported."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import requests
from helpers import DOORAPP, Served, door_env

SECRET = "races-signing-key-that-is-long-enough-for-hs256"
PASSWORD = "a long enough password for races"
SERVED_BY = re.compile(r"\[(\d+)\] \S+ ([A-Z]+) (\S+) \d{3}$")  # "doorapp[pid] request-id POST /path 201"


def environment(data_dir, database_url, **settings):
    """A clean environment (helpers.door_env) with a signing key, the data folder, the database and
    `settings`."""
    database = {"DATABASE_URL": database_url} if database_url else {}
    return door_env(DOOR_SECRET_KEY=SECRET, DOOR_DATA_DIR=str(data_dir), **database, **settings)


def doorapp(env, *args, stdin=None):
    """Run a doorapp command to its end; the CompletedProcess."""
    return subprocess.run([DOORAPP, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60)


class Door(Served):
    """`doorapp serve --workers N --port 0` until stop(); `url`, the lines it printed and its log."""

    def __init__(self, env, workers=2):
        self.count, self.env = workers, env
        super().__init__([DOORAPP, "serve", "--workers", str(workers), "--port", "0"], env)

    def process_of(self, request_id):
        """The id of the process whose access log has `request_id`; None while it is not written yet."""
        for _ in range(100):
            for line in list(self.log):
                if f"] {request_id} " in line:
                    return int(line.split("[", 1)[1].split("]", 1)[0])
            time.sleep(0.02)
        return None

    def sessions(self, count):
        """`count` kept-alive connections, half to each of two processes (taken in turn), each opened by a
        /ping whose request id the log ties to the process that accepted it."""
        by_process, opened, half = {}, 0, (count + 1) // 2
        while len([group for group in by_process.values() if len(group) >= half]) < 2:
            assert opened < 20 * count, f"the kernel gave every connection to {set(by_process)}"
            session, request_id = requests.Session(), uuid.uuid4().hex
            assert session.get(f"{self.url}/ping", headers={"X-Request-ID": request_id}, timeout=30).ok
            by_process.setdefault(self.process_of(request_id), []).append(session)
            opened += 1
        first, second = [group for group in by_process.values() if len(group) >= half][:2]
        return [(first, second)[i % 2][i // 2] for i in range(count)]

    def workers(self):
        """The ids of the worker processes (children of the one started), from /proc."""
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
                if int(parent) == self.process.pid and state != "Z":  # a killed one not yet reaped: gone
                    found.append(int(stat.parent.name))
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
        return found

    def replace_worker(self):
        """Kill a worker and wait for `serve` to fork its replacement (while its chores run)."""
        killed = self.running_workers()[0]
        os.kill(killed, signal.SIGKILL)
        self.running_workers(without=killed)

    def running_workers(self, without=None):
        """The workers' ids once all `count` of them run (serve prints its address before it forks them),
        none of them `without`."""
        for _ in range(150):
            running = self.workers()
            if len(running) == self.count and without not in running:
                return running
            time.sleep(0.1)
        raise AssertionError(f"{self.count} workers (without {without}) never ran: {self.workers()}")

    def stop(self, signum=signal.SIGTERM):
        """Stop it (killed after 15 s); its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()


@contextmanager
def cpu_load(seconds=30):
    """Two processes that keep the CPUs busy (as a CI run beside Door does) for at most `seconds`."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    timer = threading.Timer(seconds, lambda: [b.kill() for b in burners])
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        for burner in burners:
            burner.kill()
            burner.wait()


def sign_in(url, username, password=PASSWORD, **headers):
    reply = requests.post(
        f"{url}/auth/token", data={"username": username, "password": password}, headers=headers, timeout=30
    )
    assert reply.status_code == 200, reply.text
    return {"Authorization": f"Bearer {reply.json()['access_token']}"}


def statuses(replies):
    """{status: how many} of `replies`, after checking that no answer is a 5xx."""
    errors = [(r.status_code, r.text) for r in replies if r.status_code >= 500]
    assert not errors, errors
    counted = {}
    for reply in replies:
        counted[reply.status_code] = counted.get(reply.status_code, 0) + 1
    return counted


def codes(replies, status):
    return {r.json()["code"] for r in replies if r.status_code == status}
