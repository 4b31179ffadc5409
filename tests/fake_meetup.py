"""A fake Meetup.com GraphQL API on a real socket (127.0.0.1, an ephemeral port), answering the queries of
doorapp/platforms/meetup.py by their operation name: groups, members, events with paged RSVP lists, faults.

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

from fake_server import FakeHandler, FakeServer

OPERATIONS = {"DoorEvent": "event", "DoorMembers": "members", "DoorPing": "ping"}  # name -> kind of call
NEEDS = {  # what each operation's query must ask for, so a query that drifts from the fields read fails
    "event": ("event(id: $id)", "title", "dateTime", "eventUrl", "urlname", "timezone",
              "rsvps(first: $first, after: $after, filter: {rsvpStatus: $statuses})", "hasNextPage",
              "endCursor", "status", "updated", "member { id name username }"),
    "members": ("groupByUrlname(urlname: $urlname)", "memberships(", "filter: {memberIds: $ids}",
                "node { id name username }"),
    "ping": ("self { id }",),
}
DEFAULT_STATUSES = ("YES", "ATTENDED")
PATH = "/gql-ext"


class FakeMeetup(FakeServer):
    KINDS = tuple(OPERATIONS.values())  # calls(kind) gives the variables of each
    FAULTS = ("500", "401", "garbage", "shape", "errors", "rate_limited", "not_found", "null", "loop",
              "stall", "drop")
    path = PATH
    web_url = "https://www.meetup.com"
    token = "fake-meetup-token"

    def __init__(self):
        super().__init__(_handler(self))
        self.members = {}   # id -> {"id": "<digits>", "name", "username"}
        self.groups = {}    # urlname -> {"timezone", "members": set of ids}
        self.events = {}    # id -> {"title", "dateTime", "group", "rsvps": [(member id, status, updated)]}
        self.page_cap = 50  # the most RSVPs one page holds

    def configure(self, config, timeout=2.0):
        """`config` with PLATFORM=meetup pointed at this fake."""
        return replace(config, platform="meetup", platform_api_url=self.api_url,
                       platform_web_url=self.web_url, platform_timeout=timeout, meetup_token=self.token)

    # --- the community ------------------------------------------------------------------------------

    def add_group(self, urlname, timezone="Europe/Madrid"):
        self.groups[urlname] = {"timezone": timezone, "members": set()}

    def add_member(self, member_id, name, username=None, groups=()):
        self.members[member_id] = {"id": str(member_id), "name": name, "username": username}
        for group in groups:
            self.groups[group]["members"].add(member_id)

    def add_event(self, group, event_id, title, date_time, rsvps=()):
        """An event of `group`; `rsvps` are member ids (YES) or (member id, status[, updated]) tuples."""
        self.events[event_id] = {"title": title, "dateTime": date_time, "group": group, "rsvps": []}
        self.set_rsvps(event_id, rsvps)
        return f"{self.web_url}/{group}/events/{event_id}/"

    def set_rsvps(self, event_id, rsvps):
        entries = []
        for n, rsvp in enumerate(rsvps):
            member_id, status, *updated = rsvp if isinstance(rsvp, tuple) else (rsvp, "YES")
            updated = updated[0] if updated else f"2026-11-20T10:{n % 60:02d}:00+01:00"
            entries.append((member_id, status, updated))
        self.events[event_id]["rsvps"] = entries

    # --- answers --------------------------------------------------------------------------------------

    def _event(self, variables, fault):
        found = self.events.get(variables.get("id"))
        if found is None or fault == "null":
            return {"event": None}
        statuses = set(variables.get("statuses") or DEFAULT_STATUSES)
        listed = [r for r in found["rsvps"] if r[1] in statuses]
        after = variables.get("after")
        start = int(after.removeprefix("cursor-")) if after else 0
        size = min(int(variables["first"]), self.page_cap)
        page = listed[start:start + size]
        more = start + size < len(listed) or fault == "loop"
        cursor = after if fault == "loop" else f"cursor-{start + size}"  # a loop's cursor never moves
        return {"event": {
            "title": found["title"], "dateTime": found["dateTime"],
            "eventUrl": f"{self.web_url}/{found['group']}/events/{variables['id']}/",
            "group": {"urlname": found["group"], "timezone": self.groups[found["group"]]["timezone"]},
            "rsvps": {"pageInfo": {"hasNextPage": more, "endCursor": cursor if more else None},
                      "edges": [{"node": {"id": f"rsvp-{member_id}", "status": status, "updated": updated,
                                          "member": self.members.get(member_id)}}
                                for member_id, status, updated in page]}}}

    def _ping(self, variables, fault):
        return {"self": None if fault == "null" else {"id": "1"}}

    def _members(self, variables, fault):
        group = self.groups.get(variables.get("urlname"))
        if group is None or fault == "null":
            return {"groupByUrlname": None}
        wanted = [int(i) for i in variables["ids"]]
        found = [self.members[i] for i in wanted if i in group["members"]][:int(variables["first"])]
        return {"groupByUrlname": {"memberships": {"edges": [{"node": m} for m in found]}}}


ERRORS = {
    "errors": {"message": "Something went wrong", "extensions": {"code": "INTERNAL_SERVER_ERROR"}},
    "rate_limited": {"message": "Too many requests, please try again shortly.",
                     "extensions": {"code": "RATE_LIMITED", "consumedPoints": 500,
                                    "resetAt": "2026-12-05T20:01:00Z"}},
    "not_found": {"message": "Not found", "extensions": {"code": "NOT_FOUND"}},
}


def _handler(fake):
    class Handler(FakeHandler):
        def do_POST(self):
            payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if self.path != PATH:
                return self._send(404, {"message": "no such endpoint"})
            kind = OPERATIONS.get(payload.get("operationName"))
            query, variables = payload.get("query") or "", payload.get("variables") or {}
            if kind is None or not all(part in query for part in NEEDS[kind]):
                return self._send(200, {"errors": [{"message": "Cannot query that",
                                                    "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}}]})
            fault = fake.fault_for(kind, variables)
            if fault == "drop":
                self.close_connection = True
                return
            if self.headers.get("Authorization") != f"Bearer {fake.token}" or fault == "401":
                return self._send(401, {"errors": [{"message": "Unauthorized"}]})
            if fault == "500":
                return self._send(500, {"message": "internal"})
            if fault == "garbage":
                return self._send(200, b"<html>Bad gateway, said the proxy</html>", "text/html")
            if fault == "shape":
                return self._send(200, {"data": ["not", "an", "object"]})
            if fault in ERRORS:
                return self._send(200, {"errors": [ERRORS[fault]], "data": None})
            answer = {"event": fake._event, "members": fake._members, "ping": fake._ping}[kind]
            self._send(200, {"data": answer(variables, fault)})
    return Handler
