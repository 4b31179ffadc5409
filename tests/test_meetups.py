"""Meetups: created from an event of the fake `rest` platform, listed, fetched, their RSVP lists synced."""

import threading
from datetime import datetime

import pytest
import requests
from helpers import add_guest, assert_query_count, base, entry, events

from doorapp import access
from doorapp.models import AuditEvent, Guest, Meetup, MeetupGuest, Org

# The evening is drawn with fixed dates: they hold on the day they were written for, whatever today is.
pytestmark = pytest.mark.usefixtures("on_the_day")

WEB = "https://community.test"
URL = f"{WEB}/night-owls/summer-social"


@pytest.fixture
def config(config, fake_platform, platform_timeout):
    return fake_platform.configure(config, timeout=platform_timeout)


@pytest.fixture
def fake(fake_platform):
    """Ten members (ids 1-10); the summer social has RSVPs from 1-5."""
    for n in range(1, 11):
        fake_platform.add_user(n, f"user{n}", f"User {n}")
    fake_platform.add_event(
        "night-owls",
        "summer-social",
        "Summer social",
        "2026-12-05T20:00:00Z",
        [(n, f"2026-11-2{n}T10:00:00Z") for n in range(1, 6)],
    )
    fake_platform.add_event("night-owls", "winter-ball", "Winter ball", "2027-01-20T19:30:00+01:00", [])
    return fake_platform


def create(door, org, url=URL, status=201, **body):
    return door.post_json(f"/organizations/{org.id}/meetups/", {"platform_url": url, **body}, status=status)


def sync(door, meetup, status=200):
    return door.post(f"/organizations/{meetup['org_id']}/meetups/{meetup['id']}/sync", status=status).json


def entries(meetup):
    """{platform_user_id: (cancelled_rsvp, is_walkin, has_arrived)} as stored."""
    return {
        e.guest_id: (e.cancelled_rsvp, e.is_walkin, e.has_arrived)
        for e in MeetupGuest.select().where(MeetupGuest.meetup == meetup["id"])
    }


# --- create, list, get --------------------------------------------------------------------------


def test_a_meetup_takes_name_and_date_from_the_platform(door, staff, org, fake):
    fake.set_rsvps("night-owls", "summer-social", [])
    reply = create(door, org, f"{WEB}/+night-owls/summer-social/?ref=mail").json
    assert reply == {
        "id": reply["id"],
        "org_id": str(org.id),
        "name": "Summer social",
        "date": "2026-12-05T20:00:00Z",
        "platform_url": URL,
        "is_finalized": False,
        "finalized_at": None,
        "created_at": reply["created_at"],
        "last_synced_at": reply["last_synced_at"],
        "is_over": False,  # dated in the coming weeks
        "cancelled_at": None,
        "cancel_reason": None,
        "counts": {
            "rsvps": 0,
            "cancelled": 0,
            "walkins": 0,
            "arrived": 0,
            "waitlisted": 0,
            "people": 0,
            "inside": 0,
            "capacity": None,
        },
        "sync_error": None,
    }
    event = events()[0]
    assert (event.event_type, event.actor_id, str(event.org_id), str(event.meetup_id)) == (
        "MEETUP_CREATED",
        staff.id,
        str(org.id),
        reply["id"],
    )
    assert event.details == {"platform_url": URL}
    del reply["sync_error"]  # only the creation's answer tells how its first sync went
    assert door.get(f"/organizations/{org.id}/meetups/{reply['id']}").json == reply


def test_a_given_name_overrides_the_title_and_dates_are_stored_in_utc(door, org, fake):
    reply = create(door, org, f"{WEB}/night-owls/winter-ball", name="  Ball of the year ").json
    assert (reply["name"], reply["date"]) == ("Ball of the year", "2027-01-20T18:30:00Z")
    assert create(door, org, URL, name="").json["name"] == "Summer social"


def test_the_same_event_twice_in_one_org_is_409_but_another_org_may_have_it(
    door, org, fake, make_user, as_user
):
    first = create(door, org).json
    reply = create(door, org, f"{WEB}/+night-owls/summer-social/", status=409).json
    assert reply["code"] == "duplicate_meetup" and reply["meetup"]["id"] == first["id"]
    assert len(fake.calls("thread")) == 1 and Meetup.select().count() == 1
    other = Org.create(name="Day Larks", slug="day-larks")
    create(as_user(make_user("lee", org=other)), other)
    assert Meetup.select().count() == 2


def test_an_event_the_platform_does_not_have_is_404(door, org, fake):
    fake.add_thread("night-owls", "welcome", "Welcome")
    for url in (f"{WEB}/night-owls/nothing-here", f"{WEB}/night-owls/welcome"):
        assert create(door, org, url, status=404).json["code"] == "platform_event_not_found"
    assert Meetup.select().count() == 0 and AuditEvent.select().count() == 0


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "platform_url"),
        ({"platform_url": ""}, "platform_url"),
        ({"platform_url": URL, "name": "x" * 256}, "name"),
        ({"platform_url": 5}, "platform_url"),
    ],
)
def test_a_bad_body_is_422(door, org, fake, body, field):
    reply = door.post_json(f"/organizations/{org.id}/meetups/", body, status=422).json
    assert reply["errors"][0]["loc"] == ["body", field]


def test_meetups_are_listed_newest_date_first_with_counts(door, org, fake):
    fake.add_event("night-owls", "autumn", "Autumn", "2026-10-01T18:00:00Z", [1])
    summer, winter, autumn = (
        create(door, org, f"{WEB}/night-owls/{t}").json for t in ("summer-social", "winter-ball", "autumn")
    )
    sync(door, summer)
    Meetup.create(
        org=Org.create(name="Others", slug="others"),
        name="not ours",
        date=datetime(2030, 1, 1),
        platform_url=URL,
    )
    with assert_query_count(4):  # user with membership, org, meetups, and one query for all the counts
        reply = door.get(f"/organizations/{org.id}/meetups/").json
    assert reply["total"] == 3
    assert [m["id"] for m in reply["meetups"]] == [winter["id"], summer["id"], autumn["id"]]
    assert reply["meetups"][1]["counts"] == {
        "rsvps": 5,
        "cancelled": 0,
        "walkins": 0,
        "arrived": 0,
        "waitlisted": 0,
        "people": 0,
        "inside": 0,
        "capacity": None,
    }
    assert reply["meetups"][1]["last_synced_at"] is not None


def test_a_meetup_of_another_org_is_404(door, org, fake, make_user, as_user):
    other = Org.create(name="Day Larks", slug="day-larks")
    theirs = create(as_user(make_user("lee", org=other)), other).json
    reply = door.get(f"/organizations/{org.id}/meetups/{theirs['id']}", status=404)
    assert reply.json["code"] == "not_found"
    door.post(f"/organizations/{org.id}/meetups/{theirs['id']}/sync", status=404)
    assert door.get(f"/organizations/{other.id}/meetups/", status=403).json["code"] == "not_org_member"


def test_a_site_admin_gets_404_for_an_org_that_does_not_exist(make_user, as_user, fake):
    root = as_user(make_user("root", site_admin=True))
    missing = "00000000-0000-4000-8000-000000000000"
    assert root.get(f"/organizations/{missing}/meetups/", status=404).json["code"] == "not_found"
    reply = root.post_json(f"/organizations/{missing}/meetups/", {"platform_url": URL}, status=404).json
    assert reply["code"] == "not_found" and fake.calls("thread") == []


# --- sync ---------------------------------------------------------------------------------------


def test_creating_a_meetup_syncs_every_rsvp_with_its_guest(door, staff, org, fake):
    meetup = create(door, org).json
    assert meetup["counts"]["rsvps"] == 5 and meetup["last_synced_at"] and meetup["sync_error"] is None
    assert Guest.get_by_id(3).displayname == "User 3"
    assert MeetupGuest.get(MeetupGuest.guest == 3).rsvp_time == datetime(2026, 11, 23, 10)
    [event] = events("MEETUP_SYNCED")
    assert (event.actor_id, str(event.org_id), str(event.meetup_id)) == (staff.id, str(org.id), meetup["id"])
    assert event.details == {"inserted": 5, "updated": 0, "cancelled": 0, "skipped": 0, "total": 5}
    assert events("GUEST_CREATED") == []
    assert fake.calls("thread") == [fake.calls("thread")[0]]  # the event was read once, for both
    shown = door.get(f"/organizations/{org.id}/meetups/{meetup['id']}").json
    assert shown["counts"]["rsvps"] == 5 and shown["last_synced_at"] == meetup["last_synced_at"]
    assert sync(door, meetup) == {"inserted": 0, "updated": 0, "cancelled": 0, "skipped": 0, "total": 5}


def test_sync_follows_the_platform_list(door, org, fake):
    meetup = create(door, org).json
    fake.set_rsvps("night-owls", "summer-social", [1, 2, 3, 6])  # 4 and 5 left, 6 joined
    fake.add_user(2, "user2", "User Two (renamed)")
    assert sync(door, meetup) == {"inserted": 1, "updated": 1, "cancelled": 2, "skipped": 0, "total": 6}
    assert Guest.get_by_id(2).displayname == "User Two (renamed)"
    assert entries(meetup)[4] == (True, False, False) and entries(meetup)[6] == (False, False, False)
    fake.set_rsvps("night-owls", "summer-social", [1, 2, 3, 4, 6])  # 4 came back
    assert sync(door, meetup) == {"inserted": 0, "updated": 1, "cancelled": 0, "skipped": 0, "total": 6}
    assert entries(meetup)[4] == (False, False, False) and entries(meetup)[5] == (True, False, False)
    assert [d["cancelled"] for d in [e.details for e in events("MEETUP_SYNCED")]] == [0, 2, 0]


def test_sync_never_cancels_a_walkin_nor_touches_check_ins(door, org, fake):
    meetup = create(door, org).json
    Guest.create(platform_user_id=99, username="walker", displayname="Walk In")
    door.post(f"/organizations/{org.id}/meetups/{meetup['id']}/guests/99/add-walkin", status=201)
    arrived = door.post_json(f"/organizations/{org.id}/meetups/{meetup['id']}/guests/1/checkin", {}).json
    fake.set_rsvps("night-owls", "summer-social", [2, 3])
    assert sync(door, meetup)["cancelled"] == 2  # 4, 5; not the walk-in, nor 1, who has arrived
    assert entries(meetup)[99] == (False, True, False)
    assert entries(meetup)[1] == (False, False, True)  # cancelled on the platform, but here: stays in
    row = MeetupGuest.get(MeetupGuest.guest == 1)
    assert (row.arrival_order, row.checked_in_by_id) == (
        arrived["rsvp"]["arrival_order"],
        arrived["rsvp"]["checked_in_by"]["id"],
    )


def test_rsvps_without_a_profile_are_skipped(door, org, fake):
    fake.set_rsvps("night-owls", "summer-social", [1, 2, 404])  # the platform returns no profile for 404
    create(door, org)
    assert [e.details for e in events("MEETUP_SYNCED")] == [
        {"inserted": 2, "updated": 0, "cancelled": 0, "skipped": 1, "total": 2}
    ]
    assert Guest.get_or_none(Guest.platform_user_id == 404) is None


def test_profiles_are_fetched_in_batches_of_30_with_64_bit_ids(door, org, fake):
    ids = [2**62 + n for n in range(100)]
    for n in ids:
        fake.add_user(n, f"big{n}", "")
    fake.set_rsvps("night-owls", "summer-social", ids)
    assert create(door, org).json["counts"]["rsvps"] == 100
    batches = [call.split("ids=")[1].split("%2C") for call in fake.calls("users")]
    assert sorted(len(b) for b in batches) == [10, 30, 30, 30]
    assert sorted(int(i) for b in batches for i in b) == ids
    assert door.get(f"/guests/{ids[-1]}").json["platform_user_id"] == ids[-1]


def test_sync_runs_a_fixed_number_of_queries(door, org, fake):
    meetup = create(door, org).json
    # nothing changed: user with membership, meetup, how long its org keeps guests, the list with its
    # guests' names, then in the write transaction the meetup again, its sync time with its list's
    # version, that change's record, the total, the audit event; nothing else is written
    with assert_query_count(9):
        sync(door, meetup)
    fake.set_rsvps("night-owls", "summer-social", range(1, 11))
    # and the newcomers' names, the guests' insert, the entries' insert; the lists the changed guests are
    # on, their versions, the change record (models.changes)
    with assert_query_count(15):
        sync(door, meetup)
    fake.set_rsvps("night-owls", "summer-social", [(n, "2026-11-20T10:00:00Z") for n in range(6, 400)])
    with assert_query_count(13):  # nothing new (no profile for 11 to 399): one UPDATE cancels, and its record
        sync(door, meetup)


def test_a_finalized_meetup_is_not_synced(door, org, fake, make_user, as_user):
    meetup = create(door, org).json
    admin = as_user(make_user("ada", org=org, role="ADMIN"))
    admin.patch(f"/organizations/{org.id}/meetups/{meetup['id']}/finalize")
    fake.set_rsvps("night-owls", "summer-social", [6, 7])
    assert sync(door, meetup, status=409)["code"] == "meetup_finalized"
    assert fake.calls("thread") == [fake.calls("thread")[0]] and set(entries(meetup)) == {1, 2, 3, 4, 5}


# --- sync against other requests, over a real server ----------------------------------------------


def post(url, token, json=None):
    return requests.post(url, json=json, headers={"Authorization": f"Bearer {token}"}, timeout=30)


@pytest.fixture
def token(staff, config):
    return access.issue_token(config.secret_key, staff, 60)


@pytest.mark.parametrize("platform_timeout", [30.0])
def test_a_check_in_during_a_slow_sync_is_not_delayed_by_it(live_server, door, org, fake, token):
    meetup = create(door, org).json
    base = f"{live_server}/organizations/{org.id}/meetups/{meetup['id']}"
    fake.fail("thread", "stall")  # the sync now waits on the platform until released
    answers = {}
    slow = threading.Thread(target=lambda: answers.setdefault("sync", post(f"{base}/sync", token)))
    slow.start()
    try:
        assert fake.wait_stalled()
        checked_in = post(f"{base}/guests/3/checkin", token, {})
        assert checked_in.status_code == 200 and checked_in.json()["rsvp"]["has_arrived"]
        assert slow.is_alive() and fake.stalled == 1  # the sync was still waiting on the platform
    finally:
        fake.release()
        slow.join(timeout=30)
    assert answers["sync"].status_code == 200 and answers["sync"].json()["total"] == 5
    assert entries(meetup)[3] == (False, False, True)


@pytest.mark.parametrize("platform_timeout", [30.0])
def test_two_syncs_at_once_never_duplicate_an_entry(live_server, door, org, fake, token):
    for n in range(100, 160):
        fake.add_user(n, f"user{n}", f"User {n}")
    fake.set_rsvps("night-owls", "summer-social", [])
    meetup = create(door, org).json
    fake.set_rsvps("night-owls", "summer-social", range(100, 160))
    url = f"{live_server}/organizations/{org.id}/meetups/{meetup['id']}/sync"
    fake.fail("thread", "stall")
    answers = []
    syncs = [threading.Thread(target=lambda: answers.append(post(url, token))) for _ in range(2)]
    for thread in syncs:
        thread.start()
    assert fake.wait_stalled(2)  # both have read the meetup and wait on the platform
    fake.release()
    for thread in syncs:
        thread.join(timeout=30)
    assert sorted(a.json()["inserted"] for a in answers) == [0, 60]
    assert all(a.json()["total"] == 60 for a in answers) and MeetupGuest.select().count() == 60


# --- the first sync, at creation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault, status, code", [("500", 502, "platform_error"), ("drop", 504, "platform_unreachable")]
)
def test_a_failed_first_sync_keeps_the_meetup_and_says_so(door, org, fake, fault, status, code):
    fake.fail("users", fault)
    reply = create(door, org).json
    assert reply["sync_error"]["status"] == status and reply["sync_error"]["code"] == code
    assert reply["sync_error"]["detail"].endswith("try again later.")
    assert reply["last_synced_at"] is None and reply["counts"]["rsvps"] == 0
    listed = door.get(f"/organizations/{org.id}/meetups/").json["meetups"]
    assert [(m["id"], m["last_synced_at"]) for m in listed] == [(reply["id"], None)]
    assert [e.event_type for e in events()] == ["MEETUP_CREATED"] and Guest.select().count() == 0
    fake.heal()
    assert sync(door, reply)["inserted"] == 5  # "sync now" fills it in
    assert door.get(f"/organizations/{org.id}/meetups/{reply['id']}").json["last_synced_at"] is not None


@pytest.mark.parametrize("platform_timeout", [30.0])
def test_a_creation_does_not_hold_the_write_lock_while_the_platform_answers(
    live_server, door, org, fake, token, meetup, guest
):
    """The first sync's platform calls run with no transaction open: a check-in at another door goes
    through while the profiles are still on their way."""
    fake.fail("users", "stall")
    answers = {}
    creating = threading.Thread(
        target=lambda: answers.setdefault(
            "create", post(f"{live_server}/organizations/{org.id}/meetups/", token, {"platform_url": URL})
        )
    )
    creating.start()
    try:
        assert fake.wait_stalled()
        checked_in = post(
            f"{live_server}/organizations/{org.id}/meetups/{meetup.id}/guests/"
            f"{guest.platform_user_id}/checkin",
            token,
            {},
        )
        assert checked_in.status_code == 200 and creating.is_alive()
    finally:
        fake.release()
        creating.join(timeout=30)
    assert answers["create"].status_code == 201 and answers["create"].json()["counts"]["rsvps"] == 5


# --- finalize ------------------------------------------------------------------------------------------


def test_an_admin_finalizes_and_the_door_closes(door, boss, meetup, guest):
    erin = add_guest(5, "erin")
    door.post(f"{entry(meetup, guest)}/checkin")
    reply = boss.patch(f"{base(meetup)}/finalize").json
    assert reply["is_finalized"] is True and reply["finalized_at"] is not None
    assert reply["counts"]["arrived"] == 1
    assert events()[-1].event_type == "MEETUP_FINALIZED"
    for refused in (
        door.post(f"{entry(meetup, guest)}/checkin", status=409),
        door.patch_json(f"{entry(meetup, guest)}/undo-checkin", {"reason": "x"}, status=409),
        door.post(f"{entry(meetup, erin)}/add-walkin", status=409),
    ):
        assert refused.json["code"] == "meetup_finalized"
    assert door.get(f"{base(meetup)}/guests").json["total"] == 1  # still readable
    assert boss.patch(f"{base(meetup)}/finalize", status=409).json["code"] == "already_finalized"
    assert len(events("MEETUP_FINALIZED")) == 1


def test_unfinalize_reopens_the_door(door, boss, meetup, guest):
    assert boss.patch(f"{base(meetup)}/unfinalize", status=409).json["code"] == "not_finalized"
    boss.patch(f"{base(meetup)}/finalize")
    reply = boss.patch(f"{base(meetup)}/unfinalize").json
    assert (reply["is_finalized"], reply["finalized_at"]) == (False, None)
    assert [e.event_type for e in events()] == ["MEETUP_FINALIZED", "MEETUP_UNFINALIZED"]
    assert door.post(f"{entry(meetup, guest)}/checkin").json["rsvp"]["arrival_order"] == 1


def test_staff_cannot_finalize(door, meetup):
    assert door.patch(f"{base(meetup)}/finalize", status=403).json["code"] == "org_admin_required"
    assert not Meetup.get_by_id(meetup.id).is_finalized
