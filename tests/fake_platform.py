"""A fake community platform speaking the `rest` protocol (docs/platforms.md) on a real socket (127.0.0.1, an
ephemeral port), driven by the tests and by bench/sync: users, events, RSVP lists, and faults.

    with FakePlatform() as fake:
        fake.add_user(1, "alice", "Alice")
        fake.add_event("night-owls", "summer-social", "Summer social", "2026-12-05T20:00:00Z", [1])
        fake.fail("thread", "stall")          # kinds: user, users, thread, head; faults: FAULTS
        config = fake.configure(config)       # PLATFORM=rest pointed at this fake
"""

import contextlib
from dataclasses import replace
from urllib.parse import parse_qs, unquote, urlsplit

from fake_server import FakeHandler, FakeServer

API_PREFIX = "/api/v1"
MAX_IDS = 30  # at most 30 ids a call; more is answered 400, so batching is checked


class FakePlatform(FakeServer):
    KINDS = ("user", "users", "thread", "head")  # calls(kind) gives the path with query of each
    FAULTS = ("404", "500", "garbage", "shape", "stall", "drop")
    path = API_PREFIX
    web_url = "https://community.test"

    def __init__(self):
        super().__init__(_handler(self))
        self.users = {}  # id -> {"id", "username", "displayname"}
        self.threads = {}  # (community, thread) -> the thread's JSON

    def configure(self, config, timeout=2.0):
        """`config` with PLATFORM=rest pointed at this fake."""
        return replace(
            config,
            platform="rest",
            platform_api_url=self.api_url,
            platform_web_url=self.web_url,
            platform_timeout=timeout,
        )

    # --- the community ------------------------------------------------------------------------------

    def add_user(self, user_id, username, displayname=""):
        self.users[user_id] = {"id": user_id, "username": username, "displayname": displayname}

    def add_event(self, community, thread, title, date, rsvps=(), joined_at="2026-11-20T10:00:00Z"):
        """An event thread; `rsvps` is a list of user ids or of (user id, joinedAt) pairs."""
        self.threads[(community, thread)] = {
            "id": len(self.threads) + 1,
            "title": title,
            "event": {"date": date, "rsvps": {}},
        }
        self.set_rsvps(community, thread, rsvps, joined_at)
        return f"{self.web_url}/{community}/{thread}"

    def add_thread(self, community, thread, title):
        """A discussion thread: no `event` object, so not an event."""
        self.threads[(community, thread)] = {"id": len(self.threads) + 1, "title": title}

    def set_rsvps(self, community, thread, rsvps, joined_at="2026-11-20T10:00:00Z"):
        pairs = [r if isinstance(r, tuple) else (r, joined_at) for r in rsvps]
        self.threads[(community, thread)]["event"]["rsvps"] = {
            str(n): {"userId": user_id, "joinedAt": joined} for n, (user_id, joined) in enumerate(pairs)
        }


class Handler(FakeHandler):
    fake = None  # the fake platform it answers for (_handler binds it)

    def do_HEAD(self):
        self._answer("head", lambda: (200, {}))

    def do_GET(self):
        url = urlsplit(self.path)
        path = url.path.removeprefix(API_PREFIX) if url.path.startswith(API_PREFIX + "/") else None
        parts = (path or "").strip("/").split("/")
        if path == "/users":
            self._answer("users", lambda: self._profiles(parse_qs(url.query).get("ids", [""])[0]))
        elif len(parts) == 2 and parts[0] == "users":
            self._answer("user", lambda: self._profile(unquote(parts[1])))
        elif len(parts) == 4 and parts[0] == "communities" and parts[2] == "threads":
            self._answer("thread", lambda: self._thread(parts[1], parts[3]))
        else:
            self._send(404, {"error": "no such endpoint"})

    def _answer(self, kind, real):
        fault = self.fake.fault_for(kind, self.path)
        if fault == "drop":
            self.close_connection = True
            return
        status, body = real()
        if fault == "404":
            status, body = 404, {"error": "not found"}
        elif fault == "500":
            status, body = 500, {"error": "internal"}
        elif fault == "shape":
            body = ["not", "the", "expected", "shape"]
        if fault == "garbage":
            self._send(status, b"<html>Bad gateway, said the proxy</html>", "text/html")
        else:
            self._send(status, body)

    def _profile(self, username):
        found = [u for u in self.fake.users.values() if u["username"] == username]
        return (200, found[0]) if found else (404, {"error": "no such user"})

    def _profiles(self, ids):
        wanted = [int(i) for i in ids.split(",") if i.strip()]
        if not wanted or len(wanted) > MAX_IDS:
            return 400, {"error": f"between 1 and {MAX_IDS} ids"}
        return 200, {str(i): self.fake.users[i] for i in wanted if i in self.fake.users}

    def _thread(self, community, thread):
        found = self.fake.threads.get((community, thread))
        return (200, found) if found else (404, {"error": "no such thread"})


def _handler(fake):
    return type("BoundHandler", (Handler,), {"fake": fake})


def main():
    """Serve a sample community until Ctrl-C, for trying Door with PLATFORM=rest by hand:
    `python tests/fake_platform.py [--rsvps 40]` prints the settings to start Door with."""
    import argparse
    import signal

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--rsvps", type=int, default=40)
    args = parser.parse_args()
    with FakePlatform() as fake:
        for n in range(1, args.rsvps + 6):
            fake.add_user(2**53 + n, f"member{n}", f"Member Nº {n}")
        url = fake.add_event(
            "night-owls",
            "summer-social",
            "Summer social",
            "2026-12-05T20:00:00Z",
            [2**53 + n for n in range(1, args.rsvps + 1)],
        )
        print(f"PLATFORM=rest PLATFORM_API_URL={fake.api_url} PLATFORM_WEB_URL={fake.web_url}", flush=True)
        print(f"Event: {url}  (members member1..member{args.rsvps + 5})", flush=True)
        signal.signal(signal.SIGTERM, _interrupt)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
