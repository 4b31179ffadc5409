"""waitress as Door runs it; `doorapp serve`, the tests and the benchmarks make their server here."""

import copy
import ctypes
import json
import select
import socket
import struct
import sys
import time
from collections import Counter
from functools import partial
from urllib.parse import quote

import jwt
import waitress
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError, crack_first_line
from waitress.server import BaseWSGIServer
from waitress.task import ErrorTask
from waitress.utilities import Error, RequestEntityTooLarge

from doorapp.errors import LOGGED_SAFE, code_for_status, log, problem
from doorapp.plugin import MAX_BODY
from doorapp.uploads import MAX_UPLOAD_BODY, UPLOAD_PATH


class ProblemTask(ErrorTask):
    """An error waitress answers itself (a malformed request, a body over the limit, headers too large)
    as the problem+json every other error is, instead of waitress's text/plain."""

    def execute(self):
        error = self.request.error
        detail = error.body or error.reason
        code = getattr(error, "problem", None) or code_for_status(error.code)
        body = json.dumps(problem(error.code, code, detail)).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend(
            [
                ("Content-Type", "application/problem+json"),
                ("Cache-Control", "no-store"),
                ("X-Content-Type-Options", "nosniff"),
                *([("Retry-After", "1")] if error.code in (429, 503) else []),
                *([("WWW-Authenticate", "Bearer")] if error.code == 401 else []),
            ]
        )
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)
        command, uri = first_line(self.request)
        path = quote(uri.split("?", 1)[0].encode("latin-1", "replace"), safe=LOGGED_SAFE) if uri else "-"
        log.info("- %s %s %s", command or "-", path, error.code)  # as app.py logs the app's answers


def first_line(request):
    """(method, URI) of a request, as far as they have arrived: ("", "") before its first line has."""
    if getattr(request, "command", ""):
        return request.command, request.request_uri
    line = request.header_plus.partition(b"\r\n")[0] if b"\r\n" in request.header_plus else b""
    try:
        method, uri, _ = crack_first_line(line.lstrip())
    except ParsingError:
        return "", ""
    return method.decode("latin-1"), uri.decode("latin-1")


class Unauthenticated(Error):
    code, reason, problem = 401, "Unauthorized", "not_authenticated"


class KeyNotRead(Error):
    code, reason, problem = 503, "Service Unavailable", "service_unavailable"


class Parser(HTTPRequestParser):
    """Every body is refused past MAX_BODY by its Content-Length, as its headers arrive, except an import's
    file (uploads.UPLOAD_PATH), which may be up to MAX_UPLOAD_BODY when its token is signed by this Door's
    key (`signed`, set per server by create_server): a stranger's upload is refused (401) before its body
    is read, not spooled to disk first. Whether the token's account may import is the app's to say."""

    signed = staticmethod(lambda token: UNSIGNED)
    refusal = None  # why an upload past MAX_BODY is refused: its token is not signed (UNSIGNED, NEW_KEY)

    def parse_header(self, header_plus):
        super().parse_header(header_plus)
        if self.command == "POST" and UPLOAD_PATH.fullmatch(self.path):
            scheme, _, token = self.headers.get("AUTHORIZATION", "").partition(" ")
            found = self.signed(token.strip()) if scheme.lower() == "bearer" else UNSIGNED
            if found == SIGNED:
                self.adj = copy.copy(self.adj)
                self.adj.max_request_body_size = MAX_UPLOAD_BODY + 1
            else:
                self.refusal = found

    def received(self, data):
        consumed = super().received(data)
        if self.refusal and isinstance(self.error, RequestEntityTooLarge):
            limit = MAX_BODY // 1024
            self.error = (
                Unauthenticated(f"Sign in first: a file over {limit} KiB needs Authorization: Bearer.")
                if self.refusal == UNSIGNED
                # a key another machine rotated to, which this process reads at the token's next request
                else KeyNotRead("Door is taking up its new signing key; send the file again in a moment.")
            )
        return consumed


SIGNED, UNSIGNED, NEW_KEY = "signed", "unsigned", "new key"


def signed_by(keys, token):
    """SIGNED when `token` is a JWT this process's key signed, not expired (the rest is the app's); NEW_KEY
    when it names another key (another machine rotated it: this one reads it at its next request with
    the token, in a thread of its own); else UNSIGNED."""
    try:
        jwt.decode(token, keys.secret, algorithms=["HS256"], options={"require": ["sub", "exp"]})
    except jwt.InvalidSignatureError:
        kid = jwt.get_unverified_header(token).get("kid")
        return NEW_KEY if kid is not None and kid != keys.kid else UNSIGNED
    except jwt.InvalidTokenError:
        return UNSIGNED
    return SIGNED


IDLE = 10  # seconds a connection with no request under way is kept; a door polls every second
PIPELINE = 8  # requests that may wait on one connection: 8 of the biggest answer stay below waitress's
# outbuf_high_watermark (16 MB), so a thread never waits for a client to read
_full_since = [0.0]  # when make_room last said in the log that the server is full


class RequestTimeout(Error):
    code, reason = 408, "Request Timeout"


class TooManyPipelined(Error):
    code, reason = 429, "Too Many Requests"


class Channel(HTTPChannel):
    """A connection. A request must arrive whole within `server.request_timeout` seconds of its first byte,
    else it is answered 408 and the connection closed; its answers must be read within as long of the
    first being ready, else the connection is reset (a thread never waits on a client that does not
    read); at most PIPELINE requests wait on it; and a new connection that finds the server full closes a
    waiting one (make_room), so slow or idle connections never keep new ones out."""

    error_task_class = ProblemTask
    parser_class = Parser
    began = 0.0  # when the request now arriving sent its first byte
    sending_since = 0.0  # when the answers now waiting to be sent began to wait (0: none waits)

    def __init__(self, server, sock, addr, adj, map=None):
        super().__init__(server, sock, addr, adj, map)
        if len(map) >= adj.connection_limit:  # waitress would stop accepting: the next one must get in
            make_room(map, self)

    def received(self, data):
        if self.request is None:
            self.began = time.time()
        taken = super().received(data)
        if len(self.requests) > PIPELINE:
            self.refuse_pipelined()
        return taken

    def refuse_pipelined(self):
        """Answer the first PIPELINE requests, then 429 (ProblemTask, which closes), and drop the rest."""
        with self.requests_lock:
            for extra in self.requests[PIPELINE:]:
                extra.close()
            refusal = self.parser_class(self.adj)
            refusal.version = self.requests[0].version
            refusal.error = TooManyPipelined(
                f"At most {PIPELINE} requests may wait on one connection; send the next ones as their"
                " answers arrive."
            )
            self.requests[PIPELINE:] = [refusal]
            if self.request is not None:
                self.request.close()
                self.request = None

    def write_soon(self, data):
        if data and not self.total_outbufs_len:
            self.sending_since = time.time()
        return super().write_soon(data)

    def _flush_some(self, do_close=True):
        sent = super()._flush_some(do_close)
        if not self.total_outbufs_len:
            self.sending_since = 0.0
        return sent

    def readable(self):  # the loop asks every channel at least once a second (asyncore_loop_timeout)
        now, deadline = time.time(), self.server.request_timeout
        if self.total_outbufs_len and self.sending_since and now - self.sending_since > deadline:
            self.reset()
            return False
        if self.request is not None and not self.requests and self.waiting() > deadline:
            self.time_out()
        return super().readable()

    def reset(self):
        """Close a connection whose client has not read its answers by the deadline: at once, dropping
        what the system still holds for it (a reset), which wakes a thread waiting to write to it."""
        if self.socket is not None:
            linger = struct.pack("HH" if sys.platform == "win32" else "ii", 1, 0)  # on, 0 s
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        self.handle_close()

    def waiting(self):
        """Seconds since this connection last got anywhere: its request's first byte, or its last exchange."""
        return time.time() - (self.began if self.request is not None else self.last_activity)

    def time_out(self):
        """Answer the request still arriving with 408 (ProblemTask) and close, as waitress answers one it
        cannot read; here in the loop, as waitress sends a 100 Continue: a few hundred bytes that must not
        wait behind the requests queued for the threads."""
        with self.requests_lock:
            late = self.parser_class(self.adj)
            late.version = self.request.version
            late.command, late.request_uri = first_line(self.request)
            late.error = RequestTimeout(
                f"The request did not arrive whole within {self.server.request_timeout} seconds of its first"
                " byte."
            )
            self.request.close()
            self.request = None
            self.requests.append(late)
        self.service()


def make_room(map, newcomer):
    """The server holds as many connections as it may: close the one waiting longest with no request being
    served and no answer being sent, of the address holding the most such. A slow sender's request never
    completes and an idle connection does nothing, so they go first; a phone's request takes milliseconds.
    Every address being one (a reverse proxy), the longest waiting goes."""
    waiting = [
        channel
        for channel in map.values()
        if isinstance(channel, HTTPChannel)
        and channel is not newcomer
        and not (channel.requests or channel.total_outbufs_len)
    ]
    if waiting:
        crowded = Counter(channel.addr[0] for channel in waiting).most_common(1)[0][0]
        max((c for c in waiting if c.addr[0] == crowded), key=Channel.waiting).handle_close()
    if time.time() - _full_since[0] > 600:  # said once, then every 10 minutes while it goes on
        _full_since[0] = time.time()
        log.warning(
            "%d connections open, as many as DOOR_CONNECTIONS allows: each new one closes the one waiting"
            " longest (slow or idle clients, perhaps an attack)",
            len(map),
        )


def return_large_blocks():
    """glibc: keep serving blocks of 128 KiB and more (a door list of 2,000 is 600 KB as JSON, and waitress
    copies each answer) from mmap, given back to the system when freed. By default glibc raises that
    threshold after the first such block is freed, and later ones stay in each thread's heap: under 16
    clients reading the plain list a server's peak memory was 144 MB, 87 MB with this."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)  # the process's C library; macOS's has none
    if mallopt is not None:
        mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD


def connection_limit(wanted):
    """How many connections this process can hold: `wanted`, within the open-file limit (raised towards
    its hard limit where there is one: macOS starts programs with 256) less room for the database, logs and
    spooled bodies; and where waitress falls back to select() (Windows), within its 512 sockets."""
    try:
        import resource
    except ImportError:  # Windows
        return min(wanted, 500)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted + 100:
        soft = wanted + 100 if hard == resource.RLIM_INFINITY else min(hard, wanted + 100)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    limit = max(10, min(wanted, soft - 100)) if soft != resource.RLIM_INFINITY else wanted
    return limit if hasattr(select, "poll") else min(limit, 500)


def create_server(app, host=None, port=None, sockets=None):
    """The server on `host`:`port`, or on the listening `sockets` (a worker of `serve --workers`).
    X-Forwarded-For reaches the app, which believes it only from DOOR_TRUSTED_PROXIES
    (access.client_address); waitress would otherwise delete it, and every client behind a proxy would share
    the proxy's rate limits. A body over Door's limit is refused when its headers arrive, before waitress
    would spool it (up to 1 GiB) to disk.
    Slow senders (SECURITY.md): up to DOOR_CONNECTIONS connections, watched with poll() (select() stops at
    1,024), a request's deadline (Channel), idle connections closed after IDLE seconds, and a full server
    closing a waiting connection for each new one (make_room)."""
    return_large_blocks()
    config = app.config["door.config"]
    if config.request_timeout < 1 or config.connections < 10:
        raise SystemExit("DOOR_REQUEST_TIMEOUT must be 1 or more, and DOOR_CONNECTIONS 10 or more.")
    where = {"sockets": sockets} if sockets else {"host": host, "port": port}
    server = waitress.create_server(
        app,
        **where,
        threads=8,
        ident="door",
        clear_untrusted_proxy_headers=False,
        max_request_body_size=MAX_BODY + 1,
        connection_limit=connection_limit(config.connections),
        channel_timeout=IDLE,
        cleanup_interval=1,
        asyncore_use_poll=True,
    )
    parser = type("Parser", (Parser,), {"signed": staticmethod(partial(signed_by, app.config["door.keys"]))})
    channel = type("Channel", (Channel,), {"parser_class": parser})
    for listener in getattr(server, "map", {0: server}).values():  # a MultiSocketServer has one per address
        if hasattr(listener, "channel_class"):
            listener.channel_class = channel
            listener.request_timeout = config.request_timeout
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
