"""A fake Meetup.com GraphQL API on a real socket (127.0.0.1, an ephemeral port) that runs every query it
receives against Meetup's published schema (meetup_schema.json, a copy of it) with
graphql-core: a query Meetup would refuse is refused here too, with Meetup's GRAPHQL_VALIDATION_FAILED, and
an answer has exactly the fields the query asked for. The data behind it: groups, members, events with paged
RSVP lists; and faults.

    with FakeMeetup() as fake:
        fake.add_group("night-owls")
        fake.add_member(1, "Alice", "alice", groups=["night-owls"])
        url = fake.add_event("night-owls", "301", "Summer social", "2026-12-05T21:00:00+01:00", [1])
        fake.fail("event", "rate_limited")    # kinds: KINDS; faults: FAULTS
        config = fake.configure(config)       # PLATFORM=meetup pointed at this fake

Like Meetup, it answers errors as HTTP 200 with an `errors` array, wants `Authorization: Bearer <token>`
(401 otherwise), gives only YES and ATTENDED RSVPs unless the filter asks for more, and caps a page at
`page_cap` RSVPs whatever `first` asks, so a client must follow `pageInfo`.
"""

import json
from dataclasses import replace
from pathlib import Path

from fake_server import FakeHandler, FakeServer
from graphql import GraphQLError, build_client_schema, execute, parse, validate

SCHEMA = build_client_schema(json.loads((Path(__file__).parent / "meetup_schema.json").read_text()))
OPERATIONS = {"DoorEvent": "event", "DoorMembers": "members", "DoorPing": "ping"}  # name -> kind of call
DEFAULT_STATUSES = ("YES", "ATTENDED")
PATH = "/gql-ext"


def refused(query):
    """Meetup's errors for a query its schema does not accept (none when it does)."""
    try:
        errors = validate(SCHEMA, parse(query))
    except GraphQLError as error:
        errors = [error]
    return [{"message": e.message, "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}} for e in errors]


class FakeMeetup(FakeServer):
    KINDS = tuple(OPERATIONS.values())  # calls(kind) gives the variables of each
    FAULTS = (
        "500",
        "401",
        "garbage",
        "shape",
        "errors",
        "rate_limited",
        "not_found",
        "null",
        "loop",
        "stall",
        "drop",
    )
    path = PATH
    web_url = "https://www.meetup.com"
    token = "fake-meetup-token"

    def __init__(self):
        super().__init__(_handler(self))
        self.members = {}  # id -> {"id": "<digits>", "name", "username"}
        self.groups = {}  # urlname -> {"timezone", "members": set of ids}
        self.events = {}  # id -> {"title", "dateTime", "group", "rsvps": [(member id, status, updated)]}
        self.page_cap = 50  # the most RSVPs one page holds

    def configure(self, config, timeout=2.0):
        """`config` with PLATFORM=meetup pointed at this fake."""
        return replace(
            config,
            platform="meetup",
            platform_api_url=self.api_url,
            platform_web_url=self.web_url,
            platform_timeout=timeout,
            meetup_token=self.token,
        )

    # --- the community ------------------------------------------------------------------------------

    def add_group(self, urlname, timezone="Europe/Madrid"):
        self.groups[urlname] = {"timezone": timezone, "members": set()}

    def add_member(self, member_id, name, username=None, groups=()):
        self.members[member_id] = {"id": str(member_id), "name": name, "username": username}
        for group in groups:
            self.groups[group]["members"].add(member_id)

    def add_event(self, group, event_id, title, date_time, rsvps=()):
        """An event of `group`; `rsvps` are member ids (YES) or (member id, status[, updated[, guests]])
        tuples."""
        self.events[event_id] = {"title": title, "dateTime": date_time, "group": group, "rsvps": []}
        self.set_rsvps(event_id, rsvps)
        return f"{self.web_url}/{group}/events/{event_id}/"

    def set_rsvps(self, event_id, rsvps):
        entries = []
        for n, rsvp in enumerate(rsvps):
            member_id, status, *more = rsvp if isinstance(rsvp, tuple) else (rsvp, "YES")
            updated = more[0] if more else f"2026-11-20T10:{n % 60:02d}:00+01:00"
            entries.append((member_id, status, updated, more[1] if len(more) > 1 else 0))
        self.events[event_id]["rsvps"] = entries

    # --- answers: root values the schema's fields are read from (a callable is a field with arguments) ---

    def root(self, fault):
        return {
            "event": lambda info, id: self._event(id, fault),
            "groupByUrlname": lambda info, urlname: self._group(urlname, fault),
            "self": None if fault == "null" else {"id": "1"},
        }

    def _event(self, event_id, fault):
        found = self.events.get(event_id)
        if found is None or fault == "null":
            return None
        return {
            "title": found["title"],
            "dateTime": found["dateTime"],
            "eventUrl": f"{self.web_url}/{found['group']}/events/{event_id}/",
            "group": {"urlname": found["group"], "timezone": self.groups[found["group"]]["timezone"]},
            "rsvps": lambda info, first=20, after=None, filter=None, sort=None: self._rsvps(
                found, first, after, filter, fault
            ),
        }

    def _rsvps(self, found, first, after, filter, fault):
        statuses = set((filter or {}).get("rsvpStatus") or DEFAULT_STATUSES)
        listed = [r for r in found["rsvps"] if r[1] in statuses]
        start = int(after.removeprefix("cursor-")) if after else 0
        size = min(first, self.page_cap)
        page = listed[start : start + size]
        more = start + size < len(listed) or fault == "loop"
        cursor = after if fault == "loop" else f"cursor-{start + size}"  # a loop's cursor never moves
        return {
            "pageInfo": {"hasNextPage": more, "endCursor": cursor if more else None},
            "edges": [
                {
                    "node": {
                        "id": f"rsvp-{member_id}",
                        "status": status,
                        "updated": updated,
                        "guestsCount": guests,
                        "member": self.members.get(member_id),
                    }
                }
                for member_id, status, updated, guests in page
            ],
        }

    def _group(self, urlname, fault):
        group = self.groups.get(urlname)
        if group is None or fault == "null":
            return None

        def memberships(info, first=None, after=None, filter=None, sort=None):
            wanted = (filter or {}).get("memberIds") or []
            found = [self.members[i] for i in wanted if i in group["members"]][:first]
            return {"edges": [{"node": m} for m in found]}

        return {"urlname": urlname, "timezone": group["timezone"], "memberships": memberships}


ERRORS = {
    "errors": {"message": "Something went wrong", "extensions": {"code": "INTERNAL_SERVER_ERROR"}},
    "rate_limited": {
        "message": "Too many requests, please try again shortly.",
        "extensions": {"code": "RATE_LIMITED", "consumedPoints": 500, "resetAt": "2026-12-05T20:01:00Z"},
    },
    "not_found": {"message": "Not found", "extensions": {"code": "NOT_FOUND"}},
}


class Handler(FakeHandler):
    fake = None  # the fake platform it answers for (_handler binds it)

    def do_POST(self):
        payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path != PATH:
            return self._send(404, {"message": "no such endpoint"})
        name, query = payload.get("operationName"), payload.get("query") or ""
        variables = payload.get("variables") or {}
        errors = refused(query)
        if errors or name not in OPERATIONS:
            return self._send(200, {"errors": errors or [{"message": f"Unknown operation {name}"}]})
        fault = self.fake.fault_for(OPERATIONS[name], variables)
        if fault == "drop":
            self.close_connection = True
            return
        if self.headers.get("Authorization") != f"Bearer {self.fake.token}" or fault == "401":
            return self._send(401, {"errors": [{"message": "Unauthorized"}]})
        if fault == "500":
            return self._send(500, {"message": "internal"})
        if fault == "garbage":
            return self._send(200, b"<html>Bad gateway, said the proxy</html>", "text/html")
        if fault == "shape":
            return self._send(200, {"data": ["not", "an", "object"]})
        if fault in ERRORS:
            return self._send(200, {"errors": [ERRORS[fault]], "data": None})
        result = execute(
            SCHEMA,
            parse(query),
            root_value=self.fake.root(fault),
            variable_values=variables,
            operation_name=name,
        )
        answer = {"data": result.data}
        if result.errors:
            answer["errors"] = [{"message": e.message, "path": e.path} for e in result.errors]
        self._send(200, answer)


def _handler(fake):
    return type("BoundHandler", (Handler,), {"fake": fake})
