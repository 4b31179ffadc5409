"""People in the room over HTTP: an arrival steps out and comes back in keeping their number and time,
people who leave unseen are counted out, `counts.inside` says who is in wherever counts are, a capacity
that holds (a person may override it, saying why; a door pass may not), and finalizing sends everyone out.
Two doors at the last place, over a real server's threads: tests/test_races.py has two processes."""

from datetime import timedelta

import pytest
import requests
from helpers import ENGINES, at_once, auth, base, entry, events, follow, phone_of

from doorapp.db import iso, utcnow
from doorapp.models import Guest, Meetup, MeetupGuest

pytestmark = ENGINES  # on SQLite and on PostgreSQL

KEY = {"Idempotency-Key": "7c0f3a1e-2b9d-4e8a-9f10-3c5b7d9e1f24"}


def add(meetup, platform_user_id, username, **fields):
    guest = Guest.create(platform_user_id=platform_user_id, username=username, displayname=username.title())
    MeetupGuest.create(meetup=meetup, guest=guest, **fields)
    return guest


def inside(client, meetup):
    """counts.inside as the door list, the meetup and the summary each say it (they agree)."""
    said = {
        client.get(f"{base(meetup)}/guests").json["counts"]["inside"],
        client.get(base(meetup)).json["counts"]["inside"],
        client.get(f"{base(meetup)}/summary").json["meetup"]["counts"]["inside"],
    }
    assert len(said) == 1, said
    return said.pop()


def heads_inside(meetup):
    """The people inside as the entries say it: arrivals not stepped out, with the guests they brought."""
    entries = MeetupGuest.select().where(MeetupGuest.meetup == meetup, MeetupGuest.has_arrived)
    return sum(1 + (e.guests_brought or 0) for e in entries if e.exited_at is None)


def set_capacity(boss, meetup, capacity):
    return boss.patch_json(base(meetup), {"capacity": capacity}).json


@pytest.fixture
def phone(client, boss, meetup):
    made = boss.post_json(f"/organizations/{meetup.org_id}/passes", {"label": "Maria's phone"}).json
    return phone_of(client, made)


# --- stepping out and back in --------------------------------------------------------------------------


def test_a_smoker_steps_out_and_back_in_keeping_their_number_and_time(door, meetup, guest, staff):
    MeetupGuest.update(guests_count=1).where(MeetupGuest.guest == guest).execute()
    came = iso(utcnow().replace(microsecond=0) - timedelta(minutes=30))
    arrived = door.post_json(f"{entry(meetup, guest)}/checkin", {"door_time": came}).json["rsvp"]
    assert (arrived["inside"], arrived["exited_at"]) == (True, None) and inside(door, meetup) == 2
    minutes_ago = iso(utcnow().replace(microsecond=0) - timedelta(minutes=3))
    out = door.post_json(f"{entry(meetup, guest)}/exit", {"door_time": minutes_ago}).json["rsvp"]
    assert out["inside"] is False and out["exited_at"] == minutes_ago  # the door's minute, sent late
    assert (out["has_arrived"], out["arrival_order"], out["arrival_time"]) == (
        True,
        1,
        arrived["arrival_time"],
    )
    assert inside(door, meetup) == 0  # with the guest they brought
    listed = door.get(f"{base(meetup)}/guests").json["guests"][0]["rsvp"]
    assert listed == out
    back = door.post_json(f"{entry(meetup, guest)}/reenter", {}).json["rsvp"]
    assert (back["inside"], back["exited_at"], back["arrival_order"]) == (True, None, 1)
    assert back["arrival_time"] == arrived["arrival_time"] and inside(door, meetup) == 2
    [exit_event] = events("EXIT")
    [reentry] = events("REENTRY")
    assert (exit_event.actor_id, exit_event.guest_id, exit_event.details) == (
        staff.id,
        guest.platform_user_id,
        {"door_time": minutes_ago},
    )
    assert (reentry.actor_id, reentry.details) == (staff.id, {})
    assert Meetup.get_by_id(meetup.id).last_arrival_order == 1  # nobody got a new number


def test_stepping_out_and_back_in_say_why_not(door, meetup, guest):
    assert door.post_json(f"{entry(meetup, guest)}/exit", {}, status=409).json["code"] == "not_checked_in"
    assert door.post_json(f"{entry(meetup, guest)}/reenter", {}, status=409).json["code"] == "not_checked_in"
    door.post_json(f"{entry(meetup, guest)}/checkin", {})
    refused = door.post_json(f"{entry(meetup, guest)}/reenter", {}, status=409).json
    assert (refused["code"], refused["arrival_order"]) == ("not_outside", 1)
    out = door.post_json(f"{entry(meetup, guest)}/exit", {}).json["rsvp"]
    again = door.post_json(f"{entry(meetup, guest)}/exit", {}, status=409).json
    assert (again["code"], again["exited_at"]) == ("already_outside", out["exited_at"])
    assert door.post_json(f"{entry(meetup, guest)}/exit", {"door_time": "yesterday"}, status=422)
    stranger = Guest.create(platform_user_id=77, username="nobody")
    assert door.post_json(f"{entry(meetup, stranger)}/exit", {}, status=404).json["code"] == "not_on_list"
    assert len(events("EXIT")) == 1 and inside(door, meetup) == 0


def test_a_door_time_in_the_future_or_before_the_arrival_is_not_the_exits_time(door, meetup, guest):
    arrived = door.post_json(f"{entry(meetup, guest)}/checkin", {}).json["rsvp"]
    later = iso(utcnow() + timedelta(hours=2))
    out = door.post_json(f"{entry(meetup, guest)}/exit", {"door_time": later}).json["rsvp"]
    assert arrived["arrival_time"] <= out["exited_at"] < later
    door.post_json(f"{entry(meetup, guest)}/reenter", {})
    before = iso(utcnow() - timedelta(hours=1))  # a phone's clock an hour slow: not out before they came
    assert (
        door.post_json(f"{entry(meetup, guest)}/exit", {"door_time": before}).json["rsvp"]["exited_at"]
        == (arrived["arrival_time"])
    )


def test_an_exit_sent_twice_with_one_key_acts_once(door, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {})
    first = door.post_json(f"{entry(meetup, guest)}/exit", {}, headers=KEY)
    again = door.post_json(f"{entry(meetup, guest)}/exit", {}, headers=KEY)
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    other = {"Idempotency-Key": "another-key-for-the-return"}
    door.post_json(f"{entry(meetup, guest)}/reenter", {}, headers=other)
    assert door.post_json(f"{entry(meetup, guest)}/reenter", {}, headers=other).json["rsvp"]["inside"]
    assert (len(events("EXIT")), len(events("REENTRY")), inside(door, meetup)) == (1, 1, 1)


def test_an_undo_counts_out_only_who_was_inside(door, meetup, guest):
    bob = add(meetup, 2, "bob", guests_count=2)
    door.post_json(f"{entry(meetup, guest)}/checkin", {})
    door.post_json(f"{entry(meetup, bob)}/checkin", {})  # with both his guests
    assert inside(door, meetup) == 4
    door.post_json(f"{entry(meetup, bob)}/exit", {})
    door.patch_json(f"{entry(meetup, bob)}/undo-checkin", {"reason": "not Bob"})
    assert inside(door, meetup) == 1 == heads_inside(meetup)
    door.patch_json(f"{entry(meetup, guest)}/undo-checkin", {"reason": "not Alice"})
    assert inside(door, meetup) == 0
    again = door.post_json(f"{entry(meetup, bob)}/checkin", {}).json["rsvp"]
    assert (again["inside"], again["exited_at"], inside(door, meetup)) == (True, None, 3)


def test_a_correction_of_the_guests_brought_moves_who_is_inside(door, boss, meetup, guest):
    MeetupGuest.update(guests_count=3).where(MeetupGuest.guest == guest).execute()
    door.post_json(f"{entry(meetup, guest)}/checkin", {"guests_brought": 1})
    assert inside(door, meetup) == 2
    boss.patch_json(f"{entry(meetup, guest)}/guests-brought", {"guests_brought": 3})
    assert inside(door, meetup) == 4
    door.post_json(f"{entry(meetup, guest)}/exit", {})
    boss.patch_json(f"{entry(meetup, guest)}/guests-brought", {"guests_brought": 0})  # outside: no change
    assert inside(door, meetup) == 0
    door.post_json(f"{entry(meetup, guest)}/reenter", {})
    assert inside(door, meetup) == 1 == heads_inside(meetup)


def test_people_who_left_unseen_are_counted_out_never_below_zero(door, meetup, guest, staff):
    bob = add(meetup, 2, "bob")
    for who in (guest, bob):
        door.post_json(f"{entry(meetup, who)}/checkin", {})
    left = door.post_json(f"{base(meetup)}/left", {"people": 1}).json
    assert left["counts"]["inside"] == 1 and left["counts"]["people"] == 2 and inside(door, meetup) == 1
    assert door.post_json(f"{base(meetup)}/left", {"people": 5}).json["counts"]["inside"] == 0
    assert inside(door, meetup) == 0  # never below 0
    for people in (0, 51, "2", None):
        door.post_json(f"{base(meetup)}/left", {"people": people}, status=422)
    assert [(e.actor_id, e.details["people"], e.details["inside"]) for e in events("PEOPLE_LEFT")] == [
        (staff.id, 1, 1),
        (staff.id, 5, 0),
    ]
    door.post_json(f"{base(meetup)}/left", {"people": 1}, headers=KEY)
    door.post_json(f"{base(meetup)}/left", {"people": 1}, headers=KEY)
    assert len(events("PEOPLE_LEFT")) == 3
    # a guest found on the list and stepped out after people left unseen: back in, they are inside again
    door.post_json(f"{entry(meetup, bob)}/exit", {})
    door.post_json(f"{entry(meetup, bob)}/reenter", {})
    assert inside(door, meetup) == 1


def test_a_door_pass_steps_guests_out_and_back_in_and_counts_people_out(phone, meetup, guest):
    phone.post_json(f"{entry(meetup, guest)}/checkin", {})
    assert phone.post_json(f"{entry(meetup, guest)}/exit", {}).json["rsvp"]["inside"] is False
    assert phone.post_json(f"{entry(meetup, guest)}/reenter", {}).json["rsvp"]["inside"] is True
    assert phone.post_json(f"{base(meetup)}/left", {"people": 1}).json["counts"]["inside"] == 0
    assert {e.actor_pass_id for e in events("EXIT", "REENTRY", "PEOPLE_LEFT")} != {None}


# --- capacity ------------------------------------------------------------------------------------------


def test_an_org_admin_sets_the_capacity_and_others_may_not(boss, door, phone, meetup, boss_user):
    assert set_capacity(boss, meetup, 60)["counts"]["capacity"] == 60
    assert door.get(f"{base(meetup)}/guests").json["counts"]["capacity"] == 60
    set_capacity(boss, meetup, 60)  # unchanged: no event
    assert set_capacity(boss, meetup, None)["counts"]["capacity"] is None
    assert [(e.actor_id, e.details) for e in events("CAPACITY_CHANGED")] == [
        (boss_user.id, {"capacity_before": None, "capacity": 60}),
        (boss_user.id, {"capacity_before": 60, "capacity": None}),
    ]
    assert door.patch_json(base(meetup), {"capacity": 5}, status=403).json["code"] == "org_admin_required"
    assert phone.patch_json(base(meetup), {"capacity": 5}, status=403).json["code"] == "pass_not_allowed"
    for capacity in (0, 100_001, "60", True):
        boss.patch_json(base(meetup), {"capacity": capacity}, status=422)
    assert boss.patch_json(base(meetup), {}, status=422).json["errors"][0]["loc"] == ["body", "capacity"]


def test_the_61st_person_is_stopped_unless_a_host_says_why(door, boss, meetup, guest, staff, org):
    others = [add(meetup, i, f"guest{i}") for i in range(2, 62)]
    set_capacity(boss, meetup, 60)
    for who in [guest, *others[:59]]:
        door.post_json(f"{entry(meetup, who)}/checkin", {})
    sixty_first = others[59]
    full = door.post_json(f"{entry(meetup, sixty_first)}/checkin", {}, status=409).json
    assert (full["code"], full["inside"], full["capacity"]) == ("capacity_reached", 60, 60)
    assert not MeetupGuest.get(MeetupGuest.guest == sixty_first).has_arrived and len(events("CHECK_IN")) == 60
    missing = door.post_json(f"{entry(meetup, sixty_first)}/checkin", {"force_capacity": True}, status=422)
    assert missing.json["errors"][0]["loc"] == ["body", "reason"]
    let_in = door.post_json(
        f"{entry(meetup, sixty_first)}/checkin", {"force_capacity": True, "reason": "the speaker"}
    ).json
    assert let_in["rsvp"]["arrival_order"] == 61 and inside(door, meetup) == 61
    event = events("CHECK_IN")[-1]
    assert (event.actor_id, event.guest_id, event.reason) == (
        staff.id,
        sixty_first.platform_user_id,
        "the speaker",
    )
    assert event.details == {"over_capacity": True, "capacity": 60}
    # someone stepping out makes room for one; back in, the one who stepped out needs room too
    door.post_json(f"{entry(meetup, guest)}/exit", {})
    door.post_json(f"{entry(meetup, others[0])}/exit", {})
    door.post_json(f"{entry(meetup, guest)}/reenter", {})
    full = door.post_json(f"{entry(meetup, others[0])}/reenter", {}, status=409).json
    assert (full["code"], full["inside"], full["capacity"]) == ("capacity_reached", 60, 60)
    assert MeetupGuest.get(MeetupGuest.guest == others[0]).exited_at is not None
    door.post_json(f"{entry(meetup, others[0])}/reenter", {"force_capacity": True, "reason": "her coat"})
    assert events("REENTRY")[-1].details == {"over_capacity": True, "capacity": 60}


def test_a_full_room_refuses_walk_ins_before_anything_is_added(door, boss, meetup, guest):
    set_capacity(boss, meetup, 1)
    door.post_json(f"{entry(meetup, guest)}/checkin", {})
    erin = Guest.create(platform_user_id=5, username="erin")
    full = door.post_json(f"{entry(meetup, erin)}/add-walkin", {"check_in": True}, status=409).json
    assert (
        full["code"] == "capacity_reached"
        and not MeetupGuest.select().where(MeetupGuest.guest == erin).exists()
    )
    door.post_json(f"{entry(meetup, erin)}/add-walkin", {}, status=201)  # added, not let in: no room needed
    local = door.post_json(f"{base(meetup)}/local-walkins", {"displayname": "Nadia"}, status=409).json
    assert local["code"] == "capacity_reached" and not Guest.select().where(Guest.is_local).exists()
    forced = {"displayname": "Nadia", "force_capacity": True, "reason": "a host's friend"}
    assert door.post_json(f"{base(meetup)}/local-walkins", forced, status=201).json["rsvp"]["inside"]
    assert inside(door, meetup) == 2 and events("CHECK_IN")[-1].reason == "a host's friend"


def test_a_check_in_needs_room_for_the_guests_they_bring(door, boss, meetup, guest):
    MeetupGuest.update(guests_count=2).where(MeetupGuest.guest == guest).execute()
    bob = add(meetup, 2, "bob")
    set_capacity(boss, meetup, 3)
    door.post_json(f"{entry(meetup, bob)}/checkin", {})
    full = door.post_json(f"{entry(meetup, guest)}/checkin", {}, status=409).json
    assert (full["code"], full["inside"]) == ("capacity_reached", 1)
    assert door.post_json(f"{entry(meetup, guest)}/checkin", {"guests_brought": 1}).json["rsvp"]["inside"]
    assert inside(door, meetup) == 3


def test_a_door_pass_cannot_let_anyone_in_past_the_capacity(phone, boss, meetup, guest):
    set_capacity(boss, meetup, 1)
    body = {"force_capacity": True, "reason": "I said so"}
    for path in ("checkin", "reenter"):  # refused before anything is looked at, room or not
        refused = phone.post_json(f"{entry(meetup, guest)}/{path}", body, status=403).json
        assert refused["code"] == "pass_not_allowed"
    refused = phone.post_json(f"{base(meetup)}/local-walkins", {"displayname": "Ana", **body}, status=403)
    assert refused.json["code"] == "pass_not_allowed"
    phone.post_json(f"{entry(meetup, guest)}/checkin", {})
    bob = add(meetup, 2, "bob")
    assert phone.post_json(f"{entry(meetup, bob)}/checkin", {}, status=409).json["code"] == "capacity_reached"
    assert (
        phone.post_json(f"{entry(meetup, bob)}/checkin", body, status=403).json["code"] == "pass_not_allowed"
    )
    assert len(events("CHECK_IN")) == 1


# --- the night as a whole -------------------------------------------------------------------------------


def test_finalize_sends_everyone_out_and_the_summary_gives_the_peak(door, boss, meetup, guest):
    bob, carol = add(meetup, 2, "bob", guests_count=1), add(meetup, 3, "carol")
    for who in (guest, bob, carol):
        door.post_json(f"{entry(meetup, who)}/checkin", {})
    peak_reached = utcnow()
    door.post_json(f"{entry(meetup, bob)}/exit", {})
    door.post_json(f"{base(meetup)}/left", {"people": 1})
    summary = door.get(f"{base(meetup)}/summary").json
    assert summary["counts"]["peak_inside"] == 4 and summary["peak_at"] <= iso(peak_reached)
    assert summary["meetup"]["counts"]["inside"] == 1
    boss.patch(f"{base(meetup)}/finalize")
    assert events("MEETUP_FINALIZED")[0].details == {"inside": 1}
    listed = door.get(f"{base(meetup)}/guests").json
    assert listed["counts"]["inside"] == 0 and not any(g["rsvp"]["inside"] for g in listed["guests"])
    assert all(g["rsvp"]["exited_at"] for g in listed["guests"] if g["rsvp"]["has_arrived"])
    assert door.post_json(f"{entry(meetup, bob)}/reenter", {}, status=409).json["code"] == "meetup_finalized"
    assert (
        door.post_json(f"{base(meetup)}/left", {"people": 1}, status=409).json["code"] == "meetup_finalized"
    )
    assert door.get(f"{base(meetup)}/summary").json["counts"]["peak_inside"] == 4
    boss.patch(f"{base(meetup)}/unfinalize")  # reopened: nobody is inside until they come back in
    assert inside(door, meetup) == 0
    door.post_json(f"{entry(meetup, bob)}/reenter", {})
    assert inside(door, meetup) == 2 == heads_inside(meetup)


def test_every_change_of_who_is_inside_moves_the_door_lists_version(door, meetup, guest):
    door.post_json(f"{entry(meetup, guest)}/checkin", {})
    tags = [door.get(f"{base(meetup)}/guests").headers["ETag"]]
    for path, body in (
        (f"{entry(meetup, guest)}/exit", {}),
        (f"{entry(meetup, guest)}/reenter", {}),
        (f"{base(meetup)}/left", {"people": 1}),
    ):
        door.post_json(path, body)
        reply = door.get(f"{base(meetup)}/guests", headers={"If-None-Match": tags[-1]})
        assert reply.status_int == 200
        tags.append(reply.headers["ETag"])
    assert len(set(tags)) == 4


def test_the_count_inside_is_what_the_entries_say_after_any_mix_of_actions(door, boss, meetup, guest):
    crowd = [guest, *(add(meetup, i, f"guest{i}", guests_count=i % 3) for i in range(2, 12))]
    steps = ["checkin", "exit", "checkin", "reenter", "exit", "undo", "checkin", "exit", "reenter", "checkin"]
    for n, who in enumerate(crowd * 3):
        step = steps[(n * 7 + who.platform_user_id) % len(steps)]
        if step == "undo":
            door.patch_json(f"{entry(meetup, who)}/undo-checkin", {"reason": "mixed up"}, expect_errors=True)
        else:
            door.post_json(f"{entry(meetup, who)}/{step}", {}, expect_errors=True)
        assert inside(door, meetup) == heads_inside(meetup)


def test_two_doors_at_the_last_place_exactly_one_gets_it(live_server, meetup, staff):
    """Ten doors each checking in a guest of their own when one place is left, over a real server's threads;
    then ten arrivals who stepped out coming back in at once with one place left."""
    crowd = [add(meetup, i, f"guest{i}") for i in range(2, 22)]
    Meetup.update(capacity=11).where(Meetup.id == meetup.id).execute()
    headers = auth(staff)
    url = f"{live_server}{base(meetup)}/guests"
    for who in crowd[:10]:
        assert requests.post(f"{url}/{who.platform_user_id}/checkin", headers=headers, timeout=30).ok
    replies = at_once(
        10,
        lambda i: requests.post(
            f"{url}/{crowd[10 + i].platform_user_id}/checkin", headers=headers, timeout=30
        ),
    )
    assert sorted(r.status_code for r in replies) == [200] + [409] * 9
    assert {r.json()["code"] for r in replies if r.status_code == 409} == {"capacity_reached"}
    assert Meetup.get_by_id(meetup.id).inside == 11 == heads_inside(meetup)
    for who in crowd[:10]:
        assert requests.post(f"{url}/{who.platform_user_id}/exit", headers=headers, timeout=30).ok
    Meetup.update(capacity=2).where(Meetup.id == meetup.id).execute()
    replies = at_once(
        10, lambda i: requests.post(f"{url}/{crowd[i].platform_user_id}/reenter", headers=headers, timeout=30)
    )
    assert sorted(r.status_code for r in replies) == [200] + [409] * 9
    assert Meetup.get_by_id(meetup.id).inside == 2 == heads_inside(meetup)
    assert len(events("REENTRY")) == 1


def test_a_door_following_the_deltas_sees_exits_re_entries_people_left_and_tags(door, boss, meetup, guest):
    """Each change of who is in, and of what the org keeps on a guest, reaches a door that holds the list
    and asks what changed since: the rows it changed (none for a count), and the door then holds what a
    plain GET answers."""
    bob, carol = add(meetup, 2, "bob"), add(meetup, 3, "carol")
    for who in (guest, bob):
        door.post_json(f"{entry(meetup, who)}/checkin", {})
    url = f"/organizations/{meetup.org_id}"
    speaker = boss.post_json(f"{url}/tags", {"label": "Speaker", "color": "purple"}, status=201).json
    steps = [
        (lambda: door.post_json(f"{entry(meetup, guest)}/exit", {}), {guest.platform_user_id}),
        (lambda: door.post_json(f"{entry(meetup, guest)}/reenter", {}), {guest.platform_user_id}),
        (lambda: door.post_json(f"{base(meetup)}/left", {"people": 1}), set()),
        (lambda: boss.patch_json(base(meetup), {"capacity": 60}), set()),
        (lambda: boss.put_json(f"{url}/guests/3/tags", {"tags": [speaker["id"]], "note": "Talk at 9"}), {3}),
        (lambda: boss.put_json(f"{url}/guests/2/tags", {"tags": [speaker["id"]]}), {2}),
        (lambda: boss.patch_json(f"{url}/tags/{speaker['id']}", {"label": "Speaker tonight"}), {2, 3}),
        (lambda: boss.delete(f"{url}/tags/{speaker['id']}", status=204), {2, 3}),
        (lambda: boss.patch(f"{base(meetup)}/finalize"), {guest.platform_user_id, 2}),
    ]
    held = follow(None, door.get(f"{base(meetup)}/guests").json)
    for act, rows in steps:
        act()
        delta = door.get(f"{base(meetup)}/guests", {"since": held["version"]}).json
        assert delta["full"] is False and delta["removed"] == []
        assert {g["guest"]["platform_user_id"] for g in delta["guests"]} == rows
        held = follow(held, delta)
        assert held == follow(None, door.get(f"{base(meetup)}/guests").json)
    assert held["counts"]["inside"] == 0 and held["counts"]["capacity"] == 60
    assert not any(g["rsvp"]["inside"] for g in held["guests"].values())
    assert held["guests"][3]["guest"]["tags"] == [] and held["guests"][3]["guest"]["note"] == "Talk at 9"
    assert carol.platform_user_id in held["guests"]
