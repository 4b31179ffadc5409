"""Nights yet to come and nights that did not happen (issue 24, item 1): nobody is a no-show of a meetup
that is not over (finalized, or dated before now), at the door, in the summary, the CSV or a guest's
history; an admin cancels a meetup that did not take place, or deletes one made by mistake."""

from datetime import timedelta

import pytest
from helpers import ENGINES, base, entry, events

from doorapp.db import utcnow
from doorapp.models import Meetup, MeetupGuest

pytestmark = ENGINES  # on SQLite and on PostgreSQL


def night(org, days, name, guests=()):
    """A meetup of `org` dated `days` from now (negative: in the past) with `guests` on its list."""
    meetup = Meetup.create(
        org=org, name=name, date=utcnow() + timedelta(days=days), platform_url=f"https://x.invalid/{name}"
    )
    for guest in guests:
        MeetupGuest.create(meetup=meetup, guest=guest, rsvp_time=utcnow() - timedelta(days=30))
    return meetup


def history(client, meetup, guest):
    rows = client.get(f"{base(meetup)}/guests").json["guests"]
    return next(
        r["guest"]["history"] for r in rows if r["guest"]["platform_user_id"] == guest.platform_user_id
    )


@pytest.fixture
def coming(org, guest):
    """Two open meetups in the coming weeks with alice on both lists: she has missed neither yet."""
    return night(org, 7, "first", [guest]), night(org, 14, "second", [guest])


def test_a_meetup_yet_to_come_gives_nobody_a_no_show_at_the_door_or_anywhere(door, boss, org, guest, coming):
    first, second = coming
    assert history(door, second, guest)["recent_no_shows"] == 0
    summary = door.get(f"{base(first)}/summary").json
    assert summary["counts"]["no_shows"] == 0 and summary["counts"]["upcoming"] == 1
    assert [g["outcome"] for g in summary["guests"]] == ["UPCOMING"]
    assert "UPCOMING" in boss.get(f"{base(first)}/export").text
    page = boss.get(f"/organizations/{org.id}/guests/{guest.platform_user_id}/history").json
    assert (page["no_shows"], page["recent_no_shows"]) == (0, 0)
    assert [m["outcome"] for m in page["meetups"]] == ["UPCOMING", "UPCOMING"]
    boss.patch_json(f"{base(first)}/finalize", {})  # the first night is over: now she missed it
    assert history(door, second, guest)["recent_no_shows"] == 1
    assert door.get(f"{base(first)}/summary").json["guests"][0]["outcome"] == "NO_SHOW"


def test_a_meetup_dated_before_now_is_over_without_being_finalized(door, org, guest):
    last_week, tonight = night(org, -7, "last-week", [guest]), night(org, 0.1, "tonight", [guest])
    assert history(door, tonight, guest)["recent_no_shows"] == 1
    assert door.get(f"{base(last_week)}/summary").json["meetup"]["is_over"] is True


def test_the_guest_page_counts_an_arrival_at_a_meetup_dated_weeks_ahead_as_its_last_visit(
    door, boss, org, guest, coming
):
    """The page said 'Attended 1' beside 'Last visit: never' for a check-in at a meetup weeks ahead."""
    door.post_json(f"{entry(coming[1], guest)}/checkin", {})
    page = boss.get(f"/organizations/{org.id}/guests/{guest.platform_user_id}/history").json
    assert page["attended"] == 1 and page["visits"] == 1 and page["last_visit"] is not None


def test_an_admin_cancels_a_meetup_that_did_not_take_place_and_its_guests_are_no_no_shows(
    door, boss, org, guest
):
    rained_out, next_one = night(org, -2, "rained-out", [guest]), night(org, 5, "next", [guest])
    assert history(door, next_one, guest)["recent_no_shows"] == 1
    cancelled = boss.patch_json(f"{base(rained_out)}/cancel", {"reason": "Storm closed the venue"}).json
    assert cancelled["cancelled_at"] and cancelled["cancel_reason"] == "Storm closed the venue"
    assert cancelled["is_over"] is False
    assert history(door, next_one, guest)["recent_no_shows"] == 0  # every door list of the org moved on
    summary = door.get(f"{base(rained_out)}/summary").json
    assert summary["counts"]["no_shows"] == 0 and summary["guests"][0]["outcome"] == "MEETUP_CANCELLED"
    [event] = events("MEETUP_CANCELLED")
    assert (str(event.meetup_id), event.reason) == (str(rained_out.id), "Storm closed the venue")
    refused = door.post_json(f"{entry(rained_out, guest)}/checkin", {}, status=409).json
    assert refused["code"] == "meetup_cancelled"
    again = boss.patch_json(f"{base(rained_out)}/cancel", {"reason": "again"}, status=409).json
    assert again["code"] == "meetup_cancelled"
    assert door.get(f"/organizations/{org.id}/meetups/").json["total"] == 2  # it stays listed


def test_a_meetup_with_guests_in_cannot_be_cancelled_and_staff_cannot_cancel(door, boss, org, guest):
    tonight = night(org, 0, "tonight", [guest])
    assert boss.patch_json(f"{base(tonight)}/cancel", {}, status=422).json["errors"][0]["loc"] == [
        "body",
        "reason",
    ]
    refused = door.patch_json(f"{base(tonight)}/cancel", {"reason": "x"}, status=403).json
    assert refused["code"] == "org_admin_required"
    door.post_json(f"{entry(tonight, guest)}/checkin", {})
    refused = boss.patch_json(f"{base(tonight)}/cancel", {"reason": "x"}, status=409).json
    assert refused["code"] == "meetup_has_arrivals"
    assert events("MEETUP_CANCELLED") == [] and Meetup.get_by_id(tonight.id).cancelled_at is None


def test_an_admin_deletes_a_meetup_made_by_mistake_and_the_log_keeps_what_it_was(door, boss, org, guest):
    mistake = night(org, 3, "typo", [guest])
    boss.delete(base(mistake), status=204)
    assert door.get(base(mistake), status=404).json["code"] == "not_found"
    assert MeetupGuest.select().where(MeetupGuest.meetup == mistake.id).count() == 0
    [event] = events("MEETUP_DELETED")
    assert str(event.meetup_id) == str(mistake.id)
    assert event.details["name"] == "typo" and event.details["platform_url"] == "https://x.invalid/typo"
    assert door.delete(base(night(org, 3, "other")), status=403).json["code"] == "org_admin_required"


def test_a_meetup_anyone_was_ever_checked_in_at_is_not_deleted(door, boss, org, guest):
    tested = night(org, 3, "tested", [guest])
    door.post_json(f"{entry(tested, guest)}/checkin", {})
    door.patch_json(f"{entry(tested, guest)}/undo-checkin", {"reason": "just a test"})
    refused = boss.delete(base(tested), status=409).json
    assert refused["code"] == "meetup_has_arrivals"
    assert Meetup.get_or_none(Meetup.id == tested.id) is not None
    boss.patch_json(f"{base(tested)}/cancel", {"reason": "it was a test night"})  # cancelling still works
