"""The door screen against the default demo platform: a whole evening at the entrance, the live update
between two doors, and guest names that are hostile HTML."""

import pytest
from playwright.sync_api import expect

from browser.support import PHONE, audit_types, counter, row, screenshot
from doorapp.models import AuditEvent, Ban, Guest, MeetupGuest

pytestmark = pytest.mark.browser

BIG_ID = 9007199254740995  # demo member "big_id": beyond 2**53, where a JavaScript number loses digits
MAX_ID = 9223372036854775807  # demo member "max_id"
ZALGO_ID = 1003  # demo member "zalgo": combining marks all over "Zalgo"


def test_a_door_evening_from_demo_url_to_walk_in(browser, olga, token_for):
    page = browser.page(token=token_for(olga))

    # create the meetup from one of the demo URLs the page offers
    page.get_by_role("button", name="night-owls/board-games").click()
    page.get_by_role("button", name="Create meetup").click()
    expect(page.get_by_role("heading", name="Board games night")).to_be_visible()
    door_url = page.url
    meetup_id = door_url.rsplit("/", 1)[1]
    expect(counter(page, "rsvps")).to_have_text("5")  # synced when it was created

    # sync, with its progress while the platform is asked, then its result
    held = []
    page.route("**/sync", lambda route: held.append(route))
    page.get_by_role("button", name="Sync RSVPs").click()
    expect(page.get_by_role("progressbar")).to_be_visible()
    held[0].continue_()
    expect(
        page.get_by_text("Sync done: 0 new, 0 updated, 0 cancelled, 0 skipped; 5 on the list.")
    ).to_be_visible()
    expect(counter(page, "rsvps")).to_have_text("5")
    expect(counter(page, "expected")).to_have_text("5")

    # typing anywhere searches; accents (combining marks) do not matter; Enter checks in
    page.get_by_role("heading", name="Board games night").click()
    page.keyboard.type("zalgo")
    expect(page.get_by_label("Search guests")).to_have_value("zalgo")
    expect(page.locator("#door-results > [role=row]")).to_have_count(1)
    page.keyboard.press("Enter")
    expect(row(page, "zalgo")).to_contain_text("#1 arrived")
    expect(row(page, "zalgo")).to_contain_text("let in by olga")
    expect(counter(page, "arrived")).to_have_text("1")
    expect(counter(page, "expected")).to_have_text("4")
    assert audit_types(guest=ZALGO_ID) == ["CHECK_IN"]

    # word order does not matter, and a 64-bit id beyond 2**53 reaches the server exactly
    page.keyboard.type("2^53 beyond")
    page.keyboard.press("Enter")
    big = "Beyond 2^53 (a JavaScript number cannot hold this id)"
    expect(page.get_by_text(f"✓ {big} (@big_id) checked in: #2")).to_be_visible()
    assert MeetupGuest.get(MeetupGuest.guest == BIG_ID).arrival_order == 2

    # arrows move through the results; Enter checks in the selected one
    page.keyboard.type("tag")
    results = page.locator("#door-results > [role=row]")
    expect(results).to_have_count(2)
    expect(results.nth(0)).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowDown")
    expect(results.nth(1)).to_have_attribute("aria-selected", "true")
    second = int(results.nth(1).get_attribute("data-guest"))
    page.keyboard.press("Enter")
    expect(page.get_by_text("checked in: #3")).to_be_visible()
    assert MeetupGuest.get(MeetupGuest.guest == second).arrival_order == 3

    # an admin bans a guest on the Bans page, with a reason
    page.get_by_role("link", name="Bans").click()
    page.get_by_label("Find a guest to ban").fill("max_id")
    page.get_by_role("button", name="Ban Max Int64 🦉 (@max_id)…").click()  # each Ban names its guest
    page.get_by_label("Reason").fill("Threw dice at the host")
    page.get_by_role("button", name="Ban", exact=True).click()
    expect(page.locator(".row.banned")).to_contain_text("Threw dice at the host")
    assert audit_types(guest=MAX_ID) == ["BAN"]

    # back at the door the banned guest stands out and needs an explicit "check in anyway"
    page.goto(door_url)
    expect(row(page, "max_id")).to_contain_text("BANNED Threw dice at the host")
    page.keyboard.type("int64 max")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Max Int64 🦉 (@max_id) is banned")
    expect(dialog).to_contain_text("Threw dice at the host")
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()  # a second Enter cannot override
    dialog.get_by_role("button", name="Check in anyway").click()
    expect(page.get_by_text("checked in: #4 (ban overridden)")).to_be_visible()
    forced = AuditEvent.get(AuditEvent.guest == MAX_ID, AuditEvent.event_type == "CHECK_IN")
    assert forced.details["forced"] is True and forced.details["door_time"].endswith("Z")

    # undo asks for a reason
    row(page, "zalgo").get_by_role("button", name="Undo").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name="Undo check-in").click()
    expect(dialog.get_by_role("alert")).to_have_text("Reason is required.")
    dialog.get_by_label("Reason").fill("Checked in the wrong person")
    dialog.get_by_role("button", name="Undo check-in").click()
    expect(row(page, "zalgo")).to_contain_text("Expected")
    expect(counter(page, "arrived")).to_have_text("3")
    undo = AuditEvent.get(AuditEvent.guest == ZALGO_ID, AuditEvent.event_type == "UNDO_CHECK_IN")
    assert undo.reason == "Checked in the wrong person"

    # a walk-in by platform username Door does not know yet: looked up, registered, added, checked in
    page.get_by_role("button", name="Add walk-in").click()
    page.get_by_label("Platform username").fill("zoë_m")
    page.get_by_role("button", name="Look up @zoë_m on the platform").click()
    expect(row(page, "zoë_m")).to_contain_text("walk-in")
    expect(row(page, "zoë_m")).to_contain_text("#5 arrived")
    expect(counter(page, "walkins")).to_have_text("1")
    expect(counter(page, "arrived")).to_have_text("4")
    zoe = Guest.get(Guest.username == "zoë_m")
    assert audit_types(guest=zoe.platform_user_id) == ["GUEST_CREATED", "WALKIN", "CHECK_IN"]

    # what door staff see, on a laptop and on a phone
    page.keyboard.press("Escape")
    screenshot(page, "door")
    phone = browser.page(token=token_for(olga), viewport=PHONE, path=f"/#/meetups/{meetup_id}")
    expect(row(phone, "max_id")).to_contain_text("#4 arrived")
    screenshot(phone, "door")
    phone.keyboard.type("max")
    expect(phone.locator("#door-results > [role=row]")).to_have_count(1)
    screenshot(phone, "door-search")


def test_a_check_in_at_one_door_shows_at_the_other_without_a_reload(
    browser, make_user, org, meetup, token_for
):
    door = f"/#/meetups/{meetup.id}"
    first = browser.page(token=token_for(make_user("sam", org=org)), path=door)
    second = browser.page(token=token_for(make_user("kim", org=org)), viewport=PHONE, path=door)
    expect(row(second, "alice")).to_contain_text("Expected")
    second.evaluate("window.sameDocument = true")
    first.keyboard.type("angstrom alice")
    first.keyboard.press("Enter")
    expect(row(first, "alice")).to_contain_text("#1 arrived")
    # the second door polls every second (so it shows within two), without reloading
    expect(row(second, "alice")).to_contain_text("#1 arrived")
    expect(row(second, "alice")).to_contain_text("let in by sam")
    expect(counter(second, "arrived")).to_have_text("1")
    assert second.evaluate("window.sameDocument") is True
    # while nothing changes, the polls (of the changes since the version it holds) are answered 304
    # (If-None-Match with that version's ETag)
    unchanged = second.wait_for_event("response", lambda r: f"/meetups/{meetup.id}/guests?since=" in r.url)
    assert unchanged.status == 304
    assert unchanged.request.headers["if-none-match"] == unchanged.headers["etag"]


def test_walk_ins_of_an_unknown_a_known_and_an_invited_username(browser, make_user, org, meetup, token_for):
    Guest.create(platform_user_id=4242, username="bob", displayname="Bob Known-Already")
    page = browser.page(token=token_for(make_user("sam", org=org)), path=f"/#/meetups/{meetup.id}")
    expect(row(page, "alice")).to_be_visible()
    page.get_by_role("button", name="Add walk-in").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Platform username").fill("nobody_at_all")
    dialog.get_by_role("button", name="Look up @nobody_at_all on the platform").click()
    expect(dialog.get_by_role("alert")).to_contain_text("The platform has nobody by “nobody_at_all”.")
    # already a guest of Door: offered as they are typed; Enter takes the first one offered
    dialog.get_by_label("Platform username").fill("bob")
    expect(dialog.get_by_role("button", name="Bob Known-Already @bob")).to_be_visible()
    dialog.get_by_label("Platform username").press("Enter")
    expect(row(page, "bob")).to_contain_text("#1 arrived")
    assert audit_types(guest=4242) == ["WALKIN", "CHECK_IN"]
    page.get_by_role("button", name="Add walk-in").click()
    # on the list already (so not offered): the platform's look-up finds Door's guest, simply checked in
    page.get_by_label("Platform username").fill("alice")
    page.get_by_role("button", name="Look up @alice on the platform").click()
    expect(row(page, "alice")).to_contain_text("#2 arrived")
    expect(counter(page, "walkins")).to_have_text("1")
    expect(counter(page, "rsvps")).to_have_text("1")


HOSTILE = (
    "<img src=x onerror=\"document.body.dataset.pwned='yes'\">"
    "<script>document.body.dataset.pwned='yes'</script>"
)


def test_a_guest_whose_name_is_html_is_shown_as_text_and_never_runs(
    browser, make_user, org, meetup, token_for
):
    villain = Guest.create(platform_user_id=66, username="villain", displayname=HOSTILE)
    MeetupGuest.create(meetup=meetup, guest=villain)
    Ban.create(org=org, guest=villain, reason="<b onmouseover=alert(1)>shouting</b>")
    admin = make_user("olga", org=org, role="ADMIN")
    page = browser.page(token=token_for(admin), path=f"/#/meetups/{meetup.id}")
    name = row(page, "villain").locator(".name")
    expect(name).to_have_text(HOSTILE)
    expect(row(page, "villain").locator(".ban")).to_have_text("BANNED <b onmouseover=alert(1)>shouting</b>")
    page.keyboard.type("villain")
    page.keyboard.press("Enter")
    page.get_by_role("dialog").get_by_role("button", name="Check in anyway").click()
    expect(row(page, "villain")).to_contain_text("#1 arrived")
    page.get_by_role("link", name="Bans").click()
    expect(page.locator(".row.banned .name")).to_have_text(HOSTILE)
    page.get_by_role("link", name="Audit log").click()
    expect(page.locator(".event").first).to_contain_text(HOSTILE)
    assert page.locator("#app img, #app script, #app b").count() == 0
    assert page.evaluate("document.body.dataset.pwned") is None
