"""A check-in sent late keeps the door's time (issue 24, item 4): a door's queue sends the moment it acted as
`door_time`; when plausible (not in the future, not older than a queued action can be) it is the arrival's
time, and the summary's order and chart follow it, while arrival numbers stay the server's."""

from datetime import timedelta

import pytest
from helpers import ENGINES, add_guest, base, entry

from doorapp.db import iso, utcnow
from doorapp.models import MeetupGuest

pytestmark = ENGINES  # on SQLite and on PostgreSQL


def stamp(moment):
    return moment.isoformat() + "+00:00"


def arrival(meetup, guest_id):
    return MeetupGuest.get(MeetupGuest.meetup == meetup, MeetupGuest.guest == guest_id)


def test_a_check_in_queued_through_an_outage_keeps_the_minute_it_happened(door, meetup, guest):
    bob = add_guest(2, "bob", meetup)
    door.post_json(f"{entry(meetup, bob)}/checkin", {"door_time": stamp(utcnow())})  # live, at the door now
    queued_at = (utcnow() - timedelta(minutes=10)).replace(microsecond=0)
    late = door.post_json(f"{entry(meetup, guest)}/checkin", {"door_time": stamp(queued_at)}).json
    assert late["rsvp"]["arrival_time"] == iso(queued_at)
    assert late["rsvp"]["arrival_order"] == 2  # numbers are the server's, in the order check-ins reach it
    summary = door.get(f"{base(meetup)}/summary").json
    assert [(g["username"], g["arrival_order"]) for g in summary["guests"]] == [("alice", 2), ("bob", 1)]
    assert summary["first_arrival"] == iso(queued_at)
    assert sum(bar["count"] for bar in summary["arrivals"]) == 2
    door_row = next(
        g for g in door.get(f"{base(meetup)}/guests").json["guests"] if g["guest"]["username"] == "alice"
    )
    assert door_row["rsvp"]["arrival_time"] == iso(queued_at)


@pytest.mark.parametrize(
    "door_time",
    [timedelta(hours=2), timedelta(days=-3), timedelta(days=-400)],
    ids=["future", "days", "year"],
)
def test_an_implausible_door_time_gives_way_to_the_servers(door, meetup, guest, door_time):
    before = utcnow()
    door.post_json(f"{entry(meetup, guest)}/checkin", {"door_time": stamp(before + door_time)})
    assert before <= arrival(meetup, guest).arrival_time <= utcnow()


def test_no_door_time_is_the_servers_time(door, meetup, guest):
    before = utcnow()
    door.post_json(f"{entry(meetup, guest)}/checkin", {})
    assert before <= arrival(meetup, guest).arrival_time <= utcnow()


def test_walk_ins_sent_late_keep_the_door_time_too(door, meetup):
    wendy = add_guest(8, "wendy")
    queued_at = (utcnow() - timedelta(minutes=25)).replace(microsecond=0)
    walkin = door.post_json(
        f"{entry(meetup, wendy)}/add-walkin", {"check_in": True, "door_time": stamp(queued_at)}, status=201
    ).json
    assert (walkin["rsvp"]["rsvp_time"], walkin["rsvp"]["arrival_time"]) == (iso(queued_at),) * 2
    local = door.post_json(
        f"{base(meetup)}/local-walkins", {"displayname": "Nadia", "door_time": stamp(queued_at)}, status=201
    ).json
    assert local["rsvp"]["arrival_time"] == iso(queued_at)


def test_openapi_says_the_arrival_number_is_the_servers(client):
    operation = client.get("/openapi.json").json["paths"][
        "/organizations/{org_id}/meetups/{meetup_id}/guests/{platform_user_id}/checkin"
    ]["post"]
    assert "arrival number is always the server's" in " ".join(operation["description"].split())
    door_time = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]["door_time"]
    assert "arrival_time" in door_time["description"]
