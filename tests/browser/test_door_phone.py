"""The door on a phone on venue Wi-Fi: results in view with the keyboard up, the right guest among
namesakes, and nothing lost or doubled when the network drops (queued actions, a reload during the drop,
an answer lost after Door acted)."""

from datetime import datetime

import pytest
from playwright.sync_api import expect

from browser.support import PHONE, TIMEOUT_MS, screenshot
from browser.test_door import counter, row
from doorapp.models import AuditEvent, Guest, MeetupGuest

pytestmark = pytest.mark.browser
KEYBOARD_UP = {"width": 390, "height": 470}
NAMES = ["Grace Okafor", "Ada Smith", "Oliver Nguyen", "Alice O'Brien", "Samuel Okafor", "Zoë Müller",
         "Søren Álvarez", "Łukasz Nowak", "Anna Иванова", "Wei Wang"]


@pytest.fixture
def crowd(meetup):
    """40 more guests on the meetup's list, with two namesakes of Grace Okafor."""
    rows = [(2000 + i, f"{name.split()[0].lower()}_{i}", name) for i, name in enumerate(NAMES * 4)]
    rows += [(3001, "grace_okafor", "Grace Okafor"), (3002, "grace_okafor2386", "Grace Okafor")]
    for guest_id, username, displayname in rows:
        Guest.create(platform_user_id=guest_id, username=username, displayname=displayname)
        MeetupGuest.create(meetup=meetup, guest=guest_id, rsvp_time=datetime(2026, 11, 1))
    return meetup


def door_page(browser, make_user, org, meetup, token_for, viewport=PHONE, name="sam"):
    page = browser.page(token=token_for(make_user(name, org=org)), viewport=viewport,
                        path=f"/#/meetups/{meetup.id}")
    expect(page.locator("#door-results > li").first).to_be_visible()
    return page


def box(locator):
    return locator.bounding_box()


def test_with_the_keyboard_up_the_search_box_and_three_results_are_in_view(browser, make_user, org, crowd,
                                                                            token_for):
    page = door_page(browser, make_user, org, crowd, token_for, viewport=KEYBOARD_UP)
    page.keyboard.type("okafor")
    rows = page.locator("#door-results > li")
    expect(rows.first).to_contain_text("Okafor")
    search = box(page.get_by_label("Search guests"))
    assert search["y"] >= 0 and search["y"] + search["height"] <= KEYBOARD_UP["height"]
    visible = [b for b in (box(rows.nth(i)) for i in range(min(rows.count(), 6)))
               if b["y"] >= 0 and b["y"] + b["height"] <= KEYBOARD_UP["height"]]
    assert len(visible) >= 3, visible
    assert page.evaluate("window.scrollY") == 0
    # the counters and the actions (folded behind one button) share one compact line
    screenshot(page, "door-keyboard-up")
    counters, actions = box(page.locator(".counters")), box(page.get_by_role("button", name="Actions"))
    assert abs((counters["y"] + counters["height"] / 2) - (actions["y"] + actions["height"] / 2)) < 12
    assert counters["height"] < 30 and actions["height"] < 48
    page.get_by_role("button", name="Actions").click()
    expect(page.get_by_role("button", name="Add walk-in")).to_be_visible()


def test_enter_on_an_exact_username_never_checks_in_a_namesake(browser, make_user, org, crowd, token_for):
    page = door_page(browser, make_user, org, crowd, token_for)
    page.keyboard.type("grace_okafor")
    expect(page.locator("#door-results > li").first).to_contain_text("@grace_okafor")
    page.keyboard.press("Enter")
    expect(page.get_by_text("✓ Grace Okafor (@grace_okafor) checked in: #1")).to_be_visible()
    # again, by the exact username: she is on top as already in, and nobody else is checked in
    page.keyboard.type("grace_okafor")
    first = page.locator("#door-results > li").first
    expect(first).to_contain_text("@grace_okafor")
    expect(first).to_contain_text("#1 arrived")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Grace Okafor (@grace_okafor) is already in, #1, by sam at")).to_be_visible()
    assert MeetupGuest.select().where(MeetupGuest.has_arrived).count() == 1
    # by name, with a namesake: the arrived one shows first, and Enter only moves the selection
    page.keyboard.press("Escape")
    page.keyboard.type("Grace Okafor")
    rows = page.locator("#door-results > li")
    expect(rows).to_have_count(6)
    expect(rows.first).to_contain_text("#1 arrived")
    page.keyboard.press("Enter")
    expect(page.get_by_text("6 guests match")).to_be_visible()
    expect(rows.nth(1)).to_have_attribute("aria-selected", "true")
    assert MeetupGuest.select().where(MeetupGuest.has_arrived).count() == 1
    # the Arrived filter lists the latest arrival first
    page.keyboard.press("Escape")
    page.keyboard.type("ada_")
    page.locator("#door-results > li").first.get_by_role("button", name="Check in").click()
    expect(page.get_by_text("checked in: #2")).to_be_visible()
    page.get_by_role("radio", name="Arrived").click()
    expect(page.locator("#door-results > li").first).to_contain_text("#2 arrived")
    expect(page.locator("#door-results > li").nth(1)).to_contain_text("#1 arrived")
