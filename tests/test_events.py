"""The audit log: the full org log for admins, scoped lists for members, filters, order and paging."""

from datetime import datetime, timedelta

import pytest
from helpers import assert_query_count

from doorapp import access
from doorapp.db import db
from doorapp.models import AuditEvent, AuditType, Guest, Meetup, Org, audit

# The evening is drawn with fixed dates: they hold on the day they were written for, whatever today is.
pytestmark = pytest.mark.usefixtures("on_the_day")


def log(org):
    return f"/organizations/{org.id}/events/"


def at(minute):
    return datetime(2026, 12, 5, 20, minute, 0, 123456)


def event(kind, org, minute, **fields):
    return AuditEvent.create(event_type=kind, org=org, timestamp=at(minute), **fields)


def kinds(reply):
    return [e["event_type"] for e in reply.json["events"]]


def test_the_full_log_is_newest_first_with_whole_events(boss, boss_user, door, staff, org, meetup, guest):
    boss.patch_json(f"/organizations/{org.id}/guests/{guest.platform_user_id}/ban", {"reason": "Rude"})
    door.post_json(
        f"/organizations/{org.id}/meetups/{meetup.id}/guests/{guest.platform_user_id}/checkin",
        {"force": True},
    )
    reply = boss.get(log(org)).json
    assert (reply["total"], reply["limit"], reply["offset"]) == (2, 50, 0)
    check_in, ban = reply["events"]
    assert check_in == {
        "id": check_in["id"],
        "event_type": "CHECK_IN",
        "timestamp": check_in["timestamp"],
        "org_id": str(org.id),
        "actor": {"id": staff.id, "username": "sam"},
        "guest": {"platform_user_id": 9007199254740993, "username": "alice", "displayname": "Alice Ångström"},
        "meetup_id": str(meetup.id),
        "reason": None,
        "details": {"forced": True},
        "shredded": False,
    }
    assert (ban["event_type"], ban["reason"], ban["meetup_id"], ban["actor"]["username"]) == (
        "BAN",
        "Rude",
        None,
        "boss",
    )
    assert check_in["id"] > ban["id"] and check_in["timestamp"] >= ban["timestamp"]


def test_only_admins_read_the_full_log_and_members_read_the_scoped_lists(door, org, meetup, guest, staff):
    assert door.get(log(org), status=403).json["code"] == "org_admin_required"
    door.post(f"/organizations/{org.id}/meetups/{meetup.id}/guests/{guest.platform_user_id}/checkin")
    for scope in (f"meetups/{meetup.id}", f"guests/{guest.platform_user_id}", f"staff/{staff.id}"):
        reply = door.get(f"/organizations/{org.id}/events/{scope}", status=200).json
        assert [e["event_type"] for e in reply["events"]] == ["CHECK_IN"], scope


def test_guest_registration_has_no_org_and_shows_in_every_orgs_guest_list(
    boss, make_user, as_user, org, guest
):
    other = Org.create(name="Early Birds", slug="early-birds")
    theirs = as_user(make_user("eve", org=other))
    audit.record(AuditType.GUEST_CREATED, access.account_caller(make_user("reg")), guest=guest)
    event("BAN", other, 1, guest=guest, reason="Loud")
    assert boss.get(log(org)).json["total"] == 0
    ours = boss.get(f"/organizations/{org.id}/events/guests/{guest.platform_user_id}")
    assert kinds(ours) == ["GUEST_CREATED"]
    assert kinds(theirs.get(f"/organizations/{other.id}/events/guests/{guest.platform_user_id}")) == [
        "BAN",
        "GUEST_CREATED",
    ]  # the ban is dated later
    assert boss.get(log(org) + f"?guest_id={guest.platform_user_id}").json["total"] == 0


def test_scoped_lists_hold_only_their_meetup_guest_or_actor(boss, door, org, meetup, guest, staff, boss_user):
    other_meetup = Meetup.create(org=org, name="x", date=at(0), platform_url="https://x/y/z")
    bob = Guest.create(platform_user_id=2, username="bob")
    event("CHECK_IN", org, 1, meetup_id=meetup.id, guest=guest, actor=staff)
    event("CHECK_IN", org, 2, meetup_id=other_meetup.id, guest=bob, actor=staff)
    event("BAN", org, 3, guest=bob, actor=boss_user, reason="r")
    event("MEETUP_FINALIZED", org, 4, meetup_id=meetup.id, actor=boss_user)
    other_org = Org.create(name="Other", slug="other")
    event("CHECK_IN", other_org, 5, meetup_id=meetup.id, guest=guest, actor=staff)
    base = f"/organizations/{org.id}/events"
    listed = door.get(f"{base}/meetups/{meetup.id}").json["events"]
    assert [(e["event_type"], e["timestamp"]) for e in listed] == [
        ("MEETUP_FINALIZED", "2026-12-05T20:04:00.123456Z"),
        ("CHECK_IN", "2026-12-05T20:01:00.123456Z"),
    ]
    assert kinds(door.get(f"{base}/guests/2")) == ["BAN", "CHECK_IN"]
    assert door.get(f"{base}/staff/{staff.id}").json["total"] == 2
    assert kinds(door.get(f"{base}/staff/{boss_user.id}?type=BAN")) == ["BAN"]
    assert boss.get(f"{base}/?actor_id={staff.id}&guest_id=2").json["total"] == 1
    assert boss.get(f"{base}/?meetup_id={str(meetup.id).upper()}").json["total"] == 2


def test_scoped_lists_of_nothing_are_404(door, org):
    base = f"/organizations/{org.id}/events"
    foreign = Meetup.create(
        org=Org.create(name="Other", slug="other"), name="x", date=at(0), platform_url="https://x/y/z"
    )
    for path in (
        f"{base}/meetups/{foreign.id}",
        f"{base}/meetups/00000000-0000-0000-0000-000000000000",
        f"{base}/guests/424242",
        f"{base}/staff/424242",
    ):
        assert door.get(path, status=404).json["code"] == "not_found"


def test_type_filter_takes_a_comma_separated_list_and_refuses_unknown_types(boss, org):
    for minute, kind in enumerate(["BAN", "CHECK_IN", "UNBAN", "WALKIN"]):
        event(kind, org, minute)
    assert kinds(boss.get(log(org) + "?type=BAN,WALKIN")) == ["WALKIN", "BAN"]
    assert kinds(boss.get(log(org) + "?type=UNBAN")) == ["UNBAN"]
    for bad in ("CHECKIN", "BAN,,WALKIN", "ban", ""):
        reply = boss.get(log(org), {"type": bad}, status=422).json
        assert reply["errors"][0]["loc"] == ["query", "type"], bad


def test_since_and_until_are_inclusive_of_an_events_own_timestamp(boss, org):
    for minute in range(5):
        event("CHECK_IN", org, minute)
    stamps = [e["timestamp"] for e in boss.get(log(org)).json["events"]]
    window = boss.get(log(org), {"since": stamps[3], "until": stamps[1]}).json
    assert [e["timestamp"] for e in window["events"]] == stamps[1:4]
    assert boss.get(log(org), {"since": stamps[0]}).json["total"] == 1
    assert boss.get(log(org), {"since": "2026-12-05T21:00:00.123456+01:00"}).json["total"] == 5
    unencoded_plus = "?until=2026-12-05T21:00:30.123456+01:00"  # arrives as a space
    assert boss.get(log(org) + unencoded_plus).json["total"] == 1
    assert boss.get(log(org), {"until": "2026-12-05"}).json["total"] == 5  # a date alone: its whole day
    assert boss.get(log(org), {"until": "2026-12-04"}).json["total"] == 0
    assert boss.get(log(org), {"since": "2026-12-06"}).json["total"] == 0


def test_bad_filters_are_422_naming_each_parameter(boss, org):
    reply = boss.get(log(org), {"since": "yesterday", "until": "2026-13-01T00:00:00Z"}, status=422).json
    assert [e["loc"] for e in reply["errors"]] == [["query", "since"], ["query", "until"]]
    for name, value in [
        ("limit", "0"),
        ("limit", "201"),
        ("offset", "-1"),
        ("guest_id", "x"),
        ("actor_id", str(2**64)),
        ("meetup_id", "not-a-uuid"),
    ]:
        reply = boss.get(log(org), {name: value}, status=422).json
        assert reply["errors"][0]["loc"] == ["query", name], name


def test_the_log_is_paged(boss, org):
    AuditEvent.insert_many(
        [
            {"event_type": "CHECK_IN", "org": org.id, "timestamp": at(0) + timedelta(seconds=i)}
            for i in range(120)
        ]
    ).execute()
    first = boss.get(log(org)).json
    assert (first["total"], len(first["events"]), first["limit"], first["offset"]) == (120, 50, 50, 0)
    last = boss.get(log(org), {"limit": "200", "offset": "100"}).json
    assert (len(last["events"]), last["limit"], last["offset"]) == (20, 200, 100)
    ids = [e["id"] for e in boss.get(log(org), {"limit": "200"}).json["events"]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 120
    assert [e["id"] for e in first["events"]] == ids[:50]


def test_a_page_takes_the_same_queries_however_many_actors_and_guests_it_shows(boss, org, make_user):
    users = [make_user(f"u{i}", org=org) for i in range(50)]
    Guest.insert_many([{"platform_user_id": i, "username": f"g{i}"} for i in range(50)]).execute()
    event("BAN", org, 0, guest=0, actor=users[0])
    with assert_query_count(4):  # user with membership, org, count, page
        boss.get(log(org))
    AuditEvent.insert_many(
        [
            {"event_type": "BAN", "org": org.id, "guest": i, "actor": users[i].id, "timestamp": at(1)}
            for i in range(50)
        ]
    ).execute()
    with assert_query_count(4):
        assert len(boss.get(log(org)).json["events"]) == 50


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"types": ["CHECK_IN"]},
        {"since": at(1), "until": at(2)},
        {"types": ["CHECK_IN"], "since": at(1)},
        {"guest_id": 7},
        {"actor_id": 7},
        {"meetup_id": "6a0b3c38-5d3c-4a8e-8b8f-2f7b0b2d9a11"},
    ],
)
def test_filtered_pages_of_the_full_log_read_an_index_in_order(app, org, filters):
    """The plan, not a timing: the page walks an index newest first and stops after `limit` rows."""
    query = AuditEvent.with_people(AuditEvent.log(org.id, **filters)).limit(50)
    sql, params = query.sql()
    plan = " | ".join(row[3] for row in db.execute_sql("EXPLAIN QUERY PLAN " + sql, params))
    assert "USING INDEX" in plan and "TEMP B-TREE" not in plan, plan
    assert "SCAN audit_event" not in plan.replace("SCAN audit_event AS t1 USING INDEX", ""), plan


def test_a_moment_at_the_calendars_edge_is_422_never_a_500(boss, org):
    """An offset or a whole day can move a valid date past what datetime holds."""
    for name, value in [
        ("since", "0001-01-01T00:00:00+01:00"),
        ("until", "9999-12-31T23:59:59-01:00"),
        ("since", "x" * 65),
    ]:
        reply = boss.get(log(org), {name: value}, status=422).json
        message = "Must be an ISO 8601 timestamp such as 2026-11-21T19:04:05Z, or a date."
        expected = [{"loc": ["query", name], "type": "datetime", "ctx": {}, "msg": message}]
        assert reply["errors"] == expected, value
    assert boss.get(log(org), {"since": "0001-01-01", "until": "9999-12-31"}).json["total"] == 0  # whole days


def test_a_filter_named_as_the_paths_id_is_422_not_a_second_filter(door, org, meetup, guest):
    """The path's meetup or guest is the one: the same name in the query would narrow nothing or all."""
    for path, name, value in (
        (f"meetups/{meetup.id}", "meetup_id", meetup.id),
        (f"guests/{guest.platform_user_id}", "guest_id", 2),
    ):
        reply = door.get(f"/organizations/{org.id}/events/{path}", {name: value}, status=422).json
        assert reply["errors"] == [
            {
                "loc": ["query", name],
                "msg": "Given in the path; leave it out of the query.",
                "type": "invalid",
                "ctx": {"rule": "in_path"},
            }
        ]


def test_the_type_filter_takes_its_values_repeated_or_comma_separated(boss, org, meetup, guest, staff):
    for number, kind in enumerate(("CHECK_IN", "BAN", "WALKIN", "BAN")):
        event(kind, org, number, guest=guest, actor=staff)
    log = f"/organizations/{org.id}/events/"
    for query in (
        "type=BAN&type=WALKIN",
        "type=BAN,WALKIN",
        "type=BAN&type=WALKIN,BAN",
        "type=WALKIN,%20BAN",
    ):
        assert sorted(kinds(boss.get(f"{log}?{query}"))) == ["BAN", "BAN", "WALKIN"], query
    assert boss.get(f"{log}?type=BAN&type=NOPE", status=422).json["errors"][0]["loc"] == ["query", "type"]


def test_the_filters_are_declared_types_in_openapi(client):
    document = client.get("/openapi.json").json
    parameters = {
        p["name"]: p for p in document["paths"]["/organizations/{org_id}/events/"]["get"]["parameters"]
    }
    assert parameters["type"]["schema"]["items"] == {"$ref": "#/components/schemas/AuditType"}
    assert document["components"]["schemas"]["AuditType"]["enum"] == list(AuditType)
    assert (parameters["type"]["style"], parameters["type"]["explode"]) == ("form", True)
    scoped = document["paths"]["/organizations/{org_id}/events/meetups/{meetup_id}"]["get"]["parameters"]
    assert [p["in"] for p in scoped if p["name"] == "meetup_id"] == ["path"]
    assert parameters["meetup_id"]["schema"]["format"] == "uuid"
    assert (
        parameters["since"]["schema"]["type"] == "string"
        and "ISO 8601" in parameters["since"]["schema"]["description"]
    )
