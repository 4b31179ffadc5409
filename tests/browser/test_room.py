"""People in the room at the door, in Chromium: the counter of people inside (of a capacity: amber near it,
a host's say-so at it, a door pass stopped), a smoker who steps out and comes back in keeping their number
(Enter lets them back in), "someone left (−1)", all of it through the queue while the phone is offline and
landing once; the organization's tags on every row, in the check-in's message and as filter chips; and two
rows in view on a phone with the new controls, keyboard up or down."""

import re

import pytest
from playwright.sync_api import expect

from browser.support import KEYBOARD_UP, PHONE, counter, door_page, pairing_path, screenshot, status_details
from doorapp.models import AuditEvent, Guest, GuestNote, GuestTag, Meetup, MeetupGuest, Tag

pytestmark = pytest.mark.browser


def rows(page):
    return page.locator("#door-results > [role=row]")


def check_in(page, username):
    page.keyboard.press("Escape")
    page.keyboard.type(username)
    expect(rows(page).first).to_contain_text(f"@{username}")
    page.keyboard.press("Enter")


def find(page, username):
    page.keyboard.press("Escape")
    page.keyboard.type(username)
    expect(rows(page).first).to_contain_text(f"@{username}")
    return rows(page).first


def events(kind):
    return list(AuditEvent.select().where(AuditEvent.event_type == kind).order_by(AuditEvent.id))


def tag(org, guest_id, label, color, note=""):
    made = Tag.get_or_none(Tag.org == org, Tag.label == label) or Tag.create(
        org=org, label=label, color=color
    )
    GuestTag.create(org=org, guest=guest_id, tag=made)
    GuestNote.insert(org=org, guest=guest_id, note=note).on_conflict_ignore().execute()
    return made


@pytest.fixture
def evening(org, crowd):
    """The crowd's night: a speaker with a note, a host, a guest who needs the step-free entrance."""
    tag(org, 2000, "Speaker", "purple", note="Talks at 21:00; give her the clicker")
    tag(org, 2001, "Host", "green")
    tag(org, 2002, "Step-free entrance", "teal", note="Comes by the side door")
    return crowd


def test_a_smoker_steps_out_and_back_in_keeping_their_number(browser, make_user, org, evening, token_for):
    page = door_page(browser, make_user, org, evening, token_for)
    check_in(page, "ada_1")
    expect(page.get_by_text("✓ Ada Smith (@ada_1) checked in: #1")).to_be_visible()
    expect(counter(page, "inside")).to_have_text("1")
    ada = find(page, "ada_1")
    ada.get_by_role("button", name="Step out Ada Smith (@ada_1)").click()
    expect(page.get_by_text("Ada Smith (@ada_1) stepped out at")).to_be_visible()
    expect(counter(page, "inside")).to_have_text("0")
    ada = find(page, "ada_1")
    expect(ada).to_contain_text("out since")
    expect(ada.get_by_role("button").first).to_have_text("Back in")
    screenshot(page, "door-outside")
    page.keyboard.press("Enter")  # Enter lets them back in, with their number
    expect(page.get_by_text("✓ Ada Smith (@ada_1) is back in: #1")).to_be_visible()
    expect(counter(page, "inside")).to_have_text("1")
    page.keyboard.type("ada_1")
    expect(rows(page).first).to_contain_text("#1 arrived")
    page.keyboard.press("Enter")  # inside: Enter says so, and changes nothing
    expect(page.get_by_text("Ada Smith (@ada_1) is already in, #1")).to_be_visible()
    entry = MeetupGuest.get(MeetupGuest.guest == 2001)
    assert (entry.arrival_order, entry.exited_at) == (1, None)
    assert (len(events("EXIT")), len(events("REENTRY")), len(events("CHECK_IN"))) == (1, 1, 1)


def test_a_phone_steps_a_guest_out_and_back_in_offline_and_both_land_once(
    browser, make_user, org, evening, token_for
):
    page = door_page(browser, make_user, org, evening, token_for)
    check_in(page, "grace_0")
    expect(page.get_by_text("checked in: #1")).to_be_visible()
    page.context.set_offline(True)
    find(page, "grace_0").get_by_role("button", name="Step out").click()
    expect(page.get_by_text("Grace Okafor (@grace_0) stepping out")).to_contain_text("not confirmed yet")
    expect(counter(page, "inside")).to_have_text("0")
    grace = find(page, "grace_0")
    expect(grace).to_contain_text("pending")
    expect(grace.get_by_role("button", name="Back in")).to_be_enabled()
    page.keyboard.press("Enter")  # back in, queued behind the step out
    expect(page.get_by_text("Grace Okafor (@grace_0) back in")).to_contain_text("not confirmed yet")
    expect(page.locator("[data-queue=waiting]")).to_have_text("2 waiting")
    expect(counter(page, "inside")).to_have_text("1")
    check_in(page, "oliver_2")
    expect(counter(page, "inside")).to_have_text("2")
    page.get_by_role("button", name="Someone left: −1").click()
    expect(page.locator("[data-queue=waiting]")).to_have_text("4 waiting")
    expect(counter(page, "inside")).to_have_text("1")
    details = status_details(page)
    for action in (
        "Grace Okafor (@grace_0) stepping out",
        "Grace Okafor (@grace_0) back in",
        "1 person left",
    ):
        expect(details).to_contain_text(action)
    page.keyboard.press("Escape")
    screenshot(page, "door-room-offline")
    assert not events("EXIT") and not events("REENTRY") and not events("PEOPLE_LEFT")
    page.context.set_offline(False)
    expect(page.locator("[data-queue]")).to_have_count(0)
    expect(counter(page, "inside")).to_have_text("1")
    assert [len(events(kind)) for kind in ("CHECK_IN", "EXIT", "REENTRY", "PEOPLE_LEFT")] == [2, 1, 1, 1]
    grace = MeetupGuest.get(MeetupGuest.guest == 2000)
    assert (grace.arrival_order, grace.exited_at) == (1, None)
    assert Meetup.get_by_id(evening.id).inside == 1
    expect(find(page, "grace_0")).to_contain_text("#1 arrived")


def test_the_61st_person_is_stopped_unless_a_host_says_why(browser, make_user, org, evening, token_for, api):
    Meetup.update(capacity=3).where(Meetup.id == evening.id).execute()
    page = door_page(browser, make_user, org, evening, token_for, name="olga_staff")
    for n, username in enumerate(("ada_1", "oliver_2"), 1):
        check_in(page, username)
        expect(page.get_by_text(f"checked in: #{n}")).to_be_visible()
    expect(counter(page, "inside")).to_have_text("2/3")
    check_in(page, "alice_3")
    expect(counter(page, "inside")).to_have_text("3/3")
    expect(page.locator("[data-counter=inside]")).to_have_class("counter inside full")
    expect(page.locator("[data-counter=inside] .label")).to_have_text("Full")
    check_in(page, "samuel_4")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("The room is full: 3 of 3")
    screenshot(page, "door-full")
    dialog.get_by_role("button", name="Cancel").click()
    assert MeetupGuest.get(MeetupGuest.guest == 2004).has_arrived is False
    check_in(page, "samuel_4")
    dialog.get_by_label("Reason").fill("the speaker's husband")
    dialog.get_by_role("button", name="Let in anyway").click()
    expect(page.get_by_text("✓ Samuel Okafor (@samuel_4) checked in: #4")).to_be_visible()
    expect(counter(page, "inside")).to_have_text("4/3")
    [event] = [e for e in events("CHECK_IN") if e.guest_id == 2004]
    assert (event.actor.username, event.reason, event.details["over_capacity"]) == (
        "olga_staff",
        "the speaker's husband",
        True,
    )
    # the log says who let them in, and why
    log = api.get(f"/organizations/{org.id}/events/?type=CHECK_IN").json["events"][0]
    assert (log["actor"]["username"], log["reason"]) == ("olga_staff", "the speaker's husband")


def test_a_door_pass_is_stopped_at_capacity_and_warned_near_it(browser, org, evening, api):
    Meetup.update(capacity=10).where(Meetup.id == evening.id).execute()
    for guest_id in range(2010, 2018):
        api.post_json(f"/organizations/{org.id}/meetups/{evening.id}/guests/{guest_id}/checkin", {})
    made = api.post_json(
        f"/organizations/{org.id}/passes", {"label": "Maria's phone", "meetup_id": str(evening.id)}
    ).json
    page = browser.page(viewport=PHONE, path=pairing_path(made))
    expect(rows(page).first).to_be_visible()
    check_in(page, "ada_1")
    expect(counter(page, "inside")).to_have_text("9/10")
    expect(page.locator("[data-counter=inside]")).to_have_class("counter inside near")
    check_in(page, "oliver_2")
    expect(counter(page, "inside")).to_have_text("10/10")  # counted as it is sent...
    expect(page.locator(".last-action")).to_contain_text("#10")  # ...and answered: its word is said first
    check_in(page, "alice_3")
    expect(page.get_by_text("The room is full (10 of 10)")).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)
    assert not MeetupGuest.get(MeetupGuest.guest == 2003).has_arrived


def test_tags_on_a_row_in_the_check_in_and_as_filters(browser, make_user, org, evening, token_for, api):
    page = door_page(browser, make_user, org, evening, token_for, viewport=PHONE)
    grace = find(page, "grace_0")
    expect(grace.locator(".tag.label")).to_have_text("Speaker")
    expect(grace).to_contain_text("Talks at 21:00; give her the clicker")
    page.keyboard.press("Enter")
    message = page.locator(".last-action")
    expect(message).to_contain_text("checked in: #1")
    expect(message).to_contain_text("Speaker")
    expect(message).to_contain_text("Talks at 21:00")
    page.keyboard.press("Escape")
    chips = page.get_by_role("radiogroup", name="Show")
    expect(chips.get_by_role("radio")).to_have_count(8)  # five states, three tags
    chips.get_by_role("radio", name="Step-free entrance").click()
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_contain_text("Comes by the side door")
    screenshot(page, "door-tag-filter")
    chips.get_by_role("radio", name="Speaker").click()
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_contain_text("@grace_0")
    # a tag an admin puts on a guest elsewhere shows here within the second, and its chip with it
    made = api.post_json(f"/organizations/{org.id}/tags", {"label": "See a host", "color": "red"}).json
    api.put_json(
        f"/organizations/{org.id}/guests/2003/tags", {"tags": [made["id"]], "note": "Owes the club a key"}
    )
    expect(chips.get_by_role("radio")).to_have_count(9)
    chips.get_by_role("radio", name="See a host").click()
    expect(rows(page).first).to_contain_text("Owes the club a key")


@pytest.mark.parametrize("viewport", [PHONE, KEYBOARD_UP], ids=["390x844", "390x470"])
def test_two_rows_stay_in_view_with_the_new_controls(
    browser, make_user, org, evening, token_for, api, viewport
):
    """An arrival inside (Step out, Undo), one outside (Back in, Undo), each with a tag and a note, and the
    counter of people inside with "someone left (−1)": two rows in view, the keyboard up or not. (A name
    too long for one line takes a line more: see test_a_long_name_and_note_stay_on_the_screen.)"""
    Meetup.update(capacity=60).where(Meetup.id == evening.id).execute()
    base = f"/organizations/{org.id}/meetups/{evening.id}/guests"
    for guest_id in (2000, 2002):
        api.post_json(f"{base}/{guest_id}/checkin", {})
    api.post_json(f"{base}/2002/exit", {})
    page = door_page(browser, make_user, org, evening, token_for, viewport=viewport)
    page.get_by_role("radio", name="Arrived").click()
    expect(rows(page)).to_have_count(2)
    screenshot(page, "door-room")
    view = viewport["height"]
    boxes = [rows(page).nth(i).bounding_box() for i in range(2)]
    assert all(b["y"] >= 0 and b["y"] + b["height"] <= view for b in boxes), boxes
    for i in range(2):
        for button in rows(page).nth(i).get_by_role("button").all():
            assert (
                button.is_visible() and button.bounding_box()["y"] + button.bounding_box()["height"] <= view
            )
    expect(page.get_by_role("button", name="Someone left: −1")).to_be_visible()
    expect(counter(page, "inside")).to_have_text("1/60")
    bar = page.locator(".door-bar").bounding_box()
    assert bar["height"] < 50, bar  # the counters, −1 and the menu: one line
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def test_an_admin_sets_the_capacity_from_the_door(browser, make_user, org, evening, token_for, olga):
    page = browser.page(token=token_for(olga), viewport=PHONE, path=f"/#/meetups/{evening.id}")
    expect(rows(page).first).to_be_visible()
    page.get_by_role("button", name="Actions").click()
    page.get_by_role("button", name="Capacity…").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Capacity (people)").fill("60")
    dialog.get_by_role("button", name="Set the capacity").click()
    expect(page.get_by_text("Capacity: 60 people.")).to_be_visible()
    expect(counter(page, "inside")).to_have_text("0/60")
    assert Meetup.get_by_id(evening.id).capacity == 60
    assert events("CAPACITY_CHANGED")[0].actor_id == olga.id


def test_a_long_name_and_note_stay_on_the_screen(browser, make_user, org, evening, token_for, api):
    long = "Grace Okafor-Montgomery de la Fuente y Ñúñez"
    Guest.update(displayname=long).where(Guest.platform_user_id == 2000).execute()
    GuestNote.update(note="x" * 200).where(GuestNote.guest == 2000).execute()
    api.post_json(f"/organizations/{org.id}/meetups/{evening.id}/guests/2000/checkin", {})
    page = door_page(browser, make_user, org, evening, token_for, viewport=KEYBOARD_UP)
    grace = find(page, "grace_0")
    expect(grace).to_contain_text(long)
    box = grace.bounding_box()
    assert box["y"] + box["height"] <= KEYBOARD_UP["height"], box  # the note keeps to one line
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def test_a_door_that_has_not_heard_of_the_last_place_is_told_the_room_is_full(
    browser, make_user, org, evening, token_for, api
):
    """Two doors at the last place: the first takes it; the second, whose list has not caught up yet (its
    polls held back here), is told by Door that the room is full, and a host there may still let them in."""
    Meetup.update(capacity=2).where(Meetup.id == evening.id).execute()
    api.post_json(f"/organizations/{org.id}/meetups/{evening.id}/guests/2010/checkin", {})
    first = door_page(browser, make_user, org, evening, token_for, name="sam")
    second = door_page(browser, make_user, org, evening, token_for, name="tom")
    expect(counter(second, "inside")).to_have_text("1/2")
    second.route(re.compile(r".*/guests\?since=.*"), lambda route: route.fulfill(status=304))
    check_in(first, "ada_1")
    expect(counter(first, "inside")).to_have_text("2/2")
    check_in(second, "oliver_2")
    dialog = second.get_by_role("dialog")
    expect(dialog).to_contain_text("The room is full: 2 of 2")
    dialog.get_by_role("button", name="Cancel").click()
    assert not MeetupGuest.get(MeetupGuest.guest == 2002).has_arrived
    check_in(second, "oliver_2")
    dialog.get_by_label("Reason").fill("her partner is inside")
    dialog.get_by_role("button", name="Let in anyway").click()
    expect(second.get_by_text("✓ Oliver Nguyen (@oliver_2) checked in: #3")).to_be_visible()
    assert Meetup.get_by_id(evening.id).inside == 3
