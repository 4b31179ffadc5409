"""`meetup`: Meetup.com's GraphQL API (docs/platforms.md), over one requests Session.

Settings: MEETUP_TOKEN (required: an OAuth access token of a Meetup Pro organizer, sent as
`Authorization: Bearer`), PLATFORM_API_URL (default https://api.meetup.com/gql-ext) and PLATFORM_WEB_URL
(default https://www.meetup.com).

What works, and how:
- Events: `{web}/{group}/events/{event id}`, optionally after a locale segment (`/es-ES/`), with or without a
  trailing slash, query or fragment; any other host is 422. Stored as `{web}/{group}/events/{event id}`.
  `event(id)` gives the title and start; its RSVPs are read page by page (asking PAGE a page and following
  `pageInfo` to the end, at most MAX_PAGES pages) with the statuses YES, WAITLIST and ATTENDED (Meetup
  leaves WAITLIST out unless asked). A WAITLIST RSVP is kept as waitlisted (not expected at the door) and
  `guestsCount` as the guests a member brings. Meetup keeps no RSVP creation time, so an RSVP's time is its
  `updated`: a member who changed their answer shows the time of the change. An RSVP without a member is
  left out.
- Every query in QUERIES validates against Meetup's published schema (tests/meetup_schema.json, a test).
- Members: ids are digit strings, kept as 64-bit integers. The display name is the member's name; a member
  without a username gets their id as username, which never changes.
- Guests (`POST /guests/`): Meetup has no lookup of a member by username, so a guest is registered by member
  id or profile URL (`{web}/members/{id}/`, locale segment allowed). The member is taken from the RSVP lists
  this process has read (the last REMEMBERED members), else looked up with
  `groupByUrlname { memberships(filter: {memberIds}) }` (Int ids, as the schema says) in the groups of the
  meetups Door knows (every org's, newest meetup first, at most MAX_GROUPS groups, one call each). Anyone
  else is 404 platform_user_not_found, as is any other text.
- Profiles for a sync come from the RSVP list the sync has just read; any the list did not carry are looked
  up in the groups as above (missing ones are left out, so the sync skips them).
- Errors: a status other than 200, a body that is not a JSON object, or an `errors` array is 502
  platform_error (errors that all say NOT_FOUND are read as the thing being absent); a null event is 404
  platform_event_not_found; connection failures and timeouts are 504. RATE_LIMITED is retried after
  RETRY_WAIT, doubling, while PLATFORM_TIMEOUT allows, then is a 502 that says so (also when the timeout
  cuts a retry short). Every call, retries included, is bounded by PLATFORM_TIMEOUT as a whole; a sync
  makes one call per page.
- Health: `query { self { id } }`, which also shows when Meetup no longer accepts the token.

Not done: the token is not refreshed (when it expires every call is 502 until MEETUP_TOKEN is renewed) and
Meetup's point budget is not tracked.
"""

import re
import threading
import time
from collections import OrderedDict

from doorapp.bodies import INT64
from doorapp.errors import ApiError
from doorapp.platforms import Event, HttpPlatform, Profile, Rsvp, event_not_found, parse_time, platform_error

API_URL = "https://api.meetup.com/gql-ext"
WEB_URL = "https://www.meetup.com"
STATUSES = ["YES", "WAITLIST", "ATTENDED"]
PAGE = 200  # RSVPs (or member ids) asked for a call
MAX_PAGES = 500  # 100,000 RSVPs: past that the event is not one a door can check in
MAX_GROUPS = 20  # groups asked for a member, newest meetup first
REMEMBERED = 50_000  # members kept from the RSVP lists read
RETRY_WAIT = 0.1  # seconds before the first retry of a RATE_LIMITED answer; doubled each time
_GROUP = r"[A-Za-z0-9_-]+"
_LOCALE = r"(?:/[A-Za-z]{2}(?:-[A-Za-z]{2})?)?"
_EVENT_PATH = re.compile(rf"{_LOCALE}/({_GROUP})/events/([A-Za-z0-9]+)/?")
_MEMBER_PATH = re.compile(rf"{_LOCALE}/members/([0-9]{{1,19}})/?")

QUERIES = {
    "DoorEvent": """query DoorEvent($id: ID!, $first: Int!, $after: String, $statuses: [RsvpStatus!]) {
  event(id: $id) {
    title dateTime eventUrl group { urlname timezone }
    rsvps(first: $first, after: $after, filter: {rsvpStatus: $statuses}) {
      pageInfo { hasNextPage endCursor }
      edges { node { id status updated guestsCount member { id name username } } }
    }
  }
}""",
    "DoorMembers": """query DoorMembers($urlname: String!, $ids: [Int!], $first: Int!) {
  groupByUrlname(urlname: $urlname) {
    memberships(first: $first, filter: {memberIds: $ids}) { edges { node { id name username } } }
  }
}""",
    "DoorPing": "query DoorPing { self { id } }",
}


class MeetupPlatform(HttpPlatform):
    name = "meetup"
    guest_lookup = "member_id"  # Meetup finds a member by id or profile URL, not by a username
    event_path = _EVENT_PATH
    event_form = "{web}/{0}/events/{1}"
    event_example = "a Meetup event URL like {web}/group-name/events/123456789/"

    def __init__(self, config):
        super().__init__(config, {"Authorization": f"Bearer {config.meetup_token}"})
        if not config.meetup_token:
            raise SystemExit(
                "PLATFORM=meetup needs MEETUP_TOKEN (the OAuth access token of a Meetup Pro organizer)."
            )
        self.api_url = config.platform_api_url or API_URL
        self.web_url = (config.platform_web_url or WEB_URL).rstrip("/")
        self._lock = threading.Lock()
        self._members = OrderedDict()  # id -> Profile, the REMEMBERED last seen on RSVP lists
        self._groups_seen = {}  # lower-case urlname -> urlname, of events read

    # --- URLs ----------------------------------------------------------------------------------------

    def member_ref(self, text):
        """The member id given as digits or as a profile URL; 404 for anything else."""
        text = text.strip()
        if re.fullmatch(r"[0-9]{1,19}", text):
            member_id = int(text)
        else:
            match = _MEMBER_PATH.fullmatch(self.web_path(text) or "")
            if not match:
                raise ApiError(
                    404,
                    "platform_user_not_found",
                    f"Meetup cannot look a member up by name: give the member id or profile URL "
                    f"(like {self.web_url}/members/123456789/).",
                )
            member_id = int(match.group(1))
        if not 0 < member_id <= INT64[1]:
            raise _no_member(member_id)
        return member_id

    # --- the interface ---------------------------------------------------------------------------------

    def event(self, url):
        normalised, group, event_id = self.stored_event_ref(url)
        head, rsvps, members, after = None, {}, {}, None
        for _ in range(MAX_PAGES):
            data = self._query("DoorEvent", id=event_id, first=PAGE, after=after, statuses=STATUSES)
            event = data.get("event")
            if event is None:
                raise event_not_found(normalised)
            if not isinstance(event, dict):
                raise platform_error("an event it cannot read")
            head = head or self._event_head(event, event_id)
            edges, after = _connection(event.get("rsvps"), after)
            for node in edges:
                _add_rsvp(node, rsvps, members)
            if after is None:
                break
        else:
            raise platform_error(f"more than {MAX_PAGES} pages of RSVPs")
        self._remember(members.values())
        return Event(head[0], head[1], tuple(rsvps.values()))

    def profile(self, username):
        member_id = self.member_ref(username)
        found = self._remembered([member_id]) or self._look_up([member_id])
        if member_id not in found:
            raise _no_member(member_id)
        return found[member_id]

    def profiles(self, ids):
        ids = list(dict.fromkeys(ids))
        found = self._remembered(ids)
        missing = [i for i in ids if i not in found]
        if missing:
            found.update(self._look_up(missing))
        return found

    def probe(self):
        """`query { self { id } }`: reachable, and the token still accepted."""
        if not isinstance(self._query("DoorPing").get("self"), dict):
            raise platform_error("no member for MEETUP_TOKEN")
        return "HTTP 200, token accepted"

    # --- members ----------------------------------------------------------------------------------------

    def _remember(self, profiles):
        with self._lock:
            for profile in profiles:
                self._members[profile.platform_user_id] = profile
                self._members.move_to_end(profile.platform_user_id)
            while len(self._members) > REMEMBERED:
                self._members.popitem(last=False)

    def _remembered(self, ids):
        with self._lock:
            return {i: self._members[i] for i in ids if i in self._members}

    def _groups(self):
        """The urlnames of the groups to ask for members: of Door's newest meetups, then of events read,
        spelled as Meetup spells them when an event of theirs was read."""
        from doorapp.models import Meetup  # the adapter loads before the database is bound

        groups = {}
        for (url,) in Meetup.newest_urls(MAX_GROUPS * 50):
            match = _EVENT_PATH.fullmatch(self.web_path(url) or "")
            if match:
                groups.setdefault(match.group(1).lower(), match.group(1))
        with self._lock:
            groups.update(self._groups_seen)
        return list(groups.values())[:MAX_GROUPS]

    def _look_up(self, ids):
        """{id: Profile} of the members among `ids` found in the groups of _groups()."""
        found = {}
        for group in self._groups():
            missing = [i for i in ids if i not in found]
            for chunk in (missing[n : n + PAGE] for n in range(0, len(missing), PAGE)):
                data = self._query("DoorMembers", urlname=group, ids=chunk, first=len(chunk))
                if data.get("groupByUrlname") is None:
                    break  # no such group any more (renamed or deleted)
                if not isinstance(data["groupByUrlname"], dict):
                    raise platform_error("a group it cannot read")
                edges, _ = _connection(data["groupByUrlname"].get("memberships"), None, paged=False)
                profiles = [_profile(_node(edge, "a member")) for edge in edges]
                found.update((p.platform_user_id, p) for p in profiles if p.platform_user_id in chunk)
        self._remember(found.values())
        return found

    def _event_head(self, event, event_id):
        """(title, start) of the event's first page; notes its group for member look-ups."""
        group = event.get("group")
        urlname = group.get("urlname") if isinstance(group, dict) else None
        if isinstance(urlname, str) and re.fullmatch(_GROUP, urlname):
            with self._lock:
                self._groups_seen.setdefault(urlname.lower(), urlname)
        title = event.get("title")
        if title is not None and not isinstance(title, str):
            raise platform_error("a title that is not text")
        return (title or "").strip() or event_id, parse_time(event.get("dateTime"))

    # --- the wire -----------------------------------------------------------------------------------------

    def _query(self, name, **variables):
        """The `data` of one GraphQL query, or the platform's 502/504; retries of a RATE_LIMITED answer
        included, never longer than the timeout (a retry the timeout cuts short is still RATE_LIMITED's
        502)."""
        payload = {"operationName": name, "query": QUERIES[name], "variables": variables}
        refusals = {s: _refused(s) for s in (401, 403)}
        deadline, wait, answer = time.monotonic() + self.timeout, RETRY_WAIT, None
        while True:
            left = max(deadline - time.monotonic(), 0.001)
            try:
                answer = self.call("POST", self.api_url, json=payload, timeout=left, errors=refusals)
            except ApiError as error:
                if answer is None or error.status != 504:
                    raise
                break  # a retry the deadline cut short: Meetup's last word, RATE_LIMITED, is the answer
            if not isinstance(answer, dict):
                raise platform_error("an answer that is not an object")
            if not _rate_limited(answer.get("errors")) or time.monotonic() + wait >= deadline:
                break
            time.sleep(wait)
            wait *= 2
        absent = _check_errors(answer.get("errors"))
        data = answer.get("data")
        if data is None and absent:
            return {}
        if not isinstance(data, dict):
            raise platform_error("an answer without data")
        return data


def _codes(errors):
    extensions = [e.get("extensions") if isinstance(e, dict) else None for e in errors]
    return [e.get("code") if isinstance(e, dict) else None for e in extensions]


def _rate_limited(errors):
    """Whether Meetup's `errors` say it wants fewer requests for now."""
    return isinstance(errors, list) and "RATE_LIMITED" in _codes(errors)


def _check_errors(errors):
    """Raise the 502 for a GraphQL `errors` array; True when every error only says NOT_FOUND."""
    if not errors:
        return False
    if not isinstance(errors, list) or not all(isinstance(e, dict) for e in errors):
        raise platform_error("an error list it cannot read")
    codes = _codes(errors)
    if "RATE_LIMITED" in codes:
        raise ApiError(
            502,
            "platform_error",
            "Meetup is still refusing more requests after retrying "
            "(RATE_LIMITED); wait a minute, then try again.",
        )
    if all(code == "NOT_FOUND" for code in codes):
        return True
    message = errors[0].get("message")
    message = message[:200] if isinstance(message, str) else "no message"
    raise platform_error(f"an error ({codes[0] or 'no code'}: {message})")


def _connection(value, after, paged=True):
    """(edges, next cursor or None) of a GraphQL connection; 502 when it cannot be read or would not move."""
    edges = value.get("edges") if isinstance(value, dict) else None
    if not isinstance(edges, list):
        raise platform_error("a list it cannot read")
    if not paged:
        return edges, None
    info = value.get("pageInfo")
    if not isinstance(info, dict):
        raise platform_error("a page without pageInfo")
    if not info.get("hasNextPage"):
        return edges, None
    cursor = info.get("endCursor")
    if not isinstance(cursor, str) or not cursor or cursor == after:
        raise platform_error("a next page it cannot reach")
    return edges, cursor


def _add_rsvp(edge, rsvps, members):
    """Add an RSVP edge of a wanted status to `rsvps` (the first per member) and its member to `members`."""
    node = _node(edge, "an RSVP")
    status = node.get("status")
    if not isinstance(status, str) or status.upper() not in STATUSES or node.get("member") is None:
        return
    profile = _profile(node["member"])
    updated, guests = node.get("updated"), node.get("guestsCount") or 0
    if not isinstance(guests, int) or isinstance(guests, bool) or not 0 <= guests <= 1000:
        raise platform_error("a guest count that is not a small number")
    if profile.platform_user_id not in rsvps:
        rsvps[profile.platform_user_id] = Rsvp(
            profile.platform_user_id,
            None if updated is None else parse_time(updated),
            waitlisted=status.upper() == "WAITLIST",
            guests=guests,
        )
    members[profile.platform_user_id] = profile


def _node(edge, what):
    node = edge.get("node") if isinstance(edge, dict) else None
    if not isinstance(node, dict):
        raise platform_error(f"{what} it cannot read")
    return node


def _profile(node):
    """The Profile of a member: the name as display name, the id as username when it has none."""
    if not isinstance(node, dict):
        raise platform_error("a member it cannot read")
    member_id, name, username = _member_id(node.get("id")), node.get("name") or "", node.get("username") or ""
    if not isinstance(name, str) or not isinstance(username, str):
        raise platform_error("a member name that is not text")
    return Profile(member_id, (username.strip() or str(member_id))[:255], name.strip()[:255])


def _member_id(value):
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19:
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= INT64[1]:
        raise platform_error("a member id that is not a 64-bit number")
    return value


def _refused(status):
    return ApiError(
        502,
        "platform_error",
        f"Meetup refused MEETUP_TOKEN (HTTP {status}): it has expired or been revoked; set a new one.",
    )


def _no_member(member_id):
    return ApiError(
        404,
        "platform_user_not_found",
        f"No Meetup group of this Door's meetups has a member "
        f"{member_id}; a member is found in the groups of the meetups created here.",
    )
