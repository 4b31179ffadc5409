"""The door on a phone on venue Wi-Fi: results in view with the keyboard up, the right guest among
namesakes, and nothing lost or doubled when the network drops (queued actions, a reload during the drop,
an answer lost after Door acted)."""

from datetime import datetime

import pytest
from playwright.sync_api import expect

from browser.support import (
    KEPT,
    KEYBOARD_UP,
    PHONE,
    TIMEOUT_MS,
    arrived,
    check_in_by_username,
    counter,
    door_page,
    row,
    screenshot,
    sign_in,
    status_details,
    wait_for,
)
from doorapp.models import AuditEvent, Ban, Guest, MeetupGuest

pytestmark = pytest.mark.browser


def box(locator):
    return locator.bounding_box()


def test_with_the_keyboard_up_the_search_box_and_three_results_are_in_view(
    browser, make_user, org, crowd, token_for
):
    page = door_page(browser, make_user, org, crowd, token_for, viewport=KEYBOARD_UP)
    page.keyboard.type("okafor")
    rows = page.locator("#door-results > [role=row]")
    expect(rows.first).to_contain_text("Okafor")
    search = box(page.get_by_label("Search guests"))
    assert search["y"] >= 0 and search["y"] + search["height"] <= KEYBOARD_UP["height"]
    visible = [
        b
        for b in (box(rows.nth(i)) for i in range(min(rows.count(), 6)))
        if b["y"] >= 0 and b["y"] + b["height"] <= KEYBOARD_UP["height"]
    ]
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
    expect(page.locator("#door-results > [role=row]").first).to_contain_text("@grace_okafor")
    page.keyboard.press("Enter")
    expect(page.get_by_text("✓ Grace Okafor (@grace_okafor) checked in: #1")).to_be_visible()
    # again, by the exact username: she is on top as already in, and nobody else is checked in
    page.keyboard.type("grace_okafor")
    first = page.locator("#door-results > [role=row]").first
    expect(first).to_contain_text("@grace_okafor")
    expect(first).to_contain_text("#1 arrived")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Grace Okafor (@grace_okafor) is already in, #1, by sam at")).to_be_visible()
    assert MeetupGuest.select().where(MeetupGuest.has_arrived).count() == 1
    # by name, with a namesake: the arrived one shows first, and Enter only moves the selection
    page.keyboard.press("Escape")
    page.keyboard.type("Grace Okafor")
    rows = page.locator("#door-results > [role=row]")
    expect(rows).to_have_count(6)
    expect(rows.first).to_contain_text("#1 arrived")
    page.keyboard.press("Enter")
    expect(page.get_by_text("6 guests match")).to_be_visible()
    expect(rows.nth(1)).to_have_attribute("aria-selected", "true")
    assert MeetupGuest.select().where(MeetupGuest.has_arrived).count() == 1
    page.keyboard.type(" o")  # the hint was about that search: typing on takes it away
    expect(page.get_by_text("6 guests match")).to_have_count(0)
    # the Arrived filter lists the latest arrival first
    page.keyboard.press("Escape")
    page.keyboard.type("ada_")
    page.locator("#door-results > [role=row]").first.get_by_role("button", name="Check in").click()
    expect(page.get_by_text("checked in: #2")).to_be_visible()
    page.get_by_role("radio", name="Arrived").click()
    expect(page.locator("#door-results > [role=row]").first).to_contain_text("#2 arrived")
    expect(page.locator("#door-results > [role=row]").nth(1)).to_contain_text("#1 arrived")


def queue_four_while_offline(page):
    """Three check-ins and a walk-in by name while the network is down; all shown as pending."""
    page.context.set_offline(True)
    for n, username in enumerate(("grace_0", "ada_1", "oliver_2"), 1):
        check_in_by_username(page, username)
        announced = page.get_by_text(f"Check-in of {username.split('_')[0].title()}")
        expect(announced).to_contain_text("not confirmed yet")
        expect(page.locator("[data-queue=waiting]")).to_have_text(f"{n} waiting")
    page.keyboard.press("Escape")
    page.keyboard.type("Nadia Volkova")
    expect(page.get_by_text("No guest matches")).to_be_visible()
    page.get_by_role("button", name="add “Nadia Volkova” as a walk-in").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_label("Platform username, or a name")).to_have_value("Nadia Volkova")
    # offline the dialog cannot search, says so, and lets in by name all the same
    expect(dialog.get_by_text("No network: searching the platform's members needs it.")).to_be_visible()
    dialog.get_by_role("button", name="Let in “Nadia Volkova” by name").click()
    expect(page.get_by_text("Walk-in of Nadia Volkova")).to_contain_text("not confirmed yet")
    expect(page.locator("[data-queue=waiting]")).to_have_text("4 waiting")
    expect(page.locator("[data-network=offline]")).to_be_visible()
    details = status_details(page)  # in full: what waits, and what the network means
    expect(details).to_contain_text("4 actions are waiting to be sent.")
    expect(details).to_contain_text("No network. Search and check in as usual")
    page.keyboard.press("Escape")
    expect(details).to_be_hidden()
    assert arrived() == {} and not AuditEvent.select().where(AuditEvent.event_type == "CHECK_IN").exists()


def expect_four_landed_once(page):
    expect(page.locator("[data-queue]")).to_have_count(0)
    expect(counter(page, "arrived")).to_have_text("4")
    assert sorted(arrived().values()) == [1, 2, 3, 4]
    check_ins = list(AuditEvent.select().where(AuditEvent.event_type == "CHECK_IN").order_by(AuditEvent.id))
    assert len(check_ins) == 4
    for event in check_ins:  # the door's time (before the server's) beside the server's
        door_time = datetime.fromisoformat(event.details["door_time"].removesuffix("Z"))
        assert door_time <= event.timestamp
    assert Guest.get(Guest.is_local).displayname == "Nadia Volkova"


def test_actions_made_while_the_network_is_down_land_once_when_it_is_back(
    browser, make_user, org, crowd, token_for
):
    page = door_page(browser, make_user, org, crowd, token_for)
    queue_four_while_offline(page)
    screenshot(page, "door-offline-queued")
    page.context.set_offline(False)
    expect_four_landed_once(page)
    page.keyboard.press("Escape")
    expect(row(page, "grace_0")).to_contain_text("arrived")


def test_a_reload_during_the_drop_keeps_the_door_and_its_queue(
    chromium, live_server, make_user, org, crowd, token_for
):
    # http://127.0.0.1 is a secure context: the service worker keeps the shell
    token = token_for(make_user("sam", org=org))
    stored = {"origin": live_server, "localStorage": [{"name": "auth_token", "value": token}]}
    context = chromium.new_context(
        viewport=PHONE,
        base_url=live_server,
        service_workers="allow",
        storage_state={"cookies": [], "origins": [stored]},
    )
    context.set_default_timeout(TIMEOUT_MS)
    problems = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(f"/#/meetups/{crowd.id}")
        expect(page.locator("#door-results > [role=row]").first).to_be_visible()
        page.evaluate("""navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller
          || new Promise((done) => navigator.serviceWorker.addEventListener("controllerchange", done)))""")
        queue_four_while_offline(page)
        page.reload()
        expect(page.locator("[data-queue=waiting]")).to_have_text("4 waiting")
        expect(row(page, "grace_0")).to_contain_text("pending")
        expect(page.locator("[data-network=offline]")).to_have_text("Offline")  # no "do not reload"
        details = status_details(page)
        expect(details).to_contain_text("4 actions are waiting to be sent.")
        expect(details).to_contain_text("Reloading is safe.")
        screenshot(page, "door-reloaded-offline")
        page.context.set_offline(False)
        expect_four_landed_once(page)
        # the worker kept the shell only: no API answer, no token
        kept = page.evaluate("""async () => {
          const urls = [];
          for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            for (const request of await cache.keys()) urls.push(new URL(request.url).pathname);
          }
          return urls;
        }""")
        assert "/" in kept and "/static/door/screen.js" in kept
        assert all(url == "/" or url.startswith("/static/") for url in kept), kept
    finally:
        context.close()
    assert not problems


def test_an_answer_lost_after_door_acted_is_replayed_without_a_second_check_in(
    browser, make_user, org, crowd, token_for
):
    page = door_page(browser, make_user, org, crowd, token_for)
    lost = []

    def act_then_lose_the_answer(route):
        if not lost:
            lost.append(route.fetch())  # Door checks the guest in ...
            return route.abort("connectionreset")  # ... and the answer never reaches the phone
        return route.continue_()

    page.route("**/checkin", act_then_lose_the_answer)
    check_in_by_username(page, "grace_0")
    expect(page.get_by_text("✓ Sent: Check-in of Grace Okafor (@grace_0): #1.")).to_be_visible()
    assert lost[0].status == 200 and arrived() == {2000: 1}
    assert AuditEvent.select().where(AuditEvent.event_type == "CHECK_IN").count() == 1
    assert page.get_by_text("Nothing was changed").count() == 0


def test_two_tabs_of_one_device_send_the_queue_once(browser, make_user, org, crowd, token_for):
    first = door_page(browser, make_user, org, crowd, token_for)
    second = first.context.new_page()  # the same device: one localStorage, one queue
    second.goto(f"/#/meetups/{crowd.id}")
    expect(second.locator("#door-results > [role=row]").first).to_be_visible()
    first.context.set_offline(True)
    check_in_by_username(first, "grace_0")
    expect(first.get_by_text("Check-in of Grace")).to_contain_text("not confirmed yet")
    check_in_by_username(first, "ada_1")
    expect(first.get_by_text("Check-in of Ada")).to_contain_text("not confirmed yet")
    expect(second.locator("[data-queue=waiting]")).to_have_text("2 waiting")  # the other tab sees the queue
    first.context.set_offline(False)
    expect(second.locator("[data-queue]")).to_have_count(0)
    expect(counter(second, "arrived")).to_have_text("2")
    assert sorted(arrived().values()) == [1, 2]
    assert AuditEvent.select().where(AuditEvent.event_type == "CHECK_IN").count() == 2


def test_a_queued_action_door_refuses_is_kept_with_its_reason_until_dismissed(
    browser, make_user, org, crowd, token_for
):
    page = door_page(browser, make_user, org, crowd, token_for)
    page.context.set_offline(True)
    check_in_by_username(page, "grace_0")
    expect(page.get_by_text("not confirmed yet")).to_be_visible()  # the door has moved on
    Ban.create(org=org, guest=2000, reason="Shouted at the host")  # banned while the door was offline
    page.context.set_offline(False)
    expect(page.locator("[data-queue=attention]")).to_have_text("⚠ 1 needs attention")
    attention = status_details(page).locator(".needs-attention")
    expect(attention).to_contain_text("Check-in of Grace Okafor (@grace_0): refused.")
    expect(attention).to_contain_text("Shouted at the host")
    assert arrived() == {}
    page.reload()  # kept on the device, not dropped
    expect(page.locator("[data-queue=attention]")).to_have_text("⚠ 1 needs attention")
    attention = status_details(page).locator(".needs-attention")
    expect(attention).to_contain_text("Shouted at the host")
    attention.get_by_role("button", name="Dismiss").click()
    expect(attention).to_have_count(0)
    expect(page.locator("[data-queue]")).to_have_count(0)


def test_signing_out_leaves_no_guest_list_on_the_phone(browser, make_user, org, crowd, token_for):
    page = door_page(browser, make_user, org, crowd, token_for)
    expect(row(page, "grace_0")).to_be_visible()
    listed = MeetupGuest.select().where(MeetupGuest.meetup == crowd).count()
    wait_for(lambda: page.evaluate(KEPT, str(crowd.id)) == listed)  # kept for a reload during a drop
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert page.evaluate("localStorage.getItem('door_session')") is None
    wait_for(lambda: page.evaluate(KEPT, str(crowd.id)) is None)


def test_an_action_queued_before_signing_out_goes_out_only_under_the_account_that_made_it(
    browser, make_user, org, crowd, token_for
):
    make_user("olga", org=org)
    page = door_page(browser, make_user, org, crowd, token_for)
    page.route("**/checkin", lambda route: route.abort("connectionreset"))  # Door out of reach for it
    check_in_by_username(page, "grace_0")
    expect(page.locator("[data-queue=waiting]")).to_have_text("1 waiting")
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, "olga")  # another door person takes the phone
    page.unroute("**/checkin")
    page.goto(f"/#/meetups/{crowd.id}")
    expect(page.locator("[data-queue=others]")).to_have_text("1 left by @sam")
    expect(status_details(page)).to_contain_text("1 action made on this phone by @sam")
    page.wait_for_timeout(3500)  # longer than the queue's retry: still not sent under olga's name
    assert arrived() == {}
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, "sam")
    page.goto(f"/#/meetups/{crowd.id}")
    expect(counter(page, "arrived")).to_have_text("1")
    expect(page.locator("[data-queue]")).to_have_count(0)
    assert arrived() == {2000: 1}
    assert MeetupGuest.get(MeetupGuest.guest == 2000).checked_in_by.username == "sam"


def test_an_admin_links_a_guest_let_in_by_name_to_their_platform_account(
    browser, make_user, org, meetup, token_for
):
    page = browser.page(
        token=token_for(make_user("olga", org=org, role="ADMIN")),
        viewport=PHONE,
        path=f"/#/meetups/{meetup.id}",
    )
    expect(row(page, "alice")).to_be_visible()
    page.keyboard.type("Robert Tables")
    page.get_by_role("button", name="add “Robert Tables” as a walk-in").click()
    page.get_by_role("button", name="Let in “Robert Tables” by name").click()
    expect(page.get_by_text("✓ Robert Tables (not on the platform) checked in: #1")).to_be_visible()
    page.keyboard.type("robert")
    page.get_by_role("button", name="Link Robert Tables (not on the platform) to the platform…").click()
    page.get_by_label("Platform username").fill("bobby_tables")
    page.get_by_role("button", name="Link", exact=True).click()
    expect(page.get_by_text("Robert Tables is now Robert Tables (@bobby_tables).")).to_be_visible()
    page.keyboard.press("Escape")
    expect(row(page, "bobby_tables")).to_contain_text("#1 arrived")
    assert AuditEvent.get(AuditEvent.event_type == "GUEST_LINKED").guest_id == 1007


RANKING_JS = """async () => {
  const { DoorList } = await import("/static/door/list.js");
  const entry = (id, username, displayname, order = null) => ({
    guest: { platform_user_id: id, username, displayname, is_banned: false, is_local: false },
    rsvp: { has_arrived: order !== null, arrival_order: order, cancelled_rsvp: false, is_walkin: false } });
  const state = new DoorList();
  state.load({ guests: [entry(1, "ada_smith2", "Ada Smith"), entry(2, "ada_smith", "Ada Smith", 1),
    entry(3, "ada_smithson", "Ada Smithson"), entry(4, "grace", "Grace Okafor", 2),
    entry(5, "brooke", "Brooke Stone")] });
  const ids = (answer) => [answer.results.map((e) => e.guest.platform_user_id),
    answer.target?.guest.platform_user_id ?? null];
  return {
    exact: ids(state.query("ada_smith")), at: ids(state.query("@Ada_Smith ")),
    name: ids(state.query("ada smith")),
    words: ids(state.query("ok")), one: ids(state.query("gr ok")), arrived: ids(state.query("", "arrived")),
  };
}"""


def test_the_door_lists_state_ranks_and_decides_as_a_pure_module(browser):
    page = browser.page()
    found = page.evaluate(RANKING_JS)
    assert found["exact"] == [[2, 1, 3], 2]  # the exact username first, even arrived; Enter acts on it
    assert found["at"] == [[2, 1, 3], 2]  # "@", case and spaces around do not matter
    assert found["name"] == [[2, 1, 3], None]  # namesakes: the arrived one first, Enter decides nothing
    assert found["words"] == [[4], 4]  # words match at their start: "ok" is Okafor, not Brooke
    assert found["one"] == [[4], 4]
    assert found["arrived"] == [[4, 2], None]  # the latest arrival first
