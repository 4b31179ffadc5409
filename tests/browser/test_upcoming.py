"""Nights yet to come in the browser (issue 24, item 1), on a phone and a desktop, in English and Spanish: the
demo's meetups of the coming weeks show nobody as a no-show, at the door, in the summary or on a guest's
page; an admin cancels a night that did not take place, with a reason, and deletes one made by mistake."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, no_english, screenshot
from doorapp.db import utcnow
from doorapp.models import AuditEvent, Meetup, MeetupGuest

pytestmark = pytest.mark.browser
DEMO = "https://demo.door.invalid/night-owls"
SPANISH = "es-ES"


def demo_meetup(page, thread):
    """Create the demo's event from the meetups screen, as a new organizer would; its id."""
    page.goto("/#/meetups")
    url = page.locator("input[name=platform_url]:visible")
    url.fill(f"{DEMO}/{thread}")
    url.press("Enter")
    expect(page).to_have_url(re.compile(r"#/orgs/.+/meetups/[0-9a-f-]+$"))
    return page.url.rsplit("/", 1)[1]


@pytest.mark.parametrize(
    "locale, viewport, words",
    [
        ("en-US", PHONE, {"upcoming": "Upcoming", "cancel": "Cancel meetup…", "confirm": "Cancel meetup"}),
        ("en-US", DESKTOP, {"upcoming": "Upcoming", "cancel": "Cancel meetup…", "confirm": "Cancel meetup"}),
        (SPANISH, PHONE, {"upcoming": "Próximo", "cancel": "Cancelar evento…", "confirm": "Cancelar evento"}),
        (
            SPANISH,
            DESKTOP,
            {"upcoming": "Próximo", "cancel": "Cancelar evento…", "confirm": "Cancelar evento"},
        ),
    ],
)
def test_the_demos_coming_nights_show_no_no_show_and_an_admin_cancels_one(
    browser, olga, org, token_for, locale, viewport, words
):
    page = browser.page(token=token_for(olga), locale=locale, viewport=viewport)
    board_games = demo_meetup(page, "board-games")
    summer = demo_meetup(page, "summer-social")
    expect(page.locator(".row").first).to_be_visible()
    expect(page.locator(".tag.no-shows")).to_have_count(0)  # nobody missed a night that is still to come
    page.goto(f"/#/meetups/{board_games}/summary")
    expect(page.locator(".badge[data-outcome=UPCOMING]").first).to_have_text(words["upcoming"])
    expect(page.locator(".badge[data-outcome=NO_SHOW]")).to_have_count(0)
    expect(page.locator(".tile.danger")).to_have_count(0)
    if locale == SPANISH:
        no_english(page)
    screenshot(page, f"summary-upcoming-{locale}-{viewport['width']}")
    guest_id = page.locator(".row[data-guest]").first.get_attribute("data-guest")
    page.goto(f"/#/guests/{guest_id}")
    expect(page.locator(".badge[data-outcome=UPCOMING]").first).to_be_visible()
    expect(page.locator(".badge[data-outcome=NO_SHOW]")).to_have_count(0)
    # the board games night was rained out: it did not take place
    Meetup.update(date=utcnow() - timedelta(days=1)).where(Meetup.id == board_games).execute()
    page.goto(f"/#/meetups/{board_games}/summary")
    expect(page.locator(".badge[data-outcome=NO_SHOW]").first).to_be_visible()  # over now, so missed
    door_path = f"/#/orgs/{org.id}/meetups/{board_games}"  # a phone at its door, open all along
    door = browser.page(token=token_for(olga), locale=locale, viewport=viewport, path=door_path)
    expect(door.locator(".row").first).to_be_visible()
    page.get_by_role("button", name=words["cancel"]).click()
    dialog = page.get_by_role("dialog")
    dialog.locator("input").fill("Storm")
    screenshot(page, f"cancel-meetup-{locale}-{viewport['width']}")
    dialog.get_by_role("button", name=words["confirm"], exact=True).click()
    expect(page.locator(".alert.cancelled")).to_contain_text("Storm")
    expect(door.locator(".alert.cancelled")).to_contain_text("Storm")  # its next poll says so, no reload
    expect(page.locator(".badge[data-outcome=NO_SHOW]")).to_have_count(0)
    expect(page.locator(".badge[data-outcome=MEETUP_CANCELLED]").first).to_be_visible()
    if locale == SPANISH:
        no_english(page, known=["Storm"])
    assert [e.reason for e in AuditEvent.select().where(AuditEvent.event_type == "MEETUP_CANCELLED")] == [
        "Storm"
    ]
    page.goto(f"/#/orgs/{org.id}/meetups/{board_games}")  # its door, opened afresh, says so too
    expect(page.locator(".alert.cancelled")).to_contain_text("Storm")
    page.goto(f"/#/orgs/{org.id}/meetups/{summer}")
    expect(page.locator(".row").first).to_be_visible()
    expect(page.locator(".tag.no-shows")).to_have_count(0)


@pytest.mark.parametrize("locale, delete", [("en-US", "Delete meetup…"), (SPANISH, "Borrar evento…")])
def test_an_admin_deletes_a_meetup_made_by_mistake(browser, olga, org, token_for, locale, delete):
    page = browser.page(token=token_for(olga), locale=locale, viewport=PHONE)
    mistake = demo_meetup(page, "board-games")
    page.goto(f"/#/meetups/{mistake}/summary")
    page.get_by_role("button", name=delete).click()
    page.get_by_role("dialog").get_by_role("button", name=delete.rstrip("…"), exact=True).click()
    expect(page).to_have_url(re.compile(r"#/meetups$"))
    expect(page.locator(f"[data-meetup='{mistake}']")).to_have_count(0)
    assert Meetup.get_or_none(Meetup.id == mistake) is None
    assert MeetupGuest.select().count() == 0
    assert AuditEvent.select().where(AuditEvent.event_type == "MEETUP_DELETED").count() == 1
