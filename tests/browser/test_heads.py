"""Heads and the waitlist at the door, in Chromium (a phone with touch in English, a desktop in Spanish): a
waitlisted guest is never checked in by one tap, a +2 guest checked in with one friend counts two people on
the door, the summary and the CSV, an admin's correction and an undo move every number, and the door's
counters are the summary's on the demo's evening."""

import csv
import io
import re
from datetime import datetime

import pytest
from helpers import base
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, counter, no_english, row, screenshot
from doorapp.models import Guest, MeetupGuest
from doorapp.spreadsheet import catalogue

pytestmark = pytest.mark.browser
DEMO = "https://demo.door.invalid/night-owls"
SETS = [("en", "en-US", PHONE, True), ("es", "es-ES", DESKTOP, False)]
IDS = ["phone-en", "desktop-es"]


def words(lang, key, count=None, **params):
    """The catalogue's words for `key` (its plural form for `count`), filled in as the page does."""
    text = catalogue(lang)[key]
    if isinstance(text, dict):
        text = text["one" if count == 1 else "other"]
    return text.format(count=count, **params)


@pytest.fixture
def guests(meetup):
    """Ana, on the waitlist, and Bea, RSVP'd with two guests, beside the meetup's Alice."""
    for guest_id, username, fields in ((5, "ana", {"waitlisted": True}), (6, "bea", {"guests_count": 2})):
        Guest.create(platform_user_id=guest_id, username=username, displayname=username.title())
        MeetupGuest.create(meetup=meetup, guest=guest_id, rsvp_time=datetime(2026, 11, 21), **fields)
    return meetup


def door(browser, make_user, org, meetup, token_for, locale, viewport, touch, user=None):
    user = user or make_user("sam", org=org)
    path = f"/#/orgs/{org.id}/meetups/{meetup.id}"
    page = browser.page(token=token_for(user), viewport=viewport, locale=locale, touch=touch, path=path)
    expect(page.locator("#door-results > [role=row]").first).to_be_visible()
    return page


def press(locator, touch):
    locator.tap() if touch else locator.click()


def arrived(guest_id):
    return MeetupGuest.get(MeetupGuest.guest == guest_id).has_arrived


@pytest.mark.parametrize(("lang", "locale", "viewport", "touch"), SETS, ids=IDS)
def test_a_waitlisted_guest_is_never_checked_in_by_one_tap_or_enter(
    browser, make_user, org, guests, token_for, lang, locale, viewport, touch
):
    page = door(browser, make_user, org, guests, token_for, locale, viewport, touch)
    expect(counter(page, "waitlisted")).to_have_text("1")
    expect(counter(page, "expected")).to_have_text("2")  # Alice and Bea; Ana waits apart
    ana = row(page, "ana")
    expect(ana).to_contain_text(words(lang, "door.waitlisted"))
    expect(ana).not_to_contain_text(words(lang, "counter.expected"))
    press(ana.get_by_role("button", name=re.compile(words(lang, "door.checkIn"))), touch)
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text(words(lang, "door.waitlistTitle", guest="Ana (@ana)"))
    screenshot(page, f"door-waitlist-{lang}")
    press(dialog.get_by_role("button", name=words(lang, "dialog.cancel")), touch)
    expect(dialog).to_have_count(0)
    assert not arrived(5)
    expect(counter(page, "waitlisted")).to_have_text("1")
    expect(row(page, "ana").locator(".badge.waitlist")).to_be_visible()  # said once, as the row's state
    expect(row(page, "ana").locator(".tag.waitlist")).to_have_count(0)
    # Enter on the only match asks too; a second Enter lands on Cancel, never on the check-in
    page.locator(".door-search").fill("ana")
    page.keyboard.press("Enter")
    expect(dialog).to_contain_text(words(lang, "door.waitlistTitle", guest="Ana (@ana)"))
    page.keyboard.press("Enter")
    expect(dialog).to_have_count(0)
    assert not arrived(5)
    page.keyboard.press("Enter")
    press(dialog.get_by_role("button", name=words(lang, "door.checkInAnyway")), touch)
    expect(counter(page, "arrived")).to_have_text("1")
    expect(counter(page, "waitlisted")).to_have_text("0")
    expect(counter(page, "people")).to_have_text("1")
    expect(row(page, "ana").locator(".tag.waitlist")).to_be_visible()  # let in: the tag says from where
    # Door answered: the counters count an action as it is sent
    expect(page.locator(".last-action")).to_have_attribute("data-kind", "ok")
    assert arrived(5)


@pytest.mark.parametrize(("lang", "locale", "viewport", "touch"), SETS, ids=IDS)
def test_a_plus_two_with_one_friend_counts_two_people_everywhere_until_corrected_or_undone(
    browser, make_user, org, guests, token_for, api, lang, locale, viewport, touch
):
    page = door(browser, make_user, org, guests, token_for, locale, viewport, touch)
    bea = row(page, "bea")
    press(bea.get_by_role("button", name=re.compile(words(lang, "door.checkIn"))), touch)
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text(words(lang, "door.headsQuestion", count=2))
    # all of them by default: the focus is on 2, so one Enter would keep it
    assert page.evaluate("document.activeElement.dataset.brought") == "2"
    screenshot(page, f"door-heads-{lang}")
    press(dialog.get_by_role("button", name=words(lang, "door.headsCount", count=1), exact=True), touch)
    expect(bea).to_contain_text(words(lang, "door.broughtOf", brought=1, count=2))
    expect(counter(page, "arrived")).to_have_text("1")
    expect(counter(page, "people")).to_have_text("2")
    summary = api.get(f"{base(guests)}/summary").json["counts"]
    assert (summary["arrived"], summary["people"]) == (1, 2)
    rows = list(csv.DictReader(io.StringIO(api.get(f"{base(guests)}/export").text.lstrip("\ufeff"))))
    assert [r["guests_brought"] for r in rows if r["username"] == "bea"] == ["1"]
    people = api.get(f"{base(guests)}/export", {"style": "people", "lang": lang}).text.lstrip("\ufeff")
    (line,) = [r for r in csv.DictReader(io.StringIO(people)) if r[words(lang, "csv.username")] == "bea"]
    assert line[words(lang, "csv.guests_brought")] == "1"

    # an admin says both came, on the summary: the door's People follows at its next poll
    path = f"/#/meetups/{guests.id}/summary"
    admin = browser.page(token=token_for(api.user), viewport=viewport, locale=locale, touch=touch, path=path)
    line = admin.locator("[data-guest='6']")
    press(line.get_by_role("button", name=words(lang, "summary.broughtButton")), touch)
    admin.get_by_role("dialog").get_by_role("spinbutton").fill("2")
    press(admin.get_by_role("dialog").get_by_role("button", name=words(lang, "dialog.ok")), touch)
    expect(admin.locator("[data-guest='6']")).to_contain_text(
        words(lang, "door.broughtOf", brought=2, count=2)
    )
    expect(admin.locator(".tile").first).to_contain_text("3")
    expect(counter(page, "people")).to_have_text("3")
    assert api.get(f"{base(guests)}/summary").json["counts"]["people"] == 3

    # undone at the door: nobody of hers counts any more
    press(row(page, "bea").get_by_role("button", name=re.compile(words(lang, "door.undo"))), touch)
    undo = page.get_by_role("dialog")
    undo.get_by_role("textbox").fill("wrong Bea")
    press(undo.get_by_role("button", name=words(lang, "door.undoConfirm")), touch)
    expect(page.locator(".last-action[data-kind=warn]")).to_be_visible()  # Door answered: undone
    expect(counter(page, "people")).to_have_text("0")
    assert api.get(f"{base(guests)}/summary").json["counts"]["people"] == 0


def test_the_doors_counters_are_the_summarys_on_the_demo_evening(browser, make_user, org, token_for, api):
    meetup = api.post_json(f"/organizations/{org.id}/meetups/", {"platform_url": f"{DEMO}/book-circle"}).json
    url = f"/organizations/{org.id}/meetups/{meetup['id']}"
    listed = api.get(f"{url}/guests").json["guests"]
    with_guests = [g["guest"]["platform_user_id"] for g in listed if g["rsvp"]["guests_count"]]
    waiting = [g["guest"]["platform_user_id"] for g in listed if g["rsvp"]["waitlisted"]]
    assert with_guests and waiting  # the demo's evening has both
    api.post_json(f"{url}/guests/{with_guests[0]}/checkin", {"guests_brought": 0})
    for guest_id in with_guests[1:3] + waiting[:1] + [1001, 1002]:
        api.post_json(f"{url}/guests/{guest_id}/checkin", {})
    api.patch_json(f"{url}/guests/1002/undo-checkin", {"reason": "not her"})
    Guest.create(platform_user_id=77, username="wes", displayname="Wes")
    api.post_json(f"{url}/guests/77/add-walkin", {"check_in": True})
    path = f"/#/orgs/{org.id}/meetups/{meetup['id']}"
    page = browser.page(token=token_for(make_user("sam", org=org)), path=path)
    expect(page.locator("#door-results > [role=row]").first).to_be_visible()
    told = api.get(f"{url}/summary").json
    counts, outcomes = told["counts"], told["outcomes"]
    expected = counts["upcoming"] + counts["no_shows"] + counts["excused"] + outcomes.get("NOT_CHECKED_IN", 0)
    summary = {
        "rsvps": counts["rsvps"],
        "arrived": counts["arrived"],
        "people": counts["people"],
        "expected": expected,
        "waitlisted": counts["waitlisted"],
        "walkins": counts["walkins"],
    }
    for kind, value in summary.items():
        expect(counter(page, kind)).to_have_text(f"{value:,}")
    assert counts["people"] > counts["arrived"]  # the guests brought are counted, on both


def test_a_check_in_queued_offline_keeps_its_heads_and_the_waitlists_question(
    browser, make_user, org, guests, token_for
):
    page = door(browser, make_user, org, guests, token_for, "en-US", PHONE, True)
    page.context.set_offline(True)
    press(row(page, "bea").get_by_role("button", name=re.compile("Check in")), True)
    press(page.get_by_role("dialog").get_by_role("button", name="1 guest", exact=True), True)
    expect(page.locator("[data-queue=waiting]")).to_have_text("1 waiting")
    expect(counter(page, "people")).to_have_text("2")  # Bea and her friend, before Door has heard of them
    press(row(page, "ana").get_by_role("button", name=re.compile("Check in")), True)
    press(page.get_by_role("dialog").get_by_role("button", name="Check in anyway"), True)
    expect(page.locator("[data-queue=waiting]")).to_have_text("2 waiting")
    assert not arrived(5) and not arrived(6)
    page.context.set_offline(False)
    expect(page.locator("[data-queue]")).to_have_count(0)
    expect(counter(page, "people")).to_have_text("3")
    expect(counter(page, "waitlisted")).to_have_text("0")
    assert MeetupGuest.get(MeetupGuest.guest == 6).guests_brought == 1 and arrived(5)


def test_the_questions_and_the_correction_read_in_spanish_and_fit_a_phone(
    browser, make_user, org, guests, token_for, api
):
    page = door(browser, make_user, org, guests, token_for, "es-ES", PHONE, True)
    press(row(page, "ana").get_by_role("button", name=re.compile("Dar entrada")), True)
    expect(page.get_by_role("dialog")).to_be_visible()
    no_english(page)
    press(page.get_by_role("dialog").get_by_role("button", name="Cancelar"), True)
    press(row(page, "bea").get_by_role("button", name=re.compile("Dar entrada")), True)
    expect(page.get_by_role("dialog")).to_be_visible()
    no_english(page)
    press(page.get_by_role("dialog").get_by_role("button", name="1 acompañante", exact=True), True)
    expect(row(page, "bea")).to_contain_text("+1 de 2")
    no_english(page)
    path = f"/#/meetups/{guests.id}/summary"
    admin = browser.page(token=token_for(api.user), viewport=PHONE, locale="es-ES", touch=True, path=path)
    press(admin.locator("[data-guest='6']").get_by_role("button", name="Acompañantes…"), True)
    expect(admin.get_by_role("dialog")).to_be_visible()
    no_english(admin)
