"""A phone with its keyboard up (390x470) shows at least two whole result rows below the sticky search bar
whatever the door has to say: the network, the queue and the last message fold into one status line, and
its details open over the list without moving it. English and Spanish."""

from datetime import datetime

import pytest
from playwright.sync_api import expect

from browser.support import DESKTOP, KEYBOARD_UP, PHONE, check_in_by_username, screenshot
from doorapp.models import Ban, Meetup

pytestmark = pytest.mark.browser
WORDS = {
    "en-US": {"waiting": "1 waiting", "queued": "Check-in of Grace Okafor (@grace_0), made at"},
    "es-ES": {"waiting": "1 en espera", "queued": "Entrada de Grace Okafor (@grace_0), hecha a las"},
}
ROWS_IN_VIEW = """() => {
  const header = document.querySelector(".search-bar").getBoundingClientRect();
  return [...document.querySelectorAll("#door-results > [role=row]")].map((li) => li.getBoundingClientRect())
    .filter((r) => r.top >= header.bottom - 0.5 && r.bottom <= window.innerHeight + 0.5).length;
}"""


def two_rows_in_view(page, name, locale):
    """At least two whole rows under the sticky header, with the search box focused, then screenshots."""
    search = page.locator(".door-search")
    search.focus()
    expect(search).to_be_focused()
    page.wait_for_timeout(50)  # the line's last re-render settles
    screenshot(page, f"door-rows-{name}-{locale}")
    assert page.evaluate(ROWS_IN_VIEW) >= 2, name
    line = page.locator(".door-status")
    assert line.is_hidden() or line.bounding_box()["height"] < 48, name  # two lines of text at most
    page.set_viewport_size(PHONE)
    screenshot(page, f"door-rows-{name}-{locale}")
    page.set_viewport_size(KEYBOARD_UP)


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_two_rows_stay_in_view_with_the_keyboard_up_whatever_the_door_says(
    browser, make_user, org, crowd, token_for, as_user, locale
):
    user = make_user("sam", org=org)
    page = browser.page(
        token=token_for(user), viewport=KEYBOARD_UP, path=f"/#/meetups/{crowd.id}", locale=locale, touch=True
    )
    rows, status, last = (
        page.locator("#door-results > [role=row]"),
        page.locator(".door-status"),
        page.locator(".last-action"),
    )
    expect(rows.first).to_be_visible()
    expect(status).to_be_hidden()  # nothing to say: no line at all
    two_rows_in_view(page, "idle", locale)

    page.keyboard.type("Grace Okafor")  # namesakes: Enter only moves the selection, and says why
    page.keyboard.press("Enter")
    expect(last).to_contain_text("6")
    expect(status).to_have_attribute("data-kind", "warn")
    two_rows_in_view(page, "namesakes", locale)
    page.keyboard.press("Escape")
    expect(status).to_be_hidden()

    page.context.set_offline(True)
    expect(page.locator("[data-network=offline]")).to_be_visible()
    two_rows_in_view(page, "offline", locale)

    check_in_by_username(page, "grace_0")  # not confirmed: queued, and said so
    expect(page.locator("[data-queue=waiting]")).to_have_text(WORDS[locale]["waiting"])
    expect(last).to_have_attribute("data-kind", "warn")
    two_rows_in_view(page, "offline-queued", locale)
    page.set_viewport_size(DESKTOP)  # a laptop at the door: the same line, above the list
    screenshot(page, f"door-rows-offline-queued-{locale}")
    page.set_viewport_size(KEYBOARD_UP)
    page.locator(".status-toggle").click()  # the details name each action that waits
    expect(page.locator(".status-details li")).to_contain_text(WORDS[locale]["queued"])
    screenshot(page, f"door-rows-queued-details-{locale}")
    page.keyboard.press("Escape")
    expect(page.locator(".status-details")).to_be_hidden()

    Ban.create(org=org, guest=2000, reason="Shouted at the host")  # banned while the phone was offline
    page.context.set_offline(False)
    expect(page.locator("[data-queue=attention]")).to_be_visible()
    expect(status).to_have_attribute("data-kind", "error")
    two_rows_in_view(page, "needs-attention", locale)
    # its details open over the list: the rows do not move, and Dismiss is at hand
    before = rows.first.bounding_box()
    page.locator(".status-toggle").click()
    attention = page.locator(".needs-attention")
    expect(attention).to_contain_text("Shouted at the host")
    assert rows.first.bounding_box() == before
    screenshot(page, f"door-rows-details-{locale}")
    attention.get_by_role("button").last.click()  # Dismiss
    expect(page.locator("[data-queue]")).to_have_count(0)
    page.locator(".status-toggle").click()  # closed again; the message stays in the line
    expect(page.locator(".status-details")).to_be_hidden()

    page.locator(".menu-toggle").click()  # a sync from the actions menu: its result in the line
    page.locator("#door-actions button").nth(1).click()
    expect(last).to_have_attribute("data-kind", "ok", timeout=20_000)
    two_rows_in_view(page, "synced", locale)

    Meetup.update(cancelled_at=datetime(2026, 11, 26), cancel_reason="Storm").where(
        Meetup.id == crowd.id
    ).execute()
    check_in_by_username(page, "ada_1")  # Door refuses: the meetup was cancelled meanwhile
    expect(last).to_have_attribute("data-kind", "error")
    expect(last).to_contain_text("Ada Smith")
    two_rows_in_view(page, "error", locale)

    admin = as_user(make_user("olga", org=org, role="ADMIN"))
    admin.patch(f"/organizations/{org.id}/meetups/{crowd.id}/finalize")  # and finalized: its note too
    expect(page.locator(".door-head .alert")).to_have_count(1)  # cancelled, then finalized: one note says so
    expect(page.locator(".door-head .alert.cancelled")).to_be_visible()
    two_rows_in_view(page, "finalized", locale)
