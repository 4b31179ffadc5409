"""The summary's guest list of a big night (issue 24, item 7), on a phone and a desktop, in English and
Spanish: a page at a time, searched by the door's rule, narrowed by outcome; an arrival line reads
"· let in by olga" (no stray comma), and a guest let in by name says so and opens a page of their own."""

import re

import pytest
from playwright.sync_api import expect
from webtest import TestApp

from browser.support import DESKTOP, PHONE, no_english, screenshot
from doorapp import access
from doorapp.models import Guest, MeetupGuest

pytestmark = pytest.mark.browser
SPANISH = "es-ES"


@pytest.fixture
def big_night(app, olga, org, meetup):
    """130 guests on the list, three of them in (one a ban-free Grace), Nadia let in by name; finalized."""
    api = TestApp(app)
    api.authorization = ("Bearer", access.issue_token(app.config["door.config"].secret_key, olga, 60))
    for n in range(130):
        name = "Grace Okafor" if n == 7 else f"Guest Number{n}"
        Guest.create(platform_user_id=5000 + n, username=f"guest_{n}", displayname=name)
        MeetupGuest.create(meetup=meetup, guest=5000 + n)
    base = f"/organizations/{org.id}/meetups/{meetup.id}"
    for guest_id in (5000, 5007, 5100):
        api.post_json(f"{base}/guests/{guest_id}/checkin", {})
    nadia = api.post_json(f"{base}/local-walkins", {"displayname": "Nadia Volkova"}, status=201).json
    api.patch_json(f"{base}/finalize", {})
    return nadia["guest"]["platform_user_id"]


@pytest.mark.parametrize(
    "locale, viewport, words",
    [
        (
            "en-US",
            PHONE,
            {"more": "Show 50 more", "let_in": "let in by olga", "local": "not on the platform"},
        ),
        (
            "en-US",
            DESKTOP,
            {"more": "Show 50 more", "let_in": "let in by olga", "local": "not on the platform"},
        ),
        (SPANISH, PHONE, {"more": "Mostrar 50 más", "let_in": "olga", "local": "no está en la plataforma"}),
        (SPANISH, DESKTOP, {"more": "Mostrar 50 más", "let_in": "olga", "local": "no está en la plataforma"}),
    ],
)
def test_a_big_nights_summary_is_paged_searched_and_filtered(
    browser, olga, org, meetup, big_night, token_for, locale, viewport, words
):
    page = browser.page(
        token=token_for(olga), locale=locale, viewport=viewport, path=f"/#/meetups/{meetup.id}/summary"
    )
    rows = page.locator("#summary-guests > li")
    expect(rows).to_have_count(50)
    page.get_by_role("button", name=words["more"]).click()
    expect(rows).to_have_count(100)
    page.locator(".summary-search").fill("grace oka")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Grace Okafor")
    expect(rows.first).to_contain_text(words["let_in"])
    assert (
        ", " not in rows.first.locator(".state").inner_text()
        and "," not in rows.first.locator(".state").inner_text()
    )
    page.locator(".summary-search").fill("")
    page.locator(".chip[data-outcome=WALK_IN]").click()
    expect(rows).to_have_count(1)
    nadia = rows.first
    expect(nadia).to_contain_text("Nadia Volkova")
    expect(nadia.locator(".username")).to_have_text(words["local"])
    page.locator(".chip[data-outcome=ATTENDED]").click()
    expect(rows).to_have_count(3)
    page.locator(".chip[data-outcome=NO_SHOW]").click()
    expect(rows).to_have_count(50)
    if locale == SPANISH:
        no_english(page)
    screenshot(page, f"summary-list-{locale}-{viewport['width']}")
    page.locator(".chip[data-outcome=WALK_IN]").click()
    page.locator("#summary-guests > li .name").first.click()
    expect(page).to_have_url(re.compile(f"#/guests/{big_night}$"))
    expect(page.get_by_role("heading", name="Nadia Volkova")).to_be_visible()
    expect(page.locator(".summary .muted").first).to_contain_text(words["local"])
    assert "@" not in page.locator(".summary .muted").first.inner_text()
