"""The external platform behind one small interface (docs/platforms.md); the adapter is chosen by PLATFORM.

Every adapter offers `name`, `web_url`, `example_urls()`, `event_url(url)`, `event(url)`,
`profile(username)`, `profiles(ids)` and `health()`, and fails only with these errors:
404 `platform_user_not_found` / `platform_event_not_found`, 502 `platform_error`, 504 `platform_unreachable`.
"""

import json
import re
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter

from doorapp.errors import ApiError, invalid, validation_error

PROBE_INTERVAL = 5.0  # seconds between reachability probes (/health)
FIRST_PROBE_WAIT = 0.5  # how long the very first /health waits for a probe before saying "unknown"
ERRORS = ("platform_user_not_found", "platform_event_not_found", "platform_error", "platform_unreachable")
MAX_BODY = 32 << 20  # an answer larger than this is not one we can use
_PART = r"[A-Za-z0-9_-]+"


@dataclass(frozen=True)
class Profile:
    platform_user_id: int
    username: str
    displayname: str


@dataclass(frozen=True)
class Rsvp:
    platform_user_id: int
    joined_at: datetime | None  # naive UTC
    waitlisted: bool = False  # on the platform's waiting list: not expected at the door
    guests: int = 0  # people the member brings along ("+2")


@dataclass(frozen=True)
class Event:
    title: str
    date: datetime  # naive UTC
    rsvps: tuple  # of Rsvp, one per user, in the platform's order


def user_not_found(username):
    return ApiError(404, "platform_user_not_found", f"The platform has no user named {username!r}.")


def event_not_found(url):
    return ApiError(404, "platform_event_not_found", f"The platform has no event at {url}.")


def platform_error(what):
    return ApiError(502, "platform_error", f"The platform answered with {what}; try again later.")


def unreachable(what):
    return ApiError(
        504, "platform_unreachable", f"The platform could not be reached ({what}); try again later."
    )


def parse_time(value):
    """An ISO 8601 timestamp from the platform as naive UTC; 502 when it is not one."""
    if not isinstance(value, str):
        raise platform_error("a date that is not text")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise platform_error(f"a date it cannot read ({value[:40]!r})") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


class Platform:
    """What every adapter shares: event-URL parsing against `web_url`, and a cached health probe."""

    name = ""
    web_url = ""
    guest_lookup = "username"  # what the door asks a walk-in for: "username", or "member_id" (id or URL)
    event_path = re.compile(rf"/\+?({_PART})/({_PART})/?")  # below web_url: (community, thread)
    event_form = "{web}/{0}/{1}"  # the normalised URL of those two
    event_example = "an event URL like {web}/community/event"

    def __init__(self):
        self._health_lock = threading.Lock()
        self._health = None  # the last probe's answer
        self._probed_at = None  # time.monotonic() of the last probe's start
        self._probing = False
        self._first_probe = threading.Event()

    def example_urls(self):
        """Event URLs to paste when trying the service (the demo community's); empty for real platforms."""
        return []

    def web_path(self, url):
        """The path of `url` below `web_url` (http or https, the same host and port), or None for any other
        URL; the query and fragment are dropped."""
        try:
            parts, web = urlsplit(url.strip()), urlsplit(self.web_url)
        except ValueError:  # e.g. a broken IPv6 host
            return None
        prefix = web.path.rstrip("/")
        if (
            parts.scheme.lower() not in ("http", "https")
            or parts.netloc.lower() != web.netloc.lower()
            or not parts.path.startswith(prefix + "/")
        ):
            return None
        return parts.path[len(prefix) :]

    def event_ref(self, url):
        """(normalised URL, community, thread) of an event URL of this platform; 422 for anything else."""
        web, path = self.web_url.rstrip("/"), self.web_path(url)
        if path is None:
            raise bad_url(f"Must be an event URL on {self.web_url}.")
        match = self.event_path.fullmatch(path)
        if not match:
            raise bad_url(f"Must be {self.event_example.format(web=web)}.")
        return (self.event_form.format(*match.groups(), web=web), *match.groups())

    def event_url(self, url):
        """The normalised event URL (no `+`, trailing slash, query or fragment; case kept)."""
        return self.event_ref(url)[0]

    def stored_event_ref(self, url):
        """event_ref() of a URL stored earlier: one this platform does not own (PLATFORM changed since)
        is an event it does not have, 404."""
        try:
            return self.event_ref(url)
        except ApiError:
            raise event_not_found(url) from None

    def health(self):
        """{status, latency_ms, message} from the last probe; a new probe runs in the background when the
        last one is older than PROBE_INTERVAL, so this answers at once even when the platform hangs."""
        with self._health_lock:
            due = self._probed_at is None or time.monotonic() - self._probed_at >= PROBE_INTERVAL
            if due and not self._probing:
                self._probing, self._probed_at = True, time.monotonic()
                threading.Thread(target=self._run_probe, name=f"{self.name}-probe", daemon=True).start()
        if self._health is None:
            self._first_probe.wait(FIRST_PROBE_WAIT)
        return self._health or {
            "status": "unknown",
            "latency_ms": None,
            "message": "the first reachability check is still under way",
        }

    def _run_probe(self):
        started = time.perf_counter()
        try:
            message = self.probe()
            answer = {
                "status": "healthy",
                "latency_ms": round((time.perf_counter() - started) * 1000, 2),
                "message": message,
            }
        except ApiError as error:
            answer = {"status": "unhealthy", "latency_ms": None, "message": error.detail}
        with self._health_lock:
            self._health, self._probing = answer, False
        self._first_probe.set()

    def probe(self):
        """Check reachability once: return a short message, or raise the adapter's ApiError."""
        raise NotImplementedError


class HttpPlatform(Platform):
    """An adapter over HTTP: one requests Session, and calls bounded by PLATFORM_TIMEOUT as a whole
    (connect, wait and read), not only per socket read, so a platform that trickles its answer cannot hold
    a request longer than the timeout either."""

    def __init__(self, config, headers=None):
        super().__init__()
        self.timeout = float(config.platform_timeout)
        self.session = requests.Session()
        self.session.headers.update({"Accept": "application/json", **(headers or {})})
        self.session.mount("http://", HTTPAdapter(pool_maxsize=16))
        self.session.mount("https://", HTTPAdapter(pool_maxsize=16))

    def call(self, method, url, errors=None, timeout=None, **send):
        """The JSON answer of one call, or the platform's 502/504 (`errors`: the ApiError for a status
        other than 200 that means more than "HTTP n"); never longer than `timeout` (default: the setting)."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        try:
            reply = self.session.request(method, url, timeout=timeout, stream=True, **send)
            with reply:
                if reply.status_code in (errors or {}):
                    raise errors[reply.status_code]
                if reply.status_code != 200:
                    raise platform_error(f"HTTP {reply.status_code}")
                body = _read(reply, deadline)
        except requests.Timeout:
            raise unreachable(f"no answer within {timeout:g} s") from None
        except requests.RequestException as error:
            raise unreachable(type(error).__name__) from None
        try:
            return json.loads(body)
        except ValueError:
            raise platform_error("a body that is not JSON") from None


def _read(reply, deadline):
    chunks, size = [], 0
    for chunk in reply.iter_content(64 * 1024):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY:
            raise platform_error("an answer too large to read")
        if time.monotonic() > deadline:
            raise requests.Timeout()
    return b"".join(chunks)


def bad_url(message):
    """422 for a `platform_url` that is not an event URL of the platform."""
    return validation_error([invalid(("body", "platform_url"), "invalid", message, rule="event_url")])


def load(config):
    """The adapter named by config.platform; an unusable setting stops the service at start."""
    name = (config.platform or "demo").strip().lower()
    if name == "demo":
        from doorapp.platforms.demo import DemoPlatform

        return DemoPlatform()
    if name == "rest":
        from doorapp.platforms.rest import RestPlatform

        return RestPlatform(config)
    if name == "meetup":
        from doorapp.platforms.meetup import MeetupPlatform

        return MeetupPlatform(config)
    raise SystemExit(f"PLATFORM must be demo, rest or meetup, not {config.platform!r}.")
