"""The door's queue on a shared phone: tabs of one browser whose account changes under them never send one
account's action under another's token, and an action Door keeps failing on is set aside for "needs
attention" instead of holding up every action after it."""

import sqlite3

import pytest
from playwright.sync_api import expect

from browser.support import (
    arrived,
    check_in_by_username,
    counter,
    door_page,
    row,
    screenshot,
    sign_in,
    status_details,
)
from doorapp.db import db
from doorapp.models import MeetupGuest

pytestmark = pytest.mark.browser
DOOR_UNREACHABLE = ("**/organizations/**", "**/auth/**", "**/ping")
LOCKED_MS = 40_000  # three tries of about 5 s each (SQLite's busy_timeout) and the waits between them


def check_ins(as_user, root, org):
    """Who checked whom in, as the org's audit log answers (oldest first)."""
    events = as_user(root).get(f"/organizations/{org.id}/events/?limit=200").json["events"]
    return [
        (e["actor"]["username"], e["guest"]["username"])
        for e in reversed(events)
        if e["event_type"] == "CHECK_IN"
    ]


def test_a_tab_left_open_sends_nothing_of_one_account_under_another(
    browser, make_user, org, crowd, token_for, as_user, root
):
    make_user("bea", org=org)
    first = door_page(browser, make_user, org, crowd, token_for, name="bob")
    second = first.context.new_page()  # the same phone: one localStorage, one token, one queue
    second.goto(f"/#/meetups/{crowd.id}")
    expect(second.locator("#door-results > [role=row]").first).to_be_visible()
    for pattern in DOOR_UNREACHABLE:  # the first tab loses Door; the second can still reach it
        first.route(pattern, lambda route: route.abort("internetdisconnected"))
    expect(first.locator("[data-network=offline]")).to_be_visible()
    check_in_by_username(first, "grace_0")
    expect(first.locator("[data-queue=waiting]")).to_have_text("1 waiting")

    second.get_by_role("button", name="Sign out").click()
    expect(first.get_by_role("heading", name="Sign in")).to_be_visible()  # at once, without the network
    expect(first.get_by_text("Signed out in another tab of this browser.")).to_be_visible()
    screenshot(first, "door-tab-signed-out-elsewhere")
    sign_in(second, "bea")
    expect(second.locator("#top .who")).to_have_text("bea")
    expect(first.locator("#top")).not_to_contain_text("bob")
    for pattern in DOOR_UNREACHABLE:  # the network is back for the first tab
        first.unroute(pattern)
    expect(first.locator("#top .who")).to_have_text("bea")
    expect(first.get_by_text("this tab now works as bea")).to_be_visible()
    expect(first.locator("[data-queue=others]")).to_have_text("1 left by @bob")
    expect(status_details(first)).to_contain_text("1 action made on this phone by @bob")
    screenshot(first, "door-tab-switched")
    first.wait_for_timeout(4000)  # longer than the queue's retry: bob's check-in still waits for bob
    assert arrived() == {} and check_ins(as_user, root, org) == []

    check_in_by_username(first, "ada_1")  # what the first tab does now is bea's, as its top bar says
    expect(first.get_by_text("✓ Ada Smith (@ada_1) checked in: #1")).to_be_visible()
    first.get_by_role("button", name="Sign out").click()
    expect(second.get_by_role("heading", name="Sign in")).to_be_visible()
    sign_in(second, "bob")  # bob is back on this phone: his check-in goes, under his name
    expect(first.locator("#top .who")).to_have_text("bob")
    expect(first.get_by_text("this tab now works as bob")).to_be_visible()
    first.goto(f"/#/orgs/{org.id}/meetups/{crowd.id}")
    expect(counter(first, "arrived")).to_have_text("2")
    expect(first.locator("[data-queue]")).to_have_count(0)
    assert arrived() == {2001: 1, 2000: 2}
    assert check_ins(as_user, root, org) == [("bea", "ada_1"), ("bob", "grace_0")]
    assert MeetupGuest.get(MeetupGuest.guest == 2000).checked_in_by.username == "bob"


def test_a_tab_that_has_not_heard_of_another_account_yet_sends_nothing_under_it(
    browser, make_user, org, crowd, token_for, as_user, root
):
    bea = make_user("bea", org=org)
    page = door_page(browser, make_user, org, crowd, token_for, name="bob")
    expect(row(page, "grace_0")).to_be_visible()
    # bea's token lands in storage and, in the same instant, the door taps Check in: no storage event yet
    page.evaluate(
        """(token) => {
          localStorage.setItem("auth_token", token);
          document.querySelector('[data-guest="2000"] button').click();
        }""",
        token_for(bea),
    )
    expect(page.locator("#top .who")).to_have_text("bea")  # the next request found out, and sent nothing
    expect(page.locator("[data-queue=others]")).to_have_text("1 left by @bob")
    expect(status_details(page)).to_contain_text("1 action made on this phone by @bob")
    assert arrived() == {} and check_ins(as_user, root, org) == []


def test_an_action_door_keeps_failing_on_is_set_aside_and_the_next_one_goes(
    browser, make_user, org, crowd, token_for, as_user, root
):
    page = door_page(browser, make_user, org, crowd, token_for)
    # another program holds the database's write lock (a backup, the sqlite3 shell): every check-in is 503
    holder = sqlite3.connect(db.database, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        check_in_by_username(page, "grace_0")
        expect(page.get_by_text("Check-in of Grace")).to_contain_text("not confirmed yet", timeout=LOCKED_MS)
        expect(page.locator("[data-queue=attention]")).to_have_text("⚠ 1 needs attention", timeout=LOCKED_MS)
        attention = status_details(page).locator(".needs-attention")
        expect(attention).to_contain_text(
            "Check-in of Grace Okafor (@grace_0): not confirmed after 3 tries. Door's database is",
            timeout=LOCKED_MS,
        )
        expect(page.locator("[data-queue=waiting]")).to_have_count(0)
        screenshot(page, "door-needs-attention")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    check_in_by_username(page, "ada_1")  # the database is back: the next check-in goes at once
    expect(page.get_by_text("✓ Ada Smith (@ada_1) checked in: #1")).to_be_visible()
    page.wait_for_timeout(4000)  # longer than the queue's retry: the one set aside is not sent by itself
    assert arrived() == {2001: 1}
    expect(page.locator("[data-queue=attention]")).to_have_text("⚠ 1 needs attention")
    attention = status_details(page).locator(".needs-attention")
    attention.get_by_role("button", name="Try again").click()  # the same key: it lands once
    expect(attention).to_have_count(0)
    expect(counter(page, "arrived")).to_have_text("2")  # at once, while it is sent
    expect(page.locator("[data-queue]")).to_have_count(0)  # and Door has answered
    assert arrived() == {2001: 1, 2000: 2}
    assert check_ins(as_user, root, org) == [("sam", "ada_1"), ("sam", "grace_0")]
