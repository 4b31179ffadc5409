"""What a door on venue Wi-Fi relies on: Idempotency-Key on check-in, walk-in and undo (a retry gets the
first answer and acts once, across threads of a real server), the door's own time in the audit event,
people let in by a typed name, and a banned walk-in refused before it is added."""

from datetime import timedelta

import requests
from helpers import at_once, auth, base, entry, events

from doorapp.db import utcnow
from doorapp.models import AuditEvent, Ban, Guest, IdempotencyKey, Meetup, MeetupGuest, Org

KEY = {"Idempotency-Key": "3f1c2a9e-5b7d-4e0a-9c11-2d4b6f8a0e13"}


def test_a_check_in_sent_twice_with_one_key_acts_once_and_answers_the_same(door, meetup, guest):
    first = door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY)
    again = door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY)
    assert again.json == first.json and first.json["rsvp"]["arrival_order"] == 1
    assert again.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert len(events("CHECK_IN")) == 1
    # without the key (or with a new one) it is a second attempt, refused as before
    other = door.post_json(
        f"{entry(meetup, guest)}/checkin", {}, headers={"Idempotency-Key": "k" * 20}, status=409
    )
    assert other.json["code"] == "already_checked_in"


def test_a_replay_answers_the_first_answer_even_after_the_state_moved_on(door, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY)
    door.patch_json(f"{entry(meetup, guest)}/undo-checkin", {"reason": "wrong person"})
    replay = door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY)
    assert replay.json["rsvp"]["arrival_order"] == 1
    # not checked in again
    assert not MeetupGuest.get(MeetupGuest.guest == guest.platform_user_id).has_arrived


def test_a_key_reused_for_another_request_is_422(door, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY)
    for path, body in (
        (f"{entry(meetup, guest)}/checkin", {"force": True}),
        (f"{base(meetup)}/local-walkins", {"displayname": "Ana"}),
    ):
        reply = door.post_json(path, body, headers=KEY, status=422)
        assert reply.json["code"] == "idempotency_key_reused"
    assert len(events("CHECK_IN")) == 1 and not events("WALKIN")


def test_keys_are_each_users_own(door, boss, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY)
    reply = boss.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY, status=409)
    assert reply.json["code"] == "already_checked_in"


def test_a_refused_request_keeps_no_key_and_is_judged_again(door, boss, meetup, guest, org):
    Ban.create(org=org, guest=guest, reason="Loud")
    door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY, status=409)
    assert IdempotencyKey.select().count() == 0
    boss.patch(f"/organizations/{org.id}/guests/{guest.platform_user_id}/unban")
    assert door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY).json["rsvp"]["has_arrived"]


def test_a_key_older_than_the_retention_is_forgotten(door, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY)
    IdempotencyKey.update(created_at=utcnow() - IdempotencyKey.RETENTION - timedelta(minutes=1)).execute()
    reply = door.post_json(f"{entry(meetup, guest)}/checkin", {}, headers=KEY, status=409)
    assert reply.json["code"] == "already_checked_in"


def test_a_malformed_key_is_422_and_the_header_is_documented(door, client, meetup, guest):
    for bad in ("short", "x" * 256, "has space in it"):
        reply = door.post_json(
            f"{entry(meetup, guest)}/checkin", {}, headers={"Idempotency-Key": bad}, status=422
        )
        assert reply.json["errors"][0]["loc"] == ["header", "Idempotency-Key"]
    paths = client.get("/openapi.json").json["paths"]
    for path, method in (
        ("/guests/{platform_user_id}/checkin", "post"),
        ("/guests/{platform_user_id}/add-walkin", "post"),
        ("/guests/{platform_user_id}/undo-checkin", "patch"),
        ("/local-walkins", "post"),
    ):
        operation = paths["/organizations/{org_id}/meetups/{meetup_id}" + path][method]
        header = [p for p in operation["parameters"] if p["in"] == "header"]
        assert header[0]["name"] == "Idempotency-Key" and "24 hours" in header[0]["description"]
        assert "idempotency_key_reused" in operation["responses"]["422"]["description"]


def test_twelve_threads_sending_one_key_at_once_check_in_once(live_server, meetup, guest, staff):
    url = f"{live_server}{entry(meetup, guest)}/checkin"
    replies = at_once(12, lambda i: requests.post(url, json={}, headers={**auth(staff), **KEY}, timeout=30))
    assert [r.status_code for r in replies] == [200] * 12
    assert {r.json()["rsvp"]["arrival_order"] for r in replies} == {1}
    assert sum(r.headers.get("Idempotent-Replayed") == "true" for r in replies) == 11
    assert len(events("CHECK_IN")) == 1 and Meetup.get_by_id(meetup.id).last_arrival_order == 1


def test_twelve_threads_sending_one_local_walkin_key_add_one_person(live_server, meetup, staff):
    url = f"{live_server}{base(meetup)}/local-walkins"
    replies = at_once(
        12,
        lambda i: requests.post(
            url, json={"displayname": "Ana Lima"}, headers={**auth(staff), **KEY}, timeout=30
        ),
    )
    assert [r.status_code for r in replies] == [201] * 12
    assert len({r.json()["guest"]["platform_user_id"] for r in replies}) == 1
    assert Guest.select().where(Guest.is_local).count() == 1 and len(events("WALKIN")) == 1


def test_the_audit_event_keeps_the_door_time_beside_the_server_time(door, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {"door_time": "2026-12-05T21:03:04.500+01:00"})
    door.patch_json(
        f"{entry(meetup, guest)}/undo-checkin", {"reason": "x", "door_time": "2026-12-05T20:04:00Z"}
    )
    check_in, undo = events("CHECK_IN")[0], events("UNDO_CHECK_IN")[0]
    assert check_in.details == {"door_time": "2026-12-05T20:03:04.500000Z"}
    assert undo.details["door_time"] == "2026-12-05T20:04:00Z"
    assert abs(check_in.timestamp - utcnow()) < timedelta(minutes=1)  # the server's time orders the log


def test_a_door_clock_far_off_is_kept_but_does_not_move_the_event(door, boss, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {"door_time": "1999-01-01T00:00:00Z"})
    since = (utcnow() - timedelta(hours=1)).isoformat()
    log = boss.get(f"/organizations/{meetup.org_id}/events/?since={since}Z")
    assert [e["event_type"] for e in log.json["events"]][:1] == ["CHECK_IN"]


def test_a_door_time_that_is_no_time_is_422(door, meetup, guest):
    for bad in ("yesterday", "2026-12-05T20:00:00", 5):
        reply = door.post_json(f"{entry(meetup, guest)}/checkin", {"door_time": bad}, status=422)
        assert reply.json["errors"][0]["loc"] == ["body", "door_time"]
    assert not events("CHECK_IN")


def test_a_person_not_on_the_platform_is_let_in_counted_and_kept_out_of_lookups(door, boss, meetup, org):
    reply = door.post_json(f"{base(meetup)}/local-walkins", {"displayname": "  Ana <b>Lima</b> "}, status=201)
    local = reply.json
    assert local["guest"]["displayname"] == "Ana <b>Lima</b>" and local["guest"]["is_local"] is True
    assert local["guest"]["platform_user_id"] < 0 and local["guest"]["username"] == ""
    assert local["rsvp"]["is_walkin"] and local["rsvp"]["has_arrived"] and local["rsvp"]["arrival_order"] == 1
    listed = door.get(f"{base(meetup)}/guests").json
    assert listed["counts"] == {
        "rsvps": 1,
        "cancelled": 0,
        "walkins": 1,
        "arrived": 1,
        "waitlisted": 0,
        "people": 1,
        "inside": 1,
        "capacity": None,
    }
    local_id = local["guest"]["platform_user_id"]
    assert door.get(f"/guests/{local_id}", status=404).json["code"] == "not_found"
    assert door.get("/guests/?q=Ana").json["total"] == 0
    # the audit log has it; it can be undone and banned like anyone
    kept = AuditEvent.select().where(AuditEvent.guest == local_id).order_by(AuditEvent.id)
    assert [e.event_type for e in kept] == ["WALKIN", "CHECK_IN"]
    door.patch_json(f"{entry(meetup, Guest.get_by_id(local_id))}/undo-checkin", {"reason": "left"})
    boss.patch_json(f"/organizations/{org.id}/guests/{local_id}/ban", {"reason": "Loud"})
    assert door.get(f"{base(meetup)}/guests").json["guests"][-1]["guest"]["is_banned"] is True


def test_a_local_walkin_needs_a_name_and_an_open_meetup(door, boss, meetup):
    assert door.post_json(f"{base(meetup)}/local-walkins", {"displayname": " "}, status=422)
    boss.patch(f"{base(meetup)}/finalize")
    assert (
        door.post_json(f"{base(meetup)}/local-walkins", {"displayname": "Ana"}, status=409).json["code"]
        == "meetup_finalized"
    )
    assert not Guest.select().where(Guest.is_local).exists()


def test_a_banned_walkin_checked_in_at_once_is_refused_before_it_is_added(door, meetup, org):
    erin = Guest.create(platform_user_id=77, username="erin", displayname="Erin")
    Ban.create(org=org, guest=erin, reason="Loud")
    path = f"{entry(meetup, erin)}/add-walkin"
    refused = door.post_json(path, {"check_in": True}, status=409).json
    assert refused["code"] == "guest_banned" and refused["ban_reason"] == "Loud"
    assert "Erin (@erin)" in refused["detail"]
    assert not MeetupGuest.select().where(MeetupGuest.guest == 77).exists() and not events("WALKIN")
    forced = door.post_json(path, {"check_in": True, "force": True}, status=201).json
    assert forced["rsvp"]["has_arrived"] and forced["rsvp"]["is_walkin"]
    assert events("CHECK_IN")[0].details == {"forced": True}


def test_the_door_list_carries_the_meetups_state_and_finalize_changes_its_version(door, boss, meetup):
    first = door.get(f"{base(meetup)}/guests")
    assert first.json["meetup"]["is_finalized"] is False
    boss.patch(f"{base(meetup)}/finalize")
    after = door.get(f"{base(meetup)}/guests", headers={"If-None-Match": first.headers["ETag"]})
    assert after.status_int == 200 and after.json["meetup"]["is_finalized"] is True
    assert after.json["meetup"]["finalized_at"] is not None


def let_in_by_name(door, meetup, name="Ana Lima"):
    return door.post_json(f"{base(meetup)}/local-walkins", {"displayname": name}, status=201).json["guest"]


def test_a_guest_let_in_by_name_is_linked_to_their_platform_account_later(door, boss, meetup, org):
    local = let_in_by_name(door, meetup)
    boss.patch_json(f"/organizations/{org.id}/guests/{local['platform_user_id']}/ban", {"reason": "Loud"})
    linked = boss.patch_json(
        f"/organizations/{org.id}/guests/{local['platform_user_id']}/link", {"username": "bobby_tables"}
    ).json
    assert (linked["platform_user_id"], linked["username"]) == (1007, "bobby_tables")
    entries = {e["guest"]["platform_user_id"]: e for e in door.get(f"{base(meetup)}/guests").json["guests"]}
    assert local["platform_user_id"] not in entries
    assert entries[1007]["rsvp"]["is_walkin"] and entries[1007]["rsvp"]["arrival_order"] == 1
    assert entries[1007]["guest"]["is_banned"] and entries[1007]["guest"]["ban_reason"] == "Loud"
    assert door.get("/guests/1007").json["username"] == "bobby_tables"
    event = events("GUEST_LINKED")[0]
    assert event.guest_id == 1007 and event.details == {
        "local_id": local["platform_user_id"],
        "entries": 1,
        "bans": 1,
    }
    kept = AuditEvent.select().where(AuditEvent.guest == local["platform_user_id"]).order_by(AuditEvent.id)
    assert [e.event_type for e in kept] == ["WALKIN", "CHECK_IN", "BAN"]  # the log is never rewritten


def test_linking_onto_someone_already_on_the_list_moves_nothing(door, boss, meetup, org):
    local = let_in_by_name(door, meetup)
    bobby = Guest.create(platform_user_id=1007, username="bobby_tables", displayname="Bobby")
    MeetupGuest.create(meetup=meetup, guest=bobby)
    reply = boss.patch_json(
        f"/organizations/{org.id}/guests/{local['platform_user_id']}/link",
        {"username": "bobby_tables"},
        status=409,
    ).json
    assert reply["code"] == "already_on_list"
    assert MeetupGuest.select().where(MeetupGuest.guest == local["platform_user_id"]).count() == 1
    assert not events("GUEST_LINKED")


def test_only_a_local_guest_of_this_organization_can_be_linked(door, boss, meetup, org, guest):
    let_in_by_name(door, meetup)
    elsewhere = Meetup.create(
        org=Org.create(name="Other", slug="other"),
        name="Theirs",
        date=utcnow(),
        platform_url="https://demo.door.invalid/night-owls/board-games",
    )
    theirs = Guest.create_local("Not Yours", elsewhere.org_id)
    MeetupGuest.create(meetup=elsewhere, guest=theirs, is_walkin=True)
    for guest_id in (guest.platform_user_id, -12345, theirs.platform_user_id):
        reply = boss.patch_json(
            f"/organizations/{org.id}/guests/{guest_id}/link", {"username": "zalgo"}, status=404
        )
        assert reply.json["code"] == "not_found"
    local = Guest.get(Guest.displayname == "Ana Lima")
    unknown = boss.patch_json(
        f"/organizations/{org.id}/guests/{local.platform_user_id}/link",
        {"username": "nobody_at_all"},
        status=404,
    )
    assert unknown.json["code"] == "platform_user_not_found"
    assert (
        door.patch_json(
            f"/organizations/{org.id}/guests/{local.platform_user_id}/link", {"username": "zalgo"}, status=403
        ).json["code"]
        == "org_admin_required"
    )
    assert not events("GUEST_LINKED")
