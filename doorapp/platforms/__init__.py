"""The external platform behind one small interface (PLATFORM.md); the adapter is chosen by PLATFORM.

Every adapter offers `name`, `web_url`, `example_urls()`, `event_url(url)`, `event(url)`,
`profile(username)`, `profiles(ids)` and `health()`, and fails only with PLATFORM.md's errors:
404 `platform_user_not_found` / `platform_event_not_found`, 502 `platform_error`, 504 `platform_unreachable`.
"""

import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlsplit

from doorapp.errors import ApiError, validation_error

PROBE_INTERVAL = 5.0   # seconds between reachability probes (API.md Health)
FIRST_PROBE_WAIT = 0.5  # how long the very first /health waits for a probe before saying "unknown"
ERRORS = ("platform_user_not_found", "platform_event_not_found", "platform_error", "platform_unreachable")
_PART = r"[A-Za-z0-9_-]+"
_EVENT_PATH = re.compile(rf"/(\+?)({_PART})/({_PART})/?")


@dataclass(frozen=True)
class Profile:
    platform_user_id: int
    username: str
    displayname: str


@dataclass(frozen=True)
class Rsvp:
    platform_user_id: int
    joined_at: datetime | None  # naive UTC


@dataclass(frozen=True)
class Event:
    title: str
    date: datetime  # naive UTC
    rsvps: tuple    # of Rsvp, one per user, in the platform's order


def user_not_found(username):
    return ApiError(404, "platform_user_not_found", f"The platform has no user named {username!r}.")


def event_not_found(url):
    return ApiError(404, "platform_event_not_found", f"The platform has no event at {url}.")


def platform_error(what):
    return ApiError(502, "platform_error", f"The platform answered with {what}; try again later.")


def unreachable(what):
    return ApiError(504, "platform_unreachable",
                    f"The platform could not be reached ({what}); try again later.")


def parse_time(value):
    """An ISO 8601 timestamp from the platform as naive UTC; 502 when it is not one."""
    if not isinstance(value, str):
        raise platform_error("a date that is not text")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise platform_error(f"a date it cannot read ({value[:40]!r})") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment


class Platform:
    """What every adapter shares: event-URL parsing against `web_url`, and a cached health probe."""
    name = ""
    web_url = ""

    def __init__(self):
        self._health_lock = threading.Lock()
        self._health = None        # the last probe's answer
        self._probed_at = None     # time.monotonic() of the last probe's start
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
        if (parts.scheme.lower() not in ("http", "https") or parts.netloc.lower() != web.netloc.lower()
                or not parts.path.startswith(prefix + "/")):
            return None
        return parts.path[len(prefix):]

    def event_ref(self, url):
        """(normalised URL, community, thread) of an event URL of this platform; 422 for anything else."""
        path = self.web_path(url)
        if path is None:
            raise bad_url(f"Must be an event URL on {self.web_url}.")
        match = _EVENT_PATH.fullmatch(path)
        if not match:
            raise bad_url(f"Must be an event URL like {self.web_url.rstrip('/')}/community/event.")
        community, thread = match.group(2), match.group(3)
        return f"{self.web_url.rstrip('/')}/{community}/{thread}", community, thread

    def event_url(self, url):
        """The normalised event URL (API.md: no `+`, trailing slash, query or fragment; case kept)."""
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
        return self._health or {"status": "unknown", "latency_ms": None,
                                "message": "the first reachability check is still under way"}

    def _run_probe(self):
        started = time.perf_counter()
        try:
            message = self.probe()
            answer = {"status": "healthy", "latency_ms": round((time.perf_counter() - started) * 1000, 2),
                      "message": message}
        except ApiError as error:
            answer = {"status": "unhealthy", "latency_ms": None, "message": error.detail}
        with self._health_lock:
            self._health, self._probing = answer, False
        self._first_probe.set()

    def probe(self):
        """Check reachability once: return a short message, or raise the adapter's ApiError."""
        raise NotImplementedError


def bad_url(message):
    """422 for a `platform_url` that is not an event URL of the platform."""
    return validation_error([(("body", "platform_url"), message)])


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
