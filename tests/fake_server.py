"""What the fake platforms (fake_platform.py, fake_meetup.py) share: an HTTP server on a real socket
(127.0.0.1, an ephemeral port) in a thread of its own, the calls it was asked, and faults by kind of call.

A fake sets KINDS and FAULTS and passes its handler class; its handler asks `fake.fault_for(kind, seen)`,
which holds a "stall" until release(), and closes the connection for a "drop" itself.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STALL_LIMIT = 30.0  # a stalled answer waits for release() at most this long


class FakeServer:
    KINDS = ()
    FAULTS = ()
    path = ""  # of the API below the server's address

    def __init__(self, handler):
        self.faults = {}  # kind -> (fault, normal answers before it, times, the fault after those times)
        self.requests = []  # (kind, what the call asked) in arrival order
        self.stalled = 0  # answers being held right now
        self._lock = threading.Condition()
        self._release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def api_url(self):
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.path}"

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self._thread.start()

    def stop(self):
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def fail(self, kind, fault, after=0, times=None, then=None):
        """Answer calls of `kind` with `fault` from now on, after `after` more normal answers (`times`
        calls only, then normal answers again, or the fault `then` until healed; None: until healed)."""
        assert kind in self.KINDS and {fault, then} - {None} <= set(self.FAULTS), (kind, fault, then)
        if "stall" in (fault, then):
            self._release.clear()
        self.faults[kind] = (fault, after, times, then)

    def heal(self):
        self.faults.clear()
        self.release()

    def release(self):
        """Let every held answer go on (with the real data)."""
        self._release.set()

    def wait_stalled(self, count=1, timeout=10.0):
        """Block until `count` answers are being held; False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self.stalled >= count, timeout)

    def calls(self, kind):
        """What every call of `kind` asked, in arrival order."""
        return [seen for k, seen in self.requests if k == kind]

    def fault_for(self, kind, seen):
        """Note the call; the fault to answer it with (None for a normal answer), after any stall."""
        with self._lock:
            self.requests.append((kind, seen))
            fault, after, times, then = self.faults.get(kind, (None, 0, None, None))
            if fault and after:
                self.faults[kind] = (fault, after - 1, times, then)
                fault = None
            elif fault and times is not None:
                self.faults[kind] = (fault, 0, times - 1, then) if times > 1 else (then, 0, None, None)
        if fault == "stall":
            self._stall()
        return fault

    def _stall(self):
        with self._lock:
            self.stalled += 1
            self._lock.notify_all()
        self._release.wait(STALL_LIMIT)
        with self._lock:
            self.stalled -= 1


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

    def log_message(self, *args):
        pass

    def _send(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:  # the client gave up (a timeout test): nothing to answer
            self.close_connection = True
