"""nginx of a test's own: Debian's binary, unprivileged (as `nobody` when the tests run as root), in a
temporary folder of its own (configuration, certificate, logs, temporary files), on a loopback port, with
the `conf.d` file a test gives it. The test skips without nginx, except in CI (DOOR_REQUIRE_NGINX=1)."""

import os
import shutil
import socket
import subprocess
import tempfile
import time

from postgres import free_port

BINARY = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")
MAIN = """
pid {folder}/nginx.pid;
events {{ worker_connections 512; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/door.conf;
}}
"""


def missing():
    """Why nginx cannot run here, or None."""
    if not BINARY or not shutil.which("openssl"):
        return "nginx or openssl is not installed (apt-get install nginx openssl)"
    return None


class Nginx:
    """nginx on 127.0.0.1:`port` with `conf` (a file of conf.d) once start() returns; `certificate` and
    `key` are a self-signed pair for 127.0.0.1 that the configuration may name."""

    def __init__(self):
        self.folder, self.port = tempfile.mkdtemp(prefix="door-nginx-"), free_port()
        self.certificate, self.key = f"{self.folder}/cert.pem", f"{self.folder}/key.pem"
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
            ]
            + ["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", self.key, "-out", self.certificate],
            check=True,
            capture_output=True,
            timeout=60,
        )
        self.as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        self.process = None

    def start(self, conf):
        with open(f"{self.folder}/door.conf", "w") as file:
            file.write(conf)
        with open(f"{self.folder}/nginx.conf", "w") as file:
            file.write(MAIN.format(folder=self.folder))
        if self.as_user:
            for path in [self.folder, *(f"{self.folder}/{name}" for name in os.listdir(self.folder))]:
                shutil.chown(path, "nobody")
        self.process = subprocess.Popen(
            [*self.as_user, BINARY, "-p", self.folder, "-c", f"{self.folder}/nginx.conf"]
            + ["-e", f"{self.folder}/error.log", "-g", "daemon off;"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    raise AssertionError(f"nginx stopped: {self.process.stderr.read().decode()}") from None
                time.sleep(0.05)
        raise AssertionError(f"nginx did not listen on {self.port}: {self.errors()}")

    def errors(self):
        """nginx's error log so far."""
        with open(f"{self.folder}/error.log") as file:
            return file.read()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
