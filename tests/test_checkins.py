"""The door: guest list with ETag, walk-ins, check-ins, undo, and finalize closing the door."""

import gzip
import http.client
from datetime import datetime, timedelta

import pytest
from helpers import ENGINES, SECRET, add_guest, assert_query_count, base, entry, events
from webtest import TestApp

from doorapp.access import issue_token
from doorapp.app import create_app
from doorapp.models import Ban, Guest, Meetup, MeetupGuest, Org, changes

pytestmark = ENGINES  # on SQLite and on PostgreSQL


# --- the guest list --------------------------------------------------------------------------------


def test_the_door_list_shows_each_guest_with_rsvp_check_in_and_ban_status(door, meetup, guest):
    reply = door.get(f"{base(meetup)}/guests")
    assert reply.headers["ETag"] == f'W/"{reply.json["version"]}"'
    assert reply.json == {
        "version": reply.json["version"],
        "full": True,
        "removed": [],
        "total": 1,
        "counts": {
            "rsvps": 1,
            "cancelled": 0,
            "walkins": 0,
            "arrived": 0,
            "waitlisted": 0,
            "people": 0,
            "inside": 0,
            "capacity": None,
        },
        "meetup": {
            "is_finalized": False,
            "finalized_at": None,
            "cancelled_at": None,
            "cancel_reason": None,
            "last_synced_at": None,
        },
        "guests": [
            {
                "guest": {
                    "platform_user_id": 9007199254740993,
                    "username": "alice",
                    "displayname": "Alice Ångström",
                    "is_local": False,
                    "is_banned": False,
                    "ban_reason": None,
                    "history": {
                        "visits": 0,
                        "last_visit": None,
                        "recent_no_shows": 0,
                        "recent": 5,
                        "repeat_no_show": False,
                    },
                    "tags": [],
                    "note": None,
                    "hint": "",
                },
                "rsvp": {
                    "rsvp_time": "2026-11-20T10:00:00Z",
                    "cancelled_rsvp": False,
                    "waitlisted": False,
                    "guests_count": 0,
                    "is_walkin": False,
                    "has_arrived": False,
                    "arrival_time": None,
                    "arrival_order": None,
                    "guests_brought": None,
                    "checked_in_by": None,
                    "inside": False,
                    "exited_at": None,
                },
            }
        ],
    }
    assert reply.headers["ETag"].startswith('W/"') and reply.headers["Vary"] == "Accept-Encoding"


def test_the_list_is_in_rsvp_order_flags_cancelled_rsvps_and_counts_them(door, meetup, org, make_user):
    add_guest(3, "carol", meetup, rsvp_time=datetime(2026, 11, 19), cancelled_rsvp=True)
    add_guest(4, "dave", meetup, rsvp_time=datetime(2026, 11, 21), is_walkin=True)
    Ban.create(org=org, guest=4, reason="Threw a chair", banned_by=make_user("boss", org=org, role="ADMIN"))
    Ban.create(org=Org.create(name="Other", slug="other"), guest=3, reason="Not here")  # another org's ban
    reply = door.get(f"{base(meetup)}/guests").json
    assert [g["guest"]["username"] for g in reply["guests"]] == ["carol", "alice", "dave"]
    assert reply["guests"][0]["rsvp"]["cancelled_rsvp"] is True
    assert reply["guests"][0]["guest"]["is_banned"] is False
    assert reply["guests"][2]["guest"] == {
        "platform_user_id": 4,
        "username": "dave",
        "displayname": "Dave",
        "is_local": False,
        "is_banned": True,
        "ban_reason": "Threw a chair",
        "history": reply["guests"][2]["guest"]["history"],
        "tags": [],
        "note": None,
        "hint": "",
    }
    assert reply["counts"] == {
        "rsvps": 1,
        "cancelled": 1,
        "walkins": 1,
        "arrived": 0,
        "waitlisted": 0,
        "people": 0,
        "inside": 0,
        "capacity": None,
    }


def test_the_list_of_another_orgs_meetup_or_of_no_meetup_is_404(door, meetup):
    other = Meetup.create(
        org=Org.create(name="Other", slug="other"),
        name="x",
        date=datetime(2026, 1, 1),
        platform_url="https://demo.door.invalid/other/x",
    )
    meetups = f"/organizations/{meetup.org_id}/meetups"
    assert door.get(f"{meetups}/{other.id}/guests", status=404).json["code"] == "not_found"
    missing = f"{meetups}/00000000-0000-0000-0000-000000000000/guests"
    assert door.get(missing, status=404).json["code"] == "not_found"
    assert door.get(f"{meetups}/nope/guests", status=422).json["errors"][0]["loc"] == ["path", "meetup_id"]


def test_an_unchanged_list_answers_304_with_no_body(door, meetup):
    tag = door.get(f"{base(meetup)}/guests").headers["ETag"]
    reply = door.get(f"{base(meetup)}/guests", headers={"If-None-Match": tag}, status=304)
    assert reply.body == b"" and reply.headers["ETag"] == tag
    door.get(f"{base(meetup)}/guests", headers={"If-None-Match": f'"other", {tag}'}, status=304)
    door.get(f"{base(meetup)}/guests", headers={"If-None-Match": tag.removeprefix("W/")}, status=304)  # weak
    door.get(f"{base(meetup)}/guests", headers={"If-None-Match": '"stale"'}, status=200)


@pytest.mark.parametrize(
    "accept, zipped",
    [
        ("gzip, deflate, br", True),
        ("br;q=1.0, gzip;q=0.5", True),
        ("gzip;q=0", False),
        ("identity", False),
        (None, False),
    ],
)
def test_the_list_is_gzipped_for_clients_that_take_it(live_server, door, staff, meetup, accept, zipped):
    plain = door.get(f"{base(meetup)}/guests").body
    connection = http.client.HTTPConnection(live_server.removeprefix("http://"), timeout=30)  # no decoding
    headers = {"Authorization": f"Bearer {issue_token(SECRET, staff, 5)}"}
    if accept:
        headers["Accept-Encoding"] = accept
    connection.request("GET", f"{base(meetup)}/guests", headers=headers)
    reply = connection.getresponse()
    assert reply.getheader("Content-Encoding") == ("gzip" if zipped else None)
    assert reply.getheader("Content-Type") == "application/json"
    assert (gzip.decompress(reply.read()) if zipped else reply.read()) == plain


def test_the_etag_changes_with_every_change_to_the_list(door, boss, meetup, guest):
    walkin = add_guest(5, "erin")
    seen = []

    def tag():
        seen.append(door.get(f"{base(meetup)}/guests").headers["ETag"])
        return seen[-1]

    tag()
    door.post_json(f"{entry(meetup, guest)}/checkin", {})
    tag()
    door.patch_json(f"{entry(meetup, guest)}/undo-checkin", {"reason": "Wrong Alice"})
    tag()
    door.post(f"{entry(meetup, walkin)}/add-walkin", status=201)
    tag()
    boss.patch_json(f"/organizations/{meetup.org_id}/guests/{guest.platform_user_id}/ban", {"reason": "Rude"})
    tag()
    boss.patch(f"/organizations/{meetup.org_id}/guests/{guest.platform_user_id}/unban")
    assert tag() == tag()  # reading does not change it
    assert len(set(seen)) == len(seen) - 1


def test_the_etag_changes_when_another_orgs_sync_renames_a_guest(
    config, fake_platform, door, meetup, guest, make_user, as_user
):
    tag = door.get(f"{base(meetup)}/guests").headers["ETag"]
    fake_platform.add_user(guest.platform_user_id, "alice", "Alice A.")  # renamed on the platform
    fake_platform.add_event(
        "early-birds", "brunch", "Brunch", "2026-12-06T10:00:00Z", [guest.platform_user_id]
    )
    other = Org.create(name="Early Birds", slug="early-birds")
    theirs = TestApp(create_app(fake_platform.configure(config)))  # the same database, on the fake platform
    theirs.authorization = as_user(make_user("eve", org=other)).authorization
    url = f"{fake_platform.web_url}/early-birds/brunch"
    created = theirs.post_json(f"/organizations/{other.id}/meetups/", {"platform_url": url}, status=201).json
    theirs.post(f"/organizations/{other.id}/meetups/{created['id']}/sync")
    reply = door.get(f"{base(meetup)}/guests", headers={"If-None-Match": tag})
    assert reply.status_int == 200 and reply.json["guests"][0]["guest"]["displayname"] == "Alice A."


def test_the_list_of_2000_rsvps_takes_as_many_queries_as_a_list_of_one(door, meetup, org, staff):
    with assert_query_count(5):  # user with membership, meetup with its ETag, history, entries, counts
        door.get(f"{base(meetup)}/guests")
    Guest.insert_many([{"platform_user_id": i, "username": f"guest{i}"} for i in range(1, 2000)]).execute()
    MeetupGuest.insert_many(
        [
            {
                "meetup": meetup.id,
                "guest": i,
                "has_arrived": i % 2,
                "arrival_order": i,
                "checked_in_by": staff.id if i % 2 else None,
            }
            for i in range(1, 2000)
        ]
    ).execute()
    Ban.insert_many([{"org": org.id, "guest": i, "reason": "r"} for i in range(1, 2000, 7)]).execute()
    changes.whole([meetup.id])  # as a sync of many does
    with assert_query_count(6):  # and what changed since the last rendering, whose histories it kept
        reply = door.get(f"{base(meetup)}/guests").json
    assert reply["total"] == 2000 and reply["counts"]["arrived"] == 1000
    assert sum(g["guest"]["is_banned"] for g in reply["guests"]) == 286
    with assert_query_count(2):  # user with membership, meetup with its ETag: the rendering is shared
        assert door.get(f"{base(meetup)}/guests").json == reply
    tag = door.get(f"{base(meetup)}/guests").headers["ETag"]
    with assert_query_count(2):
        door.get(f"{base(meetup)}/guests", headers={"If-None-Match": tag}, status=304)


# --- check-in --------------------------------------------------------------------------------------


def test_staff_check_a_guest_in_with_time_number_and_actor(door, meetup, guest, staff):
    reply = door.post(f"{entry(meetup, guest)}/checkin")  # no body at all reads as {}
    rsvp = reply.json["rsvp"]
    assert rsvp["has_arrived"] is True and rsvp["arrival_order"] == 1
    assert rsvp["checked_in_by"] == {"id": staff.id, "username": "sam"}
    assert abs(datetime.fromisoformat(rsvp["arrival_time"][:-1]) - datetime.utcnow()) < timedelta(minutes=1)
    assert reply.json["guest"]["username"] == "alice"
    [event] = events("CHECK_IN")
    assert (event.actor_id, event.guest_id, event.org_id, event.meetup_id) == (
        staff.id,
        guest.platform_user_id,
        meetup.org_id,
        meetup.id,
    )
    assert event.details == {} and event.reason is None


def test_each_answer_about_a_guest_is_its_entry_in_the_list(door, boss, meetup, guest, org):
    erin = add_guest(5, "erin")
    boss.patch_json(f"/organizations/{org.id}/guests/5/ban", {"reason": "Loud"})
    answers = {5: door.post(f"{entry(meetup, erin)}/add-walkin", status=201).json}
    answers[5] = door.post_json(f"{entry(meetup, erin)}/checkin", {"force": True}).json
    answers[guest.platform_user_id] = door.post(f"{entry(meetup, guest)}/checkin").json
    listed = {g["guest"]["platform_user_id"]: g for g in door.get(f"{base(meetup)}/guests").json["guests"]}
    assert listed == answers
    undone = door.patch_json(f"{entry(meetup, erin)}/undo-checkin", {"reason": "Left at once"}).json
    assert undone == door.get(f"{base(meetup)}/guests").json["guests"][1]


def test_a_second_check_in_says_who_checked_the_guest_in_when_and_which_number(
    door, as_user, make_user, meetup, guest, org, staff
):
    first = door.post_json(f"{entry(meetup, guest)}/checkin", {}).json["rsvp"]
    other_door = as_user(make_user("tess", org=org))
    reply = other_door.post_json(f"{entry(meetup, guest)}/checkin", {}, status=409).json
    assert reply["code"] == "already_checked_in"
    assert (reply["arrival_time"], reply["arrival_order"], reply["checked_in_by"]) == (
        first["arrival_time"],
        1,
        {"id": staff.id, "username": "sam"},
    )
    assert len(events("CHECK_IN")) == 1


def test_arrival_numbers_count_up_per_meetup(door, meetup, guest):
    bob, carol = add_guest(2, "bob", meetup), add_guest(3, "carol", meetup)
    numbers = [
        door.post(f"{entry(meetup, g)}/checkin").json["rsvp"]["arrival_order"] for g in (carol, guest, bob)
    ]
    assert numbers == [1, 2, 3]
    second = Meetup.create(org=meetup.org, name="y", date=datetime(2026, 1, 1), platform_url="https://x/y/z")
    MeetupGuest.create(meetup=second, guest=bob)
    assert door.post(f"{entry(second, bob)}/checkin").json["rsvp"]["arrival_order"] == 1


def test_a_banned_guest_is_refused_with_the_reason_unless_forced(door, meetup, guest, org):
    Ban.create(org=org, guest=guest, reason="Stole the raffle")
    reply = door.post_json(f"{entry(meetup, guest)}/checkin", {"force": False}, status=409).json
    assert (reply["code"], reply["ban_reason"]) == ("guest_banned", "Stole the raffle")
    assert events("CHECK_IN") == []
    forced = door.post_json(f"{entry(meetup, guest)}/checkin", {"force": True}).json
    assert forced["rsvp"]["has_arrived"] is True and forced["guest"]["ban_reason"] == "Stole the raffle"
    assert events("CHECK_IN")[0].details == {"forced": True}


def test_force_on_a_guest_who_is_not_banned_records_no_override(door, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {"force": True})
    assert events("CHECK_IN")[0].details == {}


def test_check_in_refusals(door, meetup, guest):
    stranger = add_guest(6, "frank")
    reply = door.post(f"{entry(meetup, stranger)}/checkin", status=404).json
    assert reply["code"] == "not_on_list"
    assert door.post(f"{base(meetup)}/guests/424242/checkin", status=404).json["code"] == "not_found"
    bad = door.post_json(f"{entry(meetup, guest)}/checkin", {"force": "yes"}, status=422).json
    assert bad["errors"] == [
        {
            "loc": ["body", "force"],
            "msg": "Must be true or false.",
            "type": "type",
            "ctx": {"expected": "boolean"},
        }
    ]
    assert door.post(f"{base(meetup)}/guests/abc/checkin", status=422).json["errors"][0]["loc"] == [
        "path",
        "platform_user_id",
    ]
    assert events() == []


def test_a_meetup_of_another_org_is_404_even_for_its_guests(door, guest):
    other = Meetup.create(
        org=Org.create(name="Other", slug="other"),
        name="x",
        date=datetime(2026, 1, 1),
        platform_url="https://demo.door.invalid/other/x",
    )
    MeetupGuest.create(meetup=other, guest=guest)
    org_id = Org.get(Org.slug == "night-owls").id
    path = f"/organizations/{org_id}/meetups/{other.id}/guests/{guest.platform_user_id}/checkin"
    assert door.post(path, status=404).json["code"] == "not_found"
    assert not MeetupGuest.get(MeetupGuest.meetup == other).has_arrived


def test_check_in_takes_a_fixed_number_of_queries(door, meetup, guest):
    # the user, the entry, the guest's history (in the answer), the event, the list's version and its change
    # record (models.changes), the number, the arrival
    with assert_query_count(8):
        door.post(f"{entry(meetup, guest)}/checkin")
    Guest.insert_many([{"platform_user_id": i, "username": f"guest{i}"} for i in range(1, 2000)]).execute()
    MeetupGuest.insert_many([{"meetup": meetup.id, "guest": i} for i in range(1, 2000)]).execute()
    with assert_query_count(8):
        door.post(f"{base(meetup)}/guests/1999/checkin")


# --- undo ----------------------------------------------------------------------------------------------


def test_undo_needs_a_reason_and_keeps_the_check_in_in_the_log(door, meetup, guest, staff):
    door.post(f"{entry(meetup, guest)}/checkin")
    for body in ({}, {"reason": "   "}):
        reply = door.patch_json(f"{entry(meetup, guest)}/undo-checkin", body, status=422).json
        assert reply["errors"][0]["loc"] == ["body", "reason"]
    reason = {"reason": "Checked in the wrong Alice"}
    rsvp = door.patch_json(f"{entry(meetup, guest)}/undo-checkin", reason).json["rsvp"]
    assert (rsvp["has_arrived"], rsvp["arrival_order"], rsvp["arrival_time"], rsvp["checked_in_by"]) == (
        False,
        None,
        None,
        None,
    )
    check_in, undo = events()
    assert check_in.event_type == "CHECK_IN"
    assert (undo.event_type, undo.reason, undo.actor_id, undo.guest_id) == (
        "UNDO_CHECK_IN",
        "Checked in the wrong Alice",
        staff.id,
        guest.platform_user_id,
    )
    assert undo.details["arrival_order"] == 1


def test_an_undone_number_is_never_reused(door, meetup, guest):
    bob = add_guest(2, "bob", meetup)
    door.post(f"{entry(meetup, guest)}/checkin")
    door.patch_json(f"{entry(meetup, guest)}/undo-checkin", {"reason": "Too early"})
    assert door.post(f"{entry(meetup, bob)}/checkin").json["rsvp"]["arrival_order"] == 2
    assert door.post(f"{entry(meetup, guest)}/checkin").json["rsvp"]["arrival_order"] == 3


def test_undo_of_a_guest_who_is_not_checked_in_is_409(door, meetup, guest):
    reply = door.patch_json(f"{entry(meetup, guest)}/undo-checkin", {"reason": "Oops"}, status=409).json
    assert reply["code"] == "not_checked_in"
    assert (
        door.patch_json(
            f"{entry(meetup, add_guest(7, 'gina'))}/undo-checkin", {"reason": "x"}, status=404
        ).json["code"]
        == "not_on_list"
    )
    assert events() == []


# --- walk-ins ------------------------------------------------------------------------------------------


def test_a_walkin_joins_the_list_and_can_then_be_checked_in(door, meetup, staff):
    erin = add_guest(5, "erin")
    before = datetime.utcnow()
    reply = door.post(f"{entry(meetup, erin)}/add-walkin", status=201).json
    assert reply["rsvp"]["is_walkin"] is True and reply["rsvp"]["has_arrived"] is False
    assert datetime.fromisoformat(reply["rsvp"]["rsvp_time"][:-1]) >= before
    [event] = events("WALKIN")
    assert (event.actor_id, event.guest_id, event.meetup_id) == (staff.id, 5, meetup.id)
    listed = door.get(f"{base(meetup)}/guests").json
    assert listed["counts"] == {
        "rsvps": 1,
        "cancelled": 0,
        "walkins": 1,
        "arrived": 0,
        "waitlisted": 0,
        "people": 0,
        "inside": 0,
        "capacity": None,
    }
    assert door.post(f"{entry(meetup, erin)}/checkin").json["rsvp"]["arrival_order"] == 1


def test_a_guest_already_on_the_list_is_no_walkin(door, meetup, guest):
    assert door.post(f"{entry(meetup, guest)}/add-walkin", status=409).json["code"] == "already_on_list"
    erin = add_guest(5, "erin")
    door.post(f"{entry(meetup, erin)}/add-walkin", status=201)
    assert door.post(f"{entry(meetup, erin)}/add-walkin", status=409).json["code"] == "already_on_list"
    assert door.post(f"{base(meetup)}/guests/424242/add-walkin", status=404).json["code"] == "not_found"
    assert len(events("WALKIN")) == 1


def test_the_etag_changes_with_every_other_change_to_the_list(door, boss, meetup, guest):
    seen = []

    def tag():
        seen.append(door.get(f"{base(meetup)}/guests").headers["ETag"])

    tag()
    local = door.post_json(f"{base(meetup)}/local-walkins", {"displayname": "Ana Lima"}).json["guest"]
    tag()
    boss.patch_json(
        f"/organizations/{meetup.org_id}/guests/{local['platform_user_id']}/link",
        {"username": "bobby_tables"},
    )
    tag()
    boss.patch(f"{base(meetup)}/finalize")
    tag()
    boss.patch_json(f"{entry(meetup, guest)}/excuse", {"reason": "Flu"})
    tag()
    boss.patch(f"{base(meetup)}/unfinalize")
    tag()
    door.post(f"{base(meetup)}/sync")  # the demo platform's summer social: alice's RSVP is not there
    tag()
    assert len(set(seen)) == len(seen), seen


def test_another_orgs_changes_leave_this_list_and_its_etag_alone(door, meetup, guest, make_user, as_user):
    tag = door.get(f"{base(meetup)}/guests").headers["ETag"]
    other = Org.create(name="Early Birds", slug="early-birds")
    theirs = as_user(make_user("eve", org=other, role="ADMIN"))
    url = "https://demo.door.invalid/night-owls/board-games"
    created = theirs.post_json(f"/organizations/{other.id}/meetups/", {"platform_url": url}, status=201).json
    theirs_base = f"/organizations/{other.id}/meetups/{created['id']}"
    theirs.post(f"{theirs_base}/sync")
    bob = add_guest(77, "bob", Meetup.get_by_id(created["id"]))
    theirs.post_json(f"{theirs_base}/guests/77/checkin", {})
    for target in (bob, guest):
        theirs.patch_json(
            f"/organizations/{other.id}/guests/{target.platform_user_id}/ban", {"reason": "Rude"}
        )
    door.get(f"{base(meetup)}/guests", headers={"If-None-Match": tag}, status=304)
