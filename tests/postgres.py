"""A PostgreSQL server of the test session's own: Debian's binaries, a temporary folder, 127.0.0.1 on a free
port, run as `nobody` when the tests run as root (PostgreSQL refuses root). Each test gets a fresh database
copied from a migrated template."""

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile

SCHEMES = ("postgresql://", "postgres://")
BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
# Door's durability (API: a 2xx is on disk) holds on PostgreSQL only with fsync and synchronous_commit on,
# its defaults: the tests run with them too, as Door's users do.
SETTINGS = "-c listen_addresses=127.0.0.1 -c max_connections=200"


def missing():
    """Why the PostgreSQL half cannot run here, or None."""
    if not BINARIES:
        return "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl; apt-get install postgresql)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]')"
    return None


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, settings=SETTINGS):
        self.settings = settings
        self.bin = os.path.dirname(BINARIES[-1])
        self.folder = tempfile.mkdtemp(prefix="door-postgres-")
        self.data, self.port = os.path.join(self.folder, "data"), free_port()
        self.as_user = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "nobody")
            self.as_user = ["runuser", "-u", "nobody", "--"]
        self.run("initdb", "-D", self.data, "-U", "door", "--auth=trust", "--encoding=UTF8", "--no-sync")
        self.start()
        self.names = itertools.count(1)
        self.url = f"postgresql://door@127.0.0.1:{self.port}"

    def start(self):
        self.run(
            "pg_ctl",
            "-D",
            self.data,
            "-l",
            os.path.join(self.folder, "log"),
            "-w",
            "-o",
            f"-p {self.port} -k {self.folder} {self.settings}",
            "start",
        )

    def restart(self):
        """Stop the server as an administrator would (every connection cut) and start it again."""
        self.run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        self.start()

    def run(self, program, *args):
        subprocess.run(
            [*self.as_user, os.path.join(self.bin, program), *args],
            check=True,
            capture_output=True,
            cwd=self.folder,
            timeout=60,
        )

    def sql(self, statement):
        import psycopg

        with psycopg.connect(f"{self.url}/postgres", autocommit=True) as connection:
            connection.execute(statement)

    def database(self, template="template1"):
        """A new empty database (a copy of `template`); its URL."""
        name = f"door_{next(self.names)}"
        self.sql(f"CREATE DATABASE {name} TEMPLATE {template}")
        return f"{self.url}/{name}"

    def drop(self, url):
        self.sql(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def stop(self):
        self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
