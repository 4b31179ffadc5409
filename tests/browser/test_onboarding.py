"""Issue 9, items 6-8, in the browser: approving staff into an organization in one step, the pending count,
the signed-in name on a phone, and the Phones screen with its QR code."""

import pytest
import requests
from helpers import DOORAPP, PASSWORD, served
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, Browser, decoded_qr, screenshot
from doorapp.models import Membership, User

pytestmark = pytest.mark.browser


def test_a_site_admin_approves_a_newcomer_into_the_club_as_admin_from_a_phone(
    browser, root, org, make_user, token_for
):
    erin = make_user("erin", is_approved=False)
    make_user("fred", is_approved=False)
    desktop = browser.page(token=token_for(root), viewport=DESKTOP, path="/#/staff")
    expect(desktop.get_by_role("heading", name="Waiting for approval (2)")).to_be_visible()
    screenshot(desktop, "staff-approve")
    page = browser.page(token=token_for(root), viewport=PHONE)
    staff_tab = page.get_by_role("navigation", name="Sections").get_by_role("link", name="Staff")
    expect(staff_tab).to_have_accessible_name("Staff: 2 waiting for approval")
    expect(page.locator("#top .who")).to_have_text("root")
    expect(page.locator("#top .who")).to_be_in_viewport()
    staff_tab.click()
    expect(page.get_by_role("heading", name="Waiting for approval (2)")).to_be_visible()
    row = page.locator(f"[data-user='{erin.id}']").first  # the waiting list's row
    expect(row.get_by_label("Organization for erin")).to_have_value(str(org.id))  # the club, preselected
    row.get_by_label("Role of erin there").select_option("ADMIN")
    screenshot(page, "staff-approve")
    row.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("erin is approved and added to Night Owls as admin.")).to_be_visible()
    expect(page.get_by_role("heading", name="Waiting for approval (1)")).to_be_visible()
    expect(staff_tab).to_have_accessible_name("Staff: 1 waiting for approval")
    assert User.get_by_id(erin.id).is_approved and Membership.get(user=erin, org=org).role == "ADMIN"

    waiting = page.locator("section", has=page.get_by_role("heading", name="Waiting for approval"))
    fred = waiting.locator(".row")
    fred.get_by_label("Organization for fred").select_option("")
    expect(fred.get_by_label("Role of fred there")).to_be_disabled()
    fred.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("Nobody is waiting.")).to_be_visible()
    expect(page.get_by_role("heading", name="Waiting for approval", exact=True)).to_be_visible()
    expect(staff_tab).to_have_text("Staff")
    assert Membership.select().where(Membership.user == User.get(username="fred")).count() == 0

    newcomer = browser.page(token=token_for(erin), viewport=PHONE)
    expect(newcomer.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()
    expect(newcomer.locator("#top .who")).to_have_text("erin")
    expect(newcomer.locator("#top .who")).to_be_in_viewport()
    screenshot(newcomer, "signed-in-name")


@pytest.mark.parametrize("viewport", [PHONE, {"width": 390, "height": 470}], ids=["phone", "keyboard-up"])
def test_a_long_username_is_shortened_on_a_phone_not_hidden(
    browser, org, meetup, make_user, token_for, viewport
):
    user = make_user("a-very-long-username-for-the-door", org=org)
    page = browser.page(token=token_for(user), viewport=viewport, path=f"/#/meetups/{meetup.id}")
    expect(page.get_by_role("heading", name="Summer social")).to_be_visible()
    name = page.locator("#top .who")
    expect(name).to_have_text("a-very-long-username-for-the-door")
    expect(name).to_be_in_viewport()
    sign_out = page.get_by_role("button", name="Sign out")
    expect(sign_out).to_be_in_viewport(ratio=1)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]  # no sideways scrolling
    screenshot(page, "door-long-username")


def test_a_never_synced_meetup_says_so_and_syncs_from_the_list(browser, make_user, org, meetup, token_for):
    """`meetup` was stored without a sync (as when the first sync failed): no "0 RSVPs" but the truth."""
    page = browser.page(token=token_for(make_user("sam", org=org)), viewport=PHONE)
    card = page.locator(f"[data-meetup='{meetup.id}']")
    expect(card).to_contain_text("Never synced: its RSVP list is not loaded yet.")
    expect(card).not_to_contain_text("0 RSVPs")
    screenshot(page, "meetups-never-synced")
    card.get_by_role("button", name="Sync now").click()
    expect(page.get_by_text("Summer social: 251 guests on the list.")).to_be_visible()  # alice: cancelled
    expect(card).to_contain_text("0 arrived · 250 RSVPs · 0 walk-ins")
    expect(card.get_by_role("button", name="Sync now")).to_have_count(0)


def test_a_meetup_created_at_the_door_opens_with_its_rsvp_list(browser, make_user, org, token_for):
    page = browser.page(token=token_for(make_user("sam", org=org)), viewport=PHONE)
    page.get_by_role("button", name="night-owls/book-circle").click()
    page.get_by_role("button", name="Create meetup").click()
    expect(page.locator(".door-head")).not_to_contain_text("never synced")
    expect(page.locator("#door-results > [role=row]").first).to_be_visible()
    page.get_by_role("link", name="Meetups").first.click()
    expect(page.locator(".card.meetup")).to_contain_text("0 arrived · 40 RSVPs")


# --- phones join in one step: the Phones screen -------------------------------------------------------


def test_the_phones_screen_shows_the_address_serve_printed_with_a_code_that_scans(chromium, tmp_path):
    with served(DOORAPP, "serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", tmp_path) as door:
        printed = next(line for line in door.lines if line.startswith("Phones open ")).split()[2]
        admin = {"code": door.setup_code, "username": "olga", "password": PASSWORD}
        requests.post(f"{door.url}/setup", json=admin, timeout=10).raise_for_status()
        token = requests.post(
            f"{door.url}/auth/token", data={"username": "olga", "password": PASSWORD}, timeout=10
        ).json()["access_token"]
        opened = Browser(chromium, door.url)  # the laptop's own browser, at 127.0.0.1
        try:
            for viewport in (PHONE, DESKTOP):
                page = opened.page(token=token, viewport=viewport)
                page.get_by_role("navigation", name="Sections").get_by_role("link", name="Phones").click()
                expect(page.get_by_role("heading", name="Phones join here")).to_be_visible()
                expect(page.get_by_label("Address for phones")).to_have_value(printed)
                code = page.get_by_role("img", name=f"QR code of {printed}")
                expect(code).to_be_in_viewport(ratio=1)
                assert decoded_qr(code.screenshot()) == printed
                screenshot(page, "phones")
            assert not opened.problems, opened.problems
        finally:
            opened.close()
        assert door.stop() == 0


def test_on_localhost_the_phones_screen_says_how_to_open_door_to_the_lan(browser, make_user, org, token_for):
    admin = make_user("olga", org=org, role="ADMIN")
    page = browser.page(token=token_for(admin), viewport=PHONE, path="/#/phones")
    expect(page.get_by_role("heading", name="Phones cannot join yet")).to_be_visible()
    expect(page.get_by_text("doorapp serve --host 0.0.0.0", exact=True)).to_be_visible()
    expect(page.get_by_text("DOOR_HOST=0.0.0.0", exact=True)).to_be_visible()
    expect(page.get_by_role("img")).to_have_count(0)
    screenshot(page, "phones-localhost")
    staff = browser.page(token=token_for(make_user("sam", org=org)), viewport=PHONE)
    nav = staff.get_by_role("navigation", name="Sections")
    expect(nav.get_by_role("link")).to_have_text(["Meetups", "Bans"])  # no Phones for door staff
