"""Data protection in Chromium: an organizer sets how long the organization keeps guests' data and writes its
notice; the notice shows on the door screen (folded under the title) and on a door pass's pairing page
before the door; on a guest's page Export downloads everything held about them and Erase..., after a
confirmation that says what goes and that backups forget it within 14 days, erases them."""

import json

import pytest
from playwright.sync_api import expect

from browser.support import PHONE, audit_types, no_english, pairing_path, screenshot
from doorapp.models import Guest, MeetupGuest, Org

pytestmark = pytest.mark.browser
ALICE = 9007199254740993  # conftest's guest, on the meetup's list
NOTICE = (
    "We keep your name for the door, 12 months.\nWrite to privacy@example.org to see it or have it erased."
)


def test_an_organizer_sets_the_privacy_settings_and_the_door_shows_the_notice(
    browser, olga, org, meetup, token_for, make_user
):
    page = browser.page(token=token_for(olga), path="/#/meetups")
    page.get_by_role("link", name="Privacy").click()
    expect(page.get_by_role("heading", name="Privacy at Night Owls")).to_be_visible()
    page.get_by_label("Keep guests on meetup lists for (months)").fill("6")
    page.get_by_label("Keep bans until an admin lifts them").check()
    expect(page.get_by_label("Keep bans for (months)")).to_be_disabled()
    page.get_by_label("Notice to guests").fill(NOTICE)
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Saved")
    screenshot(page, "privacy")
    saved = Org.get_by_id(org.id)
    assert (saved.keep_guests_months, saved.keep_bans_months, saved.privacy_notice) == (6, None, NOTICE)

    door = browser.page(
        token=token_for(make_user("sam", org=org)), viewport=PHONE, path=f"/#/meetups/{meetup.id}"
    )
    notice = door.locator(".door-head details.notice")
    expect(notice).to_be_visible()
    expect(notice.locator(".notice-text")).to_be_hidden()  # folded: the list keeps the screen
    notice.get_by_text("How this organization uses your data").click()
    expect(notice.locator(".notice-text")).to_have_text(NOTICE)
    screenshot(door, "door-notice")

    spanish = browser.page(token=token_for(olga), path="/#/privacy", locale="es-ES", viewport=PHONE)
    expect(spanish.get_by_role("heading", name="Privacidad en Night Owls")).to_be_visible()
    no_english(spanish, known=[NOTICE])


def test_a_door_pass_shows_the_notice_before_the_door(browser, api, org, meetup):
    api.patch_json(f"/organizations/{org.id}/privacy", {"notice": NOTICE})
    made = api.post_json(
        f"/organizations/{org.id}/passes", {"label": "Maria's phone", "meetup_id": str(meetup.id)}
    )
    phone = browser.page(viewport=PHONE, path=None, touch=True)
    phone.goto(pairing_path(made.json))
    expect(phone.get_by_text("This phone works the door as Maria's phone.")).to_be_visible()
    expect(phone.locator("details.notice[open] .notice-text")).to_have_text(NOTICE)
    screenshot(phone, "pass-notice")
    phone.get_by_role("link", name="Go to the door").click()
    expect(phone.locator("#door-results > [role=row]").first).to_be_visible()


def test_an_organizer_exports_then_erases_a_guest_from_their_page(browser, api, olga, org, meetup, token_for):
    api.post_json(f"/organizations/{org.id}/meetups/{meetup.id}/guests/{ALICE}/checkin", {})
    api.patch_json(f"/organizations/{org.id}/guests/{ALICE}/ban", {"reason": "Rude to the door"})
    page = browser.page(token=token_for(olga), path=f"/#/guests/{ALICE}")
    expect(page.get_by_role("heading", name="Alice Ångström")).to_be_visible()

    with page.expect_download() as downloading:
        page.get_by_role("button", name="Export everything held about Alice Ångström").click()
    download = downloading.value
    assert download.suggested_filename == f"guest-{ALICE}.json"
    held = json.loads(open(download.path(), encoding="utf-8").read())
    assert held["guest"]["username"] == "alice" and len(held["entries"]) == 1
    assert [b["reason"] for b in held["bans"]] == ["Rude to the door"]

    page.get_by_role("button", name="Erase everything held about Alice Ångström…").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Everything Night Owls holds about Alice Ångström goes now")
    expect(dialog).to_contain_text("within 14 days")
    screenshot(page, "guest-erase")
    dialog.get_by_role("button", name="Erase").click()  # no reason yet: it says so, and nothing goes
    expect(dialog.get_by_role("alert")).to_be_visible()
    assert Guest.get_or_none(Guest.platform_user_id == ALICE) is not None
    dialog.get_by_label("Why (the request, and when it came): not their name").fill("Asked by e-mail")
    dialog.get_by_role("button", name="Erase").click()
    expect(page.get_by_role("heading", name="Erased")).to_be_visible()
    expect(page.locator(".erased")).to_contain_text("list entries: 1 · bans: 1 · audit events: 2")
    assert "Alice" not in page.locator("main").inner_text()
    assert Guest.get_or_none(Guest.platform_user_id == ALICE) is None  # no other org held her
    assert MeetupGuest.get().guest_id is None and audit_types()[-1] == "GUEST_ERASED"
    page.reload()  # her page again: nobody there
    expect(page.get_by_role("alert")).to_contain_text("No guest has the id")
