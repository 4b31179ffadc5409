"""waitress as Door runs it; `doorapp serve`, the tests and the benchmarks make their server here."""

import copy
import ctypes
import json
import time

import waitress
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import BaseWSGIServer
from waitress.task import ErrorTask

from doorapp.errors import code_for_status, problem
from doorapp.plugin import MAX_BODY
from doorapp.uploads import MAX_UPLOAD_BODY, UPLOAD_PATH


class ProblemTask(ErrorTask):
    """An error waitress answers itself (a malformed request, a body over the limit, headers too large)
    as the problem+json every other error is, instead of waitress's text/plain."""

    def execute(self):
        error = self.request.error
        detail = error.body or error.reason
        body = json.dumps(problem(error.code, code_for_status(error.code), detail)).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend(
            [
                ("Content-Type", "application/problem+json"),
                ("Cache-Control", "no-store"),
                ("X-Content-Type-Options", "nosniff"),
            ]
        )
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class Parser(HTTPRequestParser):
    """Every body is refused past MAX_BODY by its Content-Length, as its headers arrive, except an import's
    file (uploads.UPLOAD_PATH), which may be up to MAX_UPLOAD_BODY."""

    def parse_header(self, header_plus):
        super().parse_header(header_plus)
        if self.command == "POST" and UPLOAD_PATH.fullmatch(self.path):
            self.adj = copy.copy(self.adj)
            self.adj.max_request_body_size = MAX_UPLOAD_BODY + 1


class Channel(HTTPChannel):
    error_task_class = ProblemTask
    parser_class = Parser


def return_large_blocks():
    """glibc: keep serving blocks of 128 KiB and more (a door list of 2,000 is 600 KB as JSON, and waitress
    copies each answer) from mmap, given back to the system when freed. By default glibc raises that
    threshold after the first such block is freed, and later ones stay in each thread's heap: under 16
    clients reading the plain list a server's peak memory was 144 MB, 87 MB with this."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)  # the process's C library; macOS's has none
    if mallopt is not None:
        mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD


def create_server(app, host=None, port=None, sockets=None):
    """The server on `host`:`port`, or on the listening `sockets` (a worker of `serve --workers`).
    X-Forwarded-For reaches the app, which believes it only from DOOR_TRUSTED_PROXIES
    (access.client_address); waitress would otherwise delete it, and every client behind a proxy would share
    the proxy's rate limits. A body over Door's limit is refused when its headers arrive, before waitress
    would spool it (up to 1 GiB) to disk."""
    return_large_blocks()
    where = {"sockets": sockets} if sockets else {"host": host, "port": port}
    server = waitress.create_server(
        app,
        **where,
        threads=8,
        ident="door",
        clear_untrusted_proxy_headers=False,
        max_request_body_size=MAX_BODY + 1,
    )
    for listener in getattr(server, "map", {0: server}).values():  # a MultiSocketServer has one per address
        if hasattr(listener, "channel_class"):
            listener.channel_class = Channel
    return server


def run(server, stop):
    """Serve until `stop` (a threading.Event that SIGTERM and Ctrl-C set) is set, then drain(). Not
    waitress's run(): an interrupt raised into its loop may land between reading a request and queueing
    it, and its shutdown drops requests read but not yet started."""
    connections = getattr(server, "map", None) or server._map  # a MultiSocketServer's, or the server's
    while not stop.is_set():
        wasyncore.loop(timeout=0.2, use_poll=server.adj.asyncore_use_poll, map=connections, count=1)
    drain(server, connections)


def drain(server, connections, timeout=8):
    """Stop accepting (the port refuses connections, which a balancer sends to another machine), answer
    every request already read or being read, for at most `timeout` seconds, then close everything: a
    rolling restart loses no request a machine had taken."""
    for listener in [d for d in list(connections.values()) if isinstance(d, BaseWSGIServer)]:
        for _ in range(listener.adj.backlog):  # the connections the system accepted for us are ours
            count = len(connections)
            listener.handle_accept()
            if len(connections) == count:
                break
        wasyncore.dispatcher.close(listener)  # its socket only: the loop's trigger stays
    deadline = time.monotonic() + timeout
    while any(busy(c, time.time()) for c in list(connections.values())) and time.monotonic() < deadline:
        wasyncore.loop(timeout=0.05, use_poll=server.adj.asyncore_use_poll, map=connections, count=1)
    server.task_dispatcher.shutdown(timeout=max(0.0, deadline - time.monotonic()))
    wasyncore.close_all(connections)


def busy(connection, now, quiet=0.5):
    """A client's connection with a request being read, waiting, running, or an answer still to send; or
    one that was opened or used less than `quiet` seconds ago, whose next request's first bytes may not
    have been read yet (a balancer's connection, accepted just before the port closed)."""
    return isinstance(connection, HTTPChannel) and bool(
        connection.requests
        or connection.request is not None
        or connection.total_outbufs_len
        or now - connection.last_activity < quiet
    )
