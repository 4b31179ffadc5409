"""Heads and the waitlist at the door, over HTTP: a check-in records how many of the RSVP'd guests came
(0..guests_count, all by default), an org admin corrects it afterwards, an undo forgets it; the door list's
counts (waitlisted, people) agree with the summary's and the CSVs carry it."""

import csv
import io
from datetime import datetime

import pytest
from helpers import ENGINES, add_guest, base, entry, events, make_pass, phone_of

from doorapp.models import AuditEvent

pytestmark = ENGINES  # on SQLite and on PostgreSQL


@pytest.fixture
def plus_two(meetup):
    """Bea, RSVP'd with two guests."""
    return add_guest(5, "bea", meetup, rsvp_time=datetime(2026, 11, 21), guests_count=2)


def counts(client, meetup):
    return client.get(f"{base(meetup)}/guests").json["counts"]


def summary(client, meetup):
    return client.get(f"{base(meetup)}/summary").json["counts"]


def csv_rows(client, meetup, **query):
    reply = client.get(f"{base(meetup)}/export", query)
    return list(csv.DictReader(io.StringIO(reply.body.decode("utf-8-sig"), newline="")))


def test_the_door_counts_the_waitlisted_apart_as_the_summary_does(door, meetup):
    add_guest(3, "wendy", meetup, waitlisted=True)
    add_guest(4, "walt", meetup, waitlisted=True, cancelled_rsvp=True)  # cancelled: not waiting
    door.post_json(f"{base(meetup)}/guests/3/checkin", {})
    add_guest(6, "wilma", meetup, waitlisted=True)
    listed = counts(door, meetup)
    assert listed == {
        "rsvps": 3,
        "cancelled": 1,
        "walkins": 0,
        "arrived": 1,
        "waitlisted": 1,
        "people": 1,
        "inside": 1,
        "capacity": None,
    }
    told = summary(door, meetup)
    assert (told["waitlisted"], told["arrived"], told["people"]) == (1, 1, 1)


def test_a_check_in_records_the_guests_who_came_and_people_add_up_everywhere(door, boss, meetup, plus_two):
    reply = door.post_json(f"{entry(meetup, plus_two)}/checkin", {"guests_brought": 1})
    assert reply.json["rsvp"]["guests_brought"] == 1 and reply.json["rsvp"]["guests_count"] == 2
    assert counts(door, meetup)["people"] == 2  # Bea and one friend
    told = summary(door, meetup)
    assert (told["arrived"], told["guests_brought"], told["people"]) == (1, 1, 2)
    assert events("CHECK_IN")[-1].details["guests_brought"] == 1
    (row,) = [r for r in csv_rows(boss, meetup) if r["username"] == "bea"]
    assert (row["guests_count"], row["guests_brought"]) == ("2", "1")
    (row,) = [r for r in csv_rows(boss, meetup, style="people") if r["Username"] == "bea"]
    assert (row["Guests (RSVP)"], row["Guests brought"]) == ("2", "1")


def test_a_check_in_without_a_number_brings_every_rsvpd_guest(door, meetup, plus_two, guest):
    assert door.post_json(f"{entry(meetup, plus_two)}/checkin", {}).json["rsvp"]["guests_brought"] == 2
    assert door.post_json(f"{entry(meetup, guest)}/checkin", {}).json["rsvp"]["guests_brought"] == 0
    assert "guests_brought" not in events("CHECK_IN")[-1].details  # nobody RSVP'd with Alice
    assert counts(door, meetup)["people"] == 4 == summary(door, meetup)["people"]


@pytest.mark.parametrize(
    ("brought", "kind", "limit"), [(3, "too_large", {"max": 2}), (-1, "too_small", {"min": 0})]
)
def test_more_guests_than_rsvpd_or_fewer_than_none_is_422_and_nothing_changes(
    door, meetup, plus_two, brought, kind, limit
):
    reply = door.post_json(f"{entry(meetup, plus_two)}/checkin", {"guests_brought": brought}, status=422)
    assert reply.json["code"] == "validation_error"
    (error,) = reply.json["errors"]
    assert (error["loc"], error["type"], error["ctx"]) == (["body", "guests_brought"], kind, limit)
    assert counts(door, meetup)["arrived"] == 0 and events("CHECK_IN") == []


def test_a_whole_number_written_as_2_0_is_2(door, meetup, plus_two):
    reply = door.post_json(f"{entry(meetup, plus_two)}/checkin", {"guests_brought": 2.0})
    assert reply.json["rsvp"]["guests_brought"] == 2
    reply = door.post_json(f"{base(meetup)}/guests/5/checkin", {"guests_brought": 1.5}, status=422)
    assert reply.json["errors"][0]["type"] == "type"


def test_a_walk_in_brings_nobody_their_companions_are_walk_ins_of_their_own(door, meetup):
    add_guest(7, "wes")
    url = f"{base(meetup)}/guests/7/add-walkin"
    assert door.post_json(url, {"check_in": True}, status=201).json["rsvp"]["guests_brought"] == 0
    reply = door.post_json(f"{base(meetup)}/guests/7/checkin", {"guests_brought": 1}, status=409)
    assert reply.json["code"] == "already_checked_in"


def test_an_admin_corrects_the_guests_brought_and_the_numbers_follow(door, boss, meetup, plus_two):
    door.post_json(f"{entry(meetup, plus_two)}/checkin", {"guests_brought": 1})
    line = boss.patch_json(f"{entry(meetup, plus_two)}/guests-brought", {"guests_brought": 2}).json
    assert (line["username"], line["guests_count"], line["guests_brought"]) == ("bea", 2, 2)
    assert counts(door, meetup)["people"] == 3 == summary(door, meetup)["people"]
    (row,) = [r for r in csv_rows(boss, meetup) if r["username"] == "bea"]
    assert row["guests_brought"] == "2"
    (event,) = events("GUESTS_BROUGHT_CHANGED")
    assert (event.actor.username, event.guest_id) == ("boss", 5)
    assert event.details == {"guests_brought_before": 1, "guests_brought": 2}


def test_only_an_arrival_has_guests_brought_and_never_more_than_rsvpd(door, boss, meetup, plus_two, guest):
    url = f"{entry(meetup, plus_two)}/guests-brought"
    assert boss.patch_json(url, {"guests_brought": 1}, status=409).json["code"] == "not_checked_in"
    door.post_json(f"{entry(meetup, plus_two)}/checkin", {})
    reply = boss.patch_json(url, {"guests_brought": 3}, status=422).json
    assert reply["errors"][0]["type"] == "too_large" and reply["errors"][0]["ctx"] == {"max": 2}
    missing = f"{base(meetup)}/guests/404/guests-brought"
    add_guest(404, "nobody")
    assert boss.patch_json(missing, {"guests_brought": 0}, status=404).json["code"] == "not_on_list"
    assert AuditEvent.select().where(AuditEvent.event_type == "GUESTS_BROUGHT_CHANGED").count() == 0


def test_the_door_records_heads_but_only_an_admin_corrects_them(door, boss, client, meetup, plus_two):
    phone = phone_of(client, make_pass(boss, meetup))
    reply = phone.post_json(f"{entry(meetup, plus_two)}/checkin", {"guests_brought": 0})
    assert reply.json["rsvp"]["guests_brought"] == 0
    url = f"{entry(meetup, plus_two)}/guests-brought"
    assert phone.patch_json(url, {"guests_brought": 2}, status=403).json["code"] == "pass_not_allowed"
    assert door.patch_json(url, {"guests_brought": 2}, status=403).json["code"] == "org_admin_required"
    assert counts(door, meetup)["people"] == 1


def test_a_finalized_meetup_can_still_have_its_heads_corrected(door, boss, meetup, plus_two):
    door.post_json(f"{entry(meetup, plus_two)}/checkin", {"guests_brought": 1})
    boss.patch(f"{base(meetup)}/finalize")
    boss.patch_json(f"{entry(meetup, plus_two)}/guests-brought", {"guests_brought": 0})
    assert summary(boss, meetup)["people"] == 1


def test_an_undo_forgets_the_guests_brought(door, meetup, plus_two):
    door.post_json(f"{entry(meetup, plus_two)}/checkin", {"guests_brought": 1})
    undone = door.patch_json(f"{entry(meetup, plus_two)}/undo-checkin", {"reason": "wrong Bea"}).json
    assert undone["rsvp"]["guests_brought"] is None
    assert counts(door, meetup)["people"] == 0 == summary(door, meetup)["people"]


def test_a_retried_check_in_replays_its_heads_and_another_number_is_another_request(door, meetup, plus_two):
    url, key = f"{entry(meetup, plus_two)}/checkin", {"Idempotency-Key": "k-heads-1"}
    first = door.post_json(url, {"guests_brought": 1}, headers=key).json
    assert door.post_json(url, {"guests_brought": 1}, headers=key).json == first
    reply = door.post_json(url, {"guests_brought": 2}, headers=key, status=422)
    assert reply.json["code"] == "idempotency_key_reused"
    assert counts(door, meetup)["people"] == 2
