"""A check-in that reached Door late keeps the door's time in the browser (issue 24, item 4): the door's
Arrived filter and the summary list arrivals by when they happened, with the server's numbers beside them."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect
from webtest import TestApp

from browser.support import DESKTOP, PHONE, screenshot
from doorapp import access
from doorapp.db import utcnow
from doorapp.models import Guest, MeetupGuest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    "locale, viewport, arrived",
    [("en-US", DESKTOP, "Arrived"), ("es-ES", PHONE, "Dentro")],
)
def test_the_arrived_filter_and_the_summary_order_by_the_doors_time(
    browser, app, olga, org, meetup, guest, token_for, locale, viewport, arrived
):
    api = TestApp(app)
    api.authorization = ("Bearer", access.issue_token(app.config["door.config"].secret_key, olga, 60))
    Guest.create(platform_user_id=2, username="bob", displayname="Bob Live")
    MeetupGuest.create(meetup=meetup, guest=2, rsvp_time=utcnow() - timedelta(days=3))
    base = f"/organizations/{org.id}/meetups/{meetup.id}"
    api.post_json(f"{base}/guests/2/checkin", {})  # at the door now: number 1
    queued = (utcnow() - timedelta(minutes=10)).isoformat() + "+00:00"  # alice's check-in waited offline
    api.post_json(f"{base}/guests/{guest.platform_user_id}/checkin", {"door_time": queued})  # number 2
    page = browser.page(
        token=token_for(olga), locale=locale, viewport=viewport, path=f"/#/orgs/{org.id}/meetups/{meetup.id}"
    )
    page.locator(".chip[data-filter=arrived]").click()
    expect(page.locator(".chip[data-filter=arrived]")).to_contain_text(arrived)
    rows = page.locator("#door-results > [role=row]")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("@bob")  # the latest arrival first, by the door's clock
    expect(rows.nth(1)).to_contain_text("#2")
    screenshot(page, f"door-arrived-late-{locale}")
    page.goto(f"/#/meetups/{meetup.id}/summary")
    guests = page.locator(".rows.outcomes > li")
    number = r"(#|n\.º )"  # "#2 at 20:03", "n.º 2 a las 20:03"
    expect(guests.nth(0)).to_contain_text(re.compile(number + "2 "))  # alice came first, sent second
    expect(guests.nth(1)).to_contain_text(re.compile(number + "1 "))
