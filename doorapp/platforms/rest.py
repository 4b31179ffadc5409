"""`rest`: the community-platform REST protocol (docs/platforms.md), over one requests Session
(HttpPlatform)."""

from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

import requests

from doorapp.bodies import INT64
from doorapp.platforms import (
    Event,
    HttpPlatform,
    Profile,
    Rsvp,
    event_not_found,
    parse_time,
    platform_error,
    unreachable,
    user_not_found,
)

BATCH = 30  # ids per GET /users?ids= (the protocol's limit)
WORKERS = 4  # profile batches fetched at once


class RestPlatform(HttpPlatform):
    name = "rest"

    def __init__(self, config):
        super().__init__(config)
        if not config.platform_api_url or not config.platform_web_url:
            raise SystemExit("PLATFORM=rest needs PLATFORM_API_URL and PLATFORM_WEB_URL.")
        self.api_url = config.platform_api_url.rstrip("/")
        self.web_url = config.platform_web_url.rstrip("/")

    def profile(self, username):
        if username in (".", ".."):  # would be read as a path step, not a name
            raise user_not_found(username)
        data = self._get(f"/users/{quote(username, safe='')}", errors={404: user_not_found(username)})
        return _profile(data)

    def profiles(self, ids):
        ids = list(dict.fromkeys(ids))
        batches = [ids[i : i + BATCH] for i in range(0, len(ids), BATCH)]
        if len(batches) <= 1:
            return self._batch(batches[0]) if batches else {}
        found, pool = {}, ThreadPoolExecutor(min(WORKERS, len(batches)), thread_name_prefix="platform")
        try:
            for answer in pool.map(self._batch, batches):  # re-raises the first failed batch's ApiError
                found.update(answer)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)  # after a failure, batches not yet sent never are
        return found

    def _batch(self, ids):
        data = self._get("/users", params={"ids": ",".join(map(str, ids))})
        if not isinstance(data, dict):
            raise platform_error("a profile list that is not an object")
        wanted = set(ids)
        profiles = [_profile(value) for value in data.values()]
        return {p.platform_user_id: p for p in profiles if p.platform_user_id in wanted}

    def event(self, url):
        normalised, community, thread = self.stored_event_ref(url)
        path = f"/communities/{community}/threads/{thread}"
        data = self._get(path, errors={404: event_not_found(normalised)})
        if not isinstance(data, dict):
            raise platform_error("a thread that is not an object")
        event = data.get("event")
        if event is None:
            raise event_not_found(normalised)  # a thread without an event is not an event
        if not isinstance(event, dict) or not isinstance(data.get("title", ""), str):
            raise platform_error("an event it cannot read")
        rsvps = event.get("rsvps") or {}
        if isinstance(rsvps, dict):
            rsvps = list(rsvps.values())
        if not isinstance(rsvps, list):
            raise platform_error("an RSVP list it cannot read")
        title = (data.get("title") or "").strip() or thread
        return Event(title, parse_time(event.get("date")), _rsvps(rsvps))

    def probe(self):
        """HEAD {api}/: any answer below 500 means up."""
        try:
            reply = self.session.head(self.api_url + "/", timeout=self.timeout, allow_redirects=False)
        except requests.Timeout:
            raise unreachable(f"no answer within {self.timeout:g} s") from None
        except requests.RequestException as error:
            raise unreachable(type(error).__name__) from None
        if reply.status_code >= 500:
            raise platform_error(f"HTTP {reply.status_code}")
        return f"HTTP {reply.status_code}"

    def _get(self, path, params=None, errors=None):
        """The JSON answer of GET {api}{path} (HttpPlatform.call)."""
        return self.call("GET", self.api_url + path, params=params, errors=errors)


def _user_id(value):
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not INT64[0] <= value <= INT64[1]:
        raise platform_error("a user id that is not a 64-bit number")
    return value


def _profile(data):
    if not isinstance(data, dict) or not isinstance(data.get("username"), str) or not data["username"]:
        raise platform_error("a profile it cannot read")
    displayname = data.get("displayname") or ""
    if not isinstance(displayname, str):
        raise platform_error("a display name that is not text")
    return Profile(_user_id(data.get("id")), data["username"][:255], displayname[:255])


def _rsvps(items):
    """One Rsvp per user (the first), in the platform's order."""
    seen = {}
    for item in items:
        if not isinstance(item, dict):
            raise platform_error("an RSVP it cannot read")
        user_id = _user_id(item.get("userId"))
        joined = item.get("joinedAt")
        if user_id not in seen:
            seen[user_id] = Rsvp(user_id, None if joined is None else parse_time(joined))
    return tuple(seen.values())
