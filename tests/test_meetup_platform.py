"""PLATFORM=meetup against the fake Meetup GraphQL API of tests/fake_meetup.py over a real socket: the
start-up settings, the event-URL table, creating and syncing meetups (RSVP lists over several pages),
registering guests by member id or profile URL, health, every platform call's answer to every fault
(docs/platforms.md), and the queries against Meetup's published schema (tests/meetup_schema.json)."""

import hashlib
import time
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import requests
from fake_meetup import SCHEMA, FakeMeetup, refused
from helpers import auth, create_meetup, events, meetup_csv

from doorapp import platforms
from doorapp.app import create_app
from doorapp.errors import ApiError
from doorapp.models import AuditEvent, Guest, Meetup, MeetupGuest, Org
from doorapp.platforms.meetup import QUERIES

WEB = "https://www.meetup.com"
MAX = 9223372036854775807
SUMMER = f"{WEB}/night-owls/events/301234567"
STATUSES = ["YES", "WAITLIST", "ATTENDED"]


@pytest.fixture
def fake_meetup():
    with FakeMeetup() as fake:
        yield fake


@pytest.fixture
def config(config, fake_meetup, platform_timeout):
    return fake_meetup.configure(config, timeout=platform_timeout)


@pytest.fixture
def fake(fake_meetup):
    """Two groups; Summer social (night-owls) has a YES, a WAITLIST, an ATTENDED and a NO; member 15 of
    Day-Larks is on no RSVP list."""
    fake_meetup.add_group("night-owls")
    fake_meetup.add_group("Day-Larks", timezone="America/New_York")
    fake_meetup.add_member(11, "Alice Ångström", "alice", groups=["night-owls"])
    fake_meetup.add_member(12, "Bob <b>", None, groups=["night-owls"])
    fake_meetup.add_member(MAX, "Max Int64", None, groups=["night-owls"])
    fake_meetup.add_member(14, "Nora", "nora", groups=["night-owls"])
    fake_meetup.add_member(15, "Walk In", None, groups=["Day-Larks"])
    fake_meetup.add_event(
        "night-owls",
        "301234567",
        "Summer social",
        "2026-12-05T21:00:00+01:00",
        [11, (12, "WAITLIST", "2026-11-21T09:30:00+01:00"), (MAX, "ATTENDED"), (14, "NO")],
    )
    return fake_meetup


def sync(door, org, meetup, status=200):
    return door.post(f"/organizations/{org.id}/meetups/{meetup['id']}/sync", status=status).json


def stored_meetup(org, url=SUMMER, date=datetime(2026, 12, 5, 20)):
    """A meetup written straight to the database: its group is one Door knows, and nothing was read yet."""
    return Meetup.create(org=org, name="x", date=date, platform_url=url)


# --- start-up ---------------------------------------------------------------------------------------


def test_the_platform_is_meetup_with_no_example_urls_and_asks_for_a_member_id(door, fake):
    assert door.get("/platform").json == {
        "adapter": "meetup",
        "web_url": WEB,
        "example_urls": [],
        "guest_lookup": "member_id",
    }


def test_meetup_without_a_token_stops_the_start(config):
    with pytest.raises(SystemExit, match="PLATFORM=meetup needs MEETUP_TOKEN"):
        create_app(replace(config, meetup_token=None))


def test_the_urls_default_to_meetup_com(config):
    adapter = platforms.load(replace(config, platform_api_url=None, platform_web_url=None))  # no call made
    assert (adapter.api_url, adapter.web_url) == ("https://api.meetup.com/gql-ext", "https://www.meetup.com")
    assert (
        adapter.event_url("https://www.meetup.com/fr-FR/owls/events/42/?x=1")
        == "https://www.meetup.com/owls/events/42"
    )


# --- the event-URL table ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, stored",
    [
        (f"{SUMMER}/", SUMMER),
        (SUMMER, SUMMER),
        (f"{WEB}/es-ES/night-owls/events/301234567/", SUMMER),
        (f"{WEB}/de-de/night-owls/events/301234567", SUMMER),
        (f"{SUMMER}/?utm_source=share&eventOrigin=group_events_list#rsvp", SUMMER),
        ("  HTTPS://WWW.Meetup.COM/night-owls/events/301234567/  ", SUMMER),
        ("http://www.meetup.com/night-owls/events/301234567/", SUMMER),
        (f"{WEB}/Night-Owls/events/301234567/", f"{WEB}/Night-Owls/events/301234567"),  # case is kept
    ],
)
def test_event_urls_are_normalised(door, org, fake, url, stored):
    assert create_meetup(door, org, url).json["platform_url"] == stored


@pytest.mark.parametrize(
    "url",
    [
        "https://meetup.com/night-owls/events/301234567/",  # another host
        "https://www.meetup.com.evil.test/night-owls/events/301234567/",
        "https://evil.test/night-owls/events/301234567/",
        "https://www.meetup.com:8443/night-owls/events/301234567/",
        f"{WEB}/night-owls/",
        f"{WEB}/night-owls/events/",
        f"{WEB}/night-owls/events/301234567/attendees/",
        f"{WEB}/night-owls/301234567/",
        f"{WEB}/members/11/",
        f"{WEB}/english/night-owls/events/301234567/",  # not a locale
        f"{WEB}/es-ES/fr-FR/night-owls/events/301234567/",
        f"{WEB}/night owls/events/301234567/",
        f"{WEB}/night-owls/events/3012-34567/",
        "ftp://www.meetup.com/night-owls/events/301234567/",
        "www.meetup.com/night-owls/events/301234567/",
        "https://[::1/night-owls/events/301234567/",  # not even a URL
        "summer social",
    ],
)
def test_anything_but_a_meetup_event_url_is_422(door, org, fake, url):
    reply = create_meetup(door, org, url, status=422).json
    assert reply["code"] == "validation_error" and reply["errors"][0]["loc"] == ["body", "platform_url"]
    assert fake.calls("event") == [] and Meetup.select().count() == 0


# --- meetups: create and sync ------------------------------------------------------------------------


def test_a_meetup_takes_the_events_title_and_start_in_utc(door, org, fake):
    meetup = create_meetup(door, org, f"{SUMMER}/").json
    assert (meetup["name"], meetup["date"]) == ("Summer social", "2026-12-05T20:00:00Z")
    assert meetup["platform_url"] == SUMMER
    assert fake.calls("event") == [{"id": "301234567", "first": 200, "after": None, "statuses": STATUSES}]
    assert [e.event_type for e in events()] == [
        "MEETUP_CREATED",
        "MEETUP_SYNCED",
    ]  # read once, for the meetup and its sync


def test_a_sync_reads_yes_waitlist_and_attended_with_members_from_the_rsvp_list(door, org, fake):
    meetup = create_meetup(door, org, SUMMER).json  # its first sync
    assert AuditEvent.get(AuditEvent.event_type == "MEETUP_SYNCED").details == {
        "inserted": 3,
        "updated": 0,
        "cancelled": 0,
        "skipped": 0,
        "total": 3,
    }
    rows = door.get(f"/organizations/{org.id}/meetups/{meetup['id']}/guests").json["guests"]
    assert [
        (
            r["guest"]["platform_user_id"],
            r["guest"]["username"],
            r["guest"]["displayname"],
            r["rsvp"]["rsvp_time"],
        )
        for r in rows
    ] == [
        (11, "alice", "Alice Ångström", "2026-11-20T09:00:00Z"),
        (MAX, str(MAX), "Max Int64", "2026-11-20T09:02:00Z"),  # no username: the id stands in
        (12, "12", "Bob <b>", "2026-11-21T08:30:00Z"),
    ]  # `updated` is the RSVP time
    assert door.get(f"/guests/{MAX}").json["platform_user_id"] == MAX
    assert fake.calls("members") == []  # the profiles came with the RSVP list
    assert [e.event_type for e in events()] == ["MEETUP_CREATED", "MEETUP_SYNCED"]


def test_a_sync_follows_every_page_of_a_long_rsvp_list(door, org, fake):
    fake.page_cap = 7  # whatever the adapter asks for, so it must follow pageInfo
    people = list(range(1000, 1045))
    for n in people:
        fake.add_member(n, f"Member {n}", f"m{n}" if n % 2 else None, groups=["night-owls"])
    rsvps = (
        [(n, "YES") for n in people[:40]]
        + [(n, "WAITLIST") for n in people[40:43]]
        + [(n, "NO") for n in people[43:]]
    )  # (Rsvp.member is Member!: Meetup never sends a null one)
    fake.add_event("night-owls", "302", "Tech conference", "2027-01-16T09:00:00Z", rsvps)
    meetup = create_meetup(door, org, f"{WEB}/night-owls/events/302/").json  # and its first sync
    pages = fake.calls("event")
    assert [p["after"] for p in pages] == [None] + [f"cursor-{7 * n}" for n in range(1, 7)]  # 7 pages
    assert meetup["counts"]["rsvps"] == 43 and fake.calls("members") == []
    assert Guest.get_by_id(1001).username == "m1001" and Guest.get_by_id(1002).username == "1002"

    fake.add_member(1003, "Member 1003 (renamed)", "m1003", groups=["night-owls"])
    fake.set_rsvps("302", [(n, "YES") for n in people[2:44]])  # 1000 and 1001 left, 1043 joined
    # updated: 1003 renamed, and 1040-1042 moved from the waitlist to YES
    assert sync(door, org, meetup) == {"inserted": 1, "updated": 4, "cancelled": 2, "skipped": 0, "total": 44}
    assert Guest.get_by_id(1003).displayname == "Member 1003 (renamed)"
    assert [e.details["inserted"] for e in events("MEETUP_SYNCED")] == [43, 1]


# --- guests: by member id or profile URL ------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        "15",
        " 15 ",
        f"{WEB}/members/15/",
        f"{WEB}/members/15",
        f"{WEB}/es-ES/members/15/?from=share#top",
        "http://www.meetup.com/members/15/",
    ],
)
def test_a_guest_is_registered_by_member_id_or_profile_url(door, org, fake, given):
    stored_meetup(org)  # newest: asked first
    stored_meetup(org, f"{WEB}/Day-Larks/events/777", datetime(2026, 11, 1, 18))
    reply = door.post_json("/guests/", {"username": given}, status=201).json
    assert (reply["platform_user_id"], reply["username"], reply["displayname"]) == (15, "15", "Walk In")
    assert fake.calls("members") == [
        {"urlname": "night-owls", "ids": [15], "first": 1},
        {"urlname": "Day-Larks", "ids": [15], "first": 1},
    ]
    event = AuditEvent.get()
    assert (event.event_type, event.guest_id) == ("GUEST_CREATED", 15)


def test_a_member_seen_on_an_rsvp_list_is_known_without_a_lookup(door, org, fake):
    create_meetup(door, org, SUMMER)  # reads the RSVP list and syncs it
    again = door.post_json("/guests/", {"username": f"{WEB}/members/12/"}, status=409).json
    assert again["code"] == "guest_exists" and again["guest"]["platform_user_id"] == 12
    assert (again["guest"]["username"], again["guest"]["displayname"]) == ("12", "Bob <b>")
    assert fake.calls("members") == []
    assert [e.event_type for e in events()] == ["MEETUP_CREATED", "MEETUP_SYNCED"]


def test_a_member_of_a_group_met_only_on_the_platform_is_found_too(door, org, fake):
    fake.add_event("Day-Larks", "55", "Dawn walk", "2026-12-06T07:00:00-05:00", [])
    create_meetup(door, org, f"{WEB}/day-larks/events/55")  # the URL's case differs from the group's urlname
    assert door.post_json("/guests/", {"username": "15"}, status=201).json["displayname"] == "Walk In"
    assert [c["urlname"] for c in fake.calls("members")] == ["Day-Larks"]  # as Meetup spells it


@pytest.mark.parametrize(
    "given, asks",
    [
        ("alice", False),  # Meetup has no lookup by username
        ("@alice", False),
        (f"{WEB}/members/alice/", False),
        ("https://evil.test/members/11/", False),
        (f"{WEB}/members/11/photos/", False),
        ("0", False),
        ("99999999999999999999", False),  # past 64 bits
        ("777", True),  # a member of none of the groups
    ],
)
def test_anything_but_a_member_of_a_known_group_is_platform_user_not_found(door, org, fake, given, asks):
    stored_meetup(org)
    reply = door.post_json("/guests/", {"username": given}, status=404).json
    assert reply["code"] == "platform_user_not_found" and reply["detail"]
    assert bool(fake.calls("members")) == asks
    assert Guest.select().count() == 0 and AuditEvent.select().count() == 0


def test_without_any_meetup_no_group_is_asked(door, fake):
    reply = door.post_json("/guests/", {"username": "11"}, status=404).json
    assert reply["code"] == "platform_user_not_found" and "groups of the meetups" in reply["detail"]
    assert fake.calls("members") == []


def test_profiles_not_on_the_last_rsvp_list_are_looked_up_in_the_groups(app, org, fake):
    stored_meetup(org)
    for n in range(2000, 2250):
        fake.add_member(n, f"Member {n}", None, groups=["night-owls"])
    found = app.config["door.platform"].profiles([11, 12, 777] + list(range(2000, 2250)))
    assert set(found) == {11, 12, *range(2000, 2250)} and found[12].username == "12"
    assert [len(c["ids"]) for c in fake.calls("members")] == [200, 53]


# --- faults -------------------------------------------------------------------------------------------


def call(door, org, endpoint):
    if endpoint == "create guest":
        stored_meetup(org)
        return door.post_json("/guests/", {"username": "11"}, expect_errors=True)
    if endpoint == "create meetup":
        return door.post_json(
            f"/organizations/{org.id}/meetups/", {"platform_url": SUMMER}, expect_errors=True
        )
    meetup = stored_meetup(org)
    return door.post(f"/organizations/{org.id}/meetups/{meetup.id}/sync", expect_errors=True)


NOT_FOUND = {"create guest": "platform_user_not_found"}
CASES = [
    (endpoint, kind, fault, after)
    for endpoint, kind, after in [
        ("create guest", "members", 0),
        ("create meetup", "event", 0),
        ("sync", "event", 0),
        ("sync", "event", 1),
    ]  # 1: the second page fails
    for fault in FakeMeetup.FAULTS  # every fault the fake can play
    if not (kind == "members" and fault == "loop")
]
ANSWERS = {"null": 404, "not_found": 404, "stall": 504, "drop": 504}


# 1 s: long enough that a loaded CI machine's fake answers in time (0.3 s turned a 502 into a 504 there),
# short enough that the stalls it times out stay quick
@pytest.mark.parametrize("platform_timeout", [1.0])
@pytest.mark.parametrize("endpoint, kind, fault, after", CASES, ids=lambda v: str(v))
def test_each_platform_failure_has_its_documented_answer_and_stores_nothing(
    door, org, fake, endpoint, kind, fault, after
):
    fake.page_cap = 1  # three RSVPs: three pages
    fake.fail(kind, fault, after=after)
    started = time.monotonic()
    reply = call(door, org, endpoint)
    status = ANSWERS.get(fault, 502)
    code = {
        404: NOT_FOUND.get(endpoint, "platform_event_not_found"),
        502: "platform_error",
        504: "platform_unreachable",
    }[status]
    assert (reply.status_int, reply.json["code"]) == (status, code)
    assert reply.content_type == "application/problem+json" and reply.json["detail"]
    assert time.monotonic() - started < 10  # bounded by PLATFORM_TIMEOUT, never a hang
    if fault == "rate_limited":
        assert "RATE_LIMITED" in reply.json["detail"]
    if fault == "401":
        assert "MEETUP_TOKEN" in reply.json["detail"]
    assert Guest.select().count() == 0 and MeetupGuest.select().count() == 0
    assert Meetup.select().count() == (0 if endpoint == "create meetup" else 1)
    assert AuditEvent.select().count() == 0


@pytest.mark.parametrize("platform_timeout", [1.0])  # a 500 answered late on a busy machine would be a 504
@pytest.mark.parametrize("fault", ["500", "rate_limited", "stall", "drop"])
def test_a_failing_profile_lookup_fails_the_call(app, org, fake, fault):
    stored_meetup(org)
    fake.fail("members", fault)
    with pytest.raises(ApiError) as failure:
        app.config["door.platform"].profiles([11, 12])
    assert failure.value.status == (504 if fault in ("stall", "drop") else 502)


def test_a_token_meetup_no_longer_accepts_is_a_platform_error(config, fake):
    adapter = platforms.load(replace(config, meetup_token="expired"))
    with pytest.raises(ApiError) as failure:
        adapter.event(SUMMER)
    assert (failure.value.status, failure.value.code) == (502, "platform_error")
    assert "MEETUP_TOKEN" in failure.value.detail


def test_an_unreachable_address_is_504(door, org, fake):
    stored_meetup(org)
    fake.stop()  # nobody listens there any more: connection refused
    assert door.post_json("/guests/", {"username": "11"}, status=504).json["code"] == "platform_unreachable"
    reply = create_meetup(door, org, f"{WEB}/night-owls/events/302", status=504).json
    assert reply["code"] == "platform_unreachable"


# --- health -------------------------------------------------------------------------------------------


def test_health_asks_meetup_who_the_token_is(client, fake):
    platform = client.get("/health").json["services"]["platform"]
    assert platform["status"] == "healthy" and platform["message"] == "HTTP 200, token accepted"
    assert fake.calls("ping") == [{}]


@pytest.mark.parametrize("platform_timeout", [0.3])
@pytest.mark.parametrize("fault", ["500", "401", "rate_limited", "null", "stall", "drop"])
def test_an_unusable_meetup_makes_health_degraded_but_still_200(client, fake, fault):
    fake.fail("ping", fault)
    assert client.get("/health").json["status"] == "degraded"
    for _ in range(50):  # the first answer may come before the probe has finished
        platform = client.get("/health").json["services"]["platform"]
        if platform["status"] == "unhealthy":
            break
        time.sleep(0.1)
    assert platform["status"] == "unhealthy" and platform["latency_ms"] is None and platform["message"]


# --- true to Meetup's published schema (tests/meetup_schema.json, a copy of Meetup's GraphQL schema) ------

HERE = Path(__file__).parent


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_query_the_adapter_sends_validates_against_meetups_schema(name):
    assert refused(QUERIES[name]) == []


# The copy's digest as published: a change to the copy must be a deliberate new copy of Meetup's schema.
SCHEMA_SHA256 = "7a9ff419a17fed2777807c70e87c70c3b46cf82d5260105a6c4b1d09f733d78b"


def test_the_schema_copy_is_meetups_published_one():
    assert hashlib.sha256((HERE / "meetup_schema.json").read_bytes()).hexdigest() == SCHEMA_SHA256
    statuses = SCHEMA.get_type("RsvpStatus").values.keys()
    assert statuses >= {"ATTENDED", "NO_SHOW", "EXCUSED_ABSENCE", "WAITLIST"}


def test_the_fake_refuses_a_query_meetup_would_refuse(fake):
    """The DoorMembers query as it was first written: memberIds takes [Int!], not [ID!]!."""
    old = QUERIES["DoorMembers"].replace("$ids: [Int!]", "$ids: [ID!]!")
    payload = {
        "operationName": "DoorMembers",
        "query": old,
        "variables": {"urlname": "night-owls", "ids": ["11"], "first": 1},
    }
    reply = requests.post(
        fake.api_url, json=payload, headers={"Authorization": f"Bearer {fake.token}"}, timeout=5
    ).json()
    assert reply["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    assert "[Int!]" in reply["errors"][0]["message"] and "data" not in reply
    assert fake.calls("members") == []  # refused before it ran


def test_a_guest_found_by_member_id_goes_through_the_schema_true_members_query(door, org, fake):
    create_meetup(door, org, SUMMER)
    assert (
        door.post_json("/guests/", {"username": f"{WEB}/members/14/"}, status=201).json["displayname"]
        == "Nora"
    )  # her RSVP says NO: not on a list read, so looked up in the group
    assert fake.calls("members")[-1]["ids"] == [14]  # Int, as the schema wants


def test_waitlist_and_guests_count_reach_the_door_list(door, org, fake):
    fake.set_rsvps("301234567", [(11, "YES", "2026-11-20T10:00:00Z", 2), (12, "WAITLIST")])
    meetup = create_meetup(door, org, SUMMER).json
    sync(door, org, meetup)
    rows = door.get(f"/organizations/{org.id}/meetups/{meetup['id']}/guests").json["guests"]
    assert {
        r["guest"]["platform_user_id"]: (r["rsvp"]["waitlisted"], r["rsvp"]["guests_count"]) for r in rows
    } == {11: (False, 2), 12: (True, 0)}
    fake.set_rsvps("301234567", [(11, "YES", "2026-11-20T10:00:00Z", 0), (12, "YES")])  # off the waitlist
    assert sync(door, org, meetup)["updated"] == 2
    rows = door.get(f"/organizations/{org.id}/meetups/{meetup['id']}/guests").json["guests"]
    assert {(r["rsvp"]["waitlisted"], r["rsvp"]["guests_count"]) for r in rows} == {(False, 0)}


@pytest.mark.parametrize("platform_timeout", [2.0])
def test_rate_limited_is_retried_with_backoff_within_the_timeout(door, org, fake):
    fake.fail("event", "rate_limited", times=2)
    meetup = create_meetup(door, org, SUMMER, status=201).json
    assert meetup["name"] == "Summer social"
    assert len(fake.calls("event")) == 3  # refused twice, then answered


@pytest.mark.parametrize("platform_timeout", [2.0])
def test_rate_limited_past_the_timeout_is_a_502_that_says_so_within_it(door, org, fake):
    """Retries 0.1, 0.2, 0.4 and 0.8 s apart fit in 2 s; the next wait (1.6 s) would not, so Door answers
    instead of sleeping past the timeout. A busy machine may fit fewer calls, never a later answer."""
    fake.fail("event", "rate_limited")
    started = time.monotonic()
    reply = create_meetup(door, org, SUMMER, status=502).json
    assert time.monotonic() - started < 2.0 + 0.9  # sleeping the 1.6 s wait would end past 3.1 s
    assert "RATE_LIMITED" in reply["detail"] and len(fake.calls("event")) >= 3


@pytest.mark.parametrize("platform_timeout", [1.0])
def test_a_retry_the_timeout_cuts_short_still_says_rate_limited(door, org, fake):
    """Meetup's last word was RATE_LIMITED: a retry that gets no answer in what is left of the timeout
    says that, not that Meetup is unreachable (a busy CI machine once saw a 504 here)."""
    fake.fail("event", "rate_limited", times=1, then="stall")
    reply = create_meetup(door, org, SUMMER, status=502).json
    assert reply["code"] == "platform_error" and "RATE_LIMITED" in reply["detail"]
    assert len(fake.calls("event")) == 2


def test_a_file_never_renames_a_platform_member_nor_invents_one(live_server, org, fake, make_user):
    """A file's row for a member is their RSVP on that meetup's list, under the file's name there alone:
    the member's profile (every org's door shows it) stays the platform's, and a member Door has not read
    yet is no guest anyone can find."""
    larks = Org.create(name="Day Larks", slug="day-larks")
    theirs = {"Authorization": auth(make_user("lara", org=larks, role="ADMIN"))["Authorization"]}
    ours = auth(make_user("sam", org=org))
    synced = requests.post(
        f"{live_server}/organizations/{larks.id}/meetups/",
        json={"platform_url": SUMMER},
        headers=theirs,
        timeout=10,
    )
    assert synced.status_code == 201, synced.text
    rows = [("DO NOT ADMIT - see Ana's ban", 11, "Yes", 0), ("Tomás Newcomer", 20000002, "Yes", 0)]
    made = requests.post(
        f"{live_server}/organizations/{org.id}/meetups/import",
        data={"name": "Owls", "date": (datetime.now() + timedelta(days=3)).isoformat() + "Z"},
        files={"file": ("attendees.csv", meetup_csv(rows))},
        headers=ours,
        timeout=10,
    )
    assert made.status_code == 201, made.text

    def door_names(org_id, meetup_id, headers):
        reply = requests.get(
            f"{live_server}/organizations/{org_id}/meetups/{meetup_id}/guests", headers=headers, timeout=10
        )
        return {
            row["guest"]["platform_user_id"]: row["guest"]["displayname"] for row in reply.json()["guests"]
        }

    assert door_names(org.id, made.json()["meetup"]["id"], ours) == {
        11: "DO NOT ADMIT - see Ana's ban",
        20000002: "Tomás Newcomer",
    }
    assert door_names(larks.id, synced.json()["id"], theirs)[11] == "Alice Ångström"
    alice = requests.get(f"{live_server}/guests/11", headers=ours, timeout=10).json()
    assert (alice["username"], alice["displayname"]) == ("alice", "Alice Ångström")
    assert requests.get(f"{live_server}/guests/20000002", headers=ours, timeout=10).status_code == 404
    found = requests.get(f"{live_server}/guests/", params={"q": "Tomás"}, headers=ours, timeout=10).json()
    assert found["total"] == 0
    admin = auth(make_user("ana", org=org, role="ADMIN"))
    history = requests.get(
        f"{live_server}/organizations/{org.id}/guests/20000002/history", headers=admin, timeout=10
    )
    assert history.json()["guest"] == {  # the org's history page names them as its list does
        "platform_user_id": 20000002,
        "username": "",
        "displayname": "Tomás Newcomer",
        "is_local": False,
    }, history.text
    fake.add_member(20000002, "Tomás N.", "tomas", groups=["night-owls"])  # the door looks them up: read now
    looked_up = requests.post(
        f"{live_server}/guests/", json={"username": "20000002"}, headers=ours, timeout=10
    )
    assert (looked_up.status_code, looked_up.json()["displayname"]) == (201, "Tomás N."), looked_up.text
    assert requests.get(f"{live_server}/guests/20000002", headers=ours, timeout=10).status_code == 200
