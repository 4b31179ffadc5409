"""After the night, in the browser: finalizing shows the summary with its SVG chart, the CSV downloads
with the token (never in a URL) and opens with accents and the demo's hostile names intact and inert, a
guest's row at the next meetup shows their history, and the audit screen takes its types from OpenAPI."""

import csv
import io
import re
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from browser.support import PHONE, screenshot
from doorapp.export import FORMULA_START
from doorapp.models import AuditEvent, AuditType, Meetup, MeetupGuest

pytestmark = pytest.mark.browser
DEMO = "https://demo.door.invalid/night-owls"
KEYBOARD_UP = {"width": 390, "height": 470}  # a phone with its keyboard up


def demo_evening(api, org):
    """The demo's book circle, synced, with the hostile names and some others checked in over an hour."""
    meetup = api.post_json(f"/organizations/{org.id}/meetups/", {"platform_url": f"{DEMO}/book-circle"}).json
    base = f"/organizations/{org.id}/meetups/{meetup['id']}"
    api.post(f"{base}/sync")
    hostile = [1001, 1002, 1006, 1009, 1010, 1011, 1012, 1013, 1014]
    others = [
        g["guest"]["platform_user_id"]
        for g in api.get(f"{base}/guests").json["guests"]
        if g["guest"]["platform_user_id"] > 100000
    ]
    start = datetime.fromisoformat(meetup["date"].removesuffix("Z")) - timedelta(minutes=10)  # 18:50
    for n, guest_id in enumerate(hostile + others[:10]):
        api.post_json(f"{base}/guests/{guest_id}/checkin", {})
        MeetupGuest.update(arrival_time=start + timedelta(minutes=4 * n)).where(
            MeetupGuest.meetup == meetup["id"], MeetupGuest.guest == guest_id
        ).execute()
    return meetup


def test_finalizing_shows_the_summary_and_its_csv_opens_with_names_intact_and_inert(
    browser, api, olga, org, token_for
):
    meetup = demo_evening(api, org)
    page = browser.page(token=token_for(olga))
    card = page.locator(f"[data-meetup='{meetup['id']}']")
    card.get_by_role("button", name="Finalize…").click()
    page.get_by_role("dialog").get_by_role("button", name="Finalize").click()
    expect(page).to_have_url(re.compile(f"#/meetups/{meetup['id']}/summary$"))
    expect(page.get_by_role("heading", name="Book circle")).to_be_visible()
    chart = page.locator("svg.chart")
    expect(chart).to_be_visible()
    assert chart.locator("rect.bar").count() == 6  # 18:50 to 20:02: six bars of 15 minutes from 18:45
    assert page.evaluate("document.querySelector('svg.chart').namespaceURI") == "http://www.w3.org/2000/svg"
    expect(page.locator(".tile").first).to_contain_text("People in")
    expect(page.locator("[data-guest='1001'] .name")).to_have_text("<img src=x onerror=alert(1)>")
    screenshot(page, "summary")
    page.get_by_role("button", name="Download CSV").click()
    page.get_by_role("dialog").locator("select[name=style]").select_option("data")  # for a program
    with page.expect_download() as waiting:
        page.get_by_role("dialog").get_by_role("button", name="Download CSV").click()
    download = waiting.value
    assert download.url.startswith("blob:") and "token" not in download.url
    assert download.suggested_filename == f"Book-circle-Borges-and-{meetup['date'][:10]}.csv"
    data = open(download.path(), "rb").read()
    assert data.startswith(b"\xef\xbb\xbf")
    header, *rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    names = {row[0]: row[2] for row in rows}
    assert names["1006"] == "Zoë Mîlle-Feuille" and names["1013"] == "'\t=1+2"
    assert names["1009"].startswith("'=HYPERLINK(")
    assert not [cell for row in rows for cell in row if cell.startswith(FORMULA_START)]
    phone = browser.page(token=token_for(olga), viewport=PHONE, path=f"/#/meetups/{meetup['id']}/summary")
    expect(phone.locator("svg.chart")).to_be_visible()
    screenshot(phone, "summary")
    phone.locator("[data-guest='1013']").scroll_into_view_if_needed()
    screenshot(phone, "summary-guests")


def test_an_admin_excuses_a_no_show_from_the_summary(browser, api, olga, org, meetup, token_for):
    Meetup.update(date=datetime(2026, 11, 1)).where(Meetup.id == meetup.id).execute()  # it has happened
    page = browser.page(token=token_for(olga), path=f"/#/meetups/{meetup.id}/summary", viewport=KEYBOARD_UP)
    expect(page.get_by_text("Nobody has been checked in yet.")).to_be_visible()
    row = page.locator("[data-guest='9007199254740993']")
    expect(row).to_contain_text("No-show")
    row.get_by_role("button", name="Excuse Alice Ångström (@alice)…").click()
    page.get_by_role("dialog").get_by_label("Reason").fill("Snowed in")
    screenshot(page, "excuse")
    page.get_by_role("dialog").get_by_role("button", name="Excuse").click()
    expect(page.locator("[data-guest='9007199254740993']")).to_contain_text("Excused")
    assert [e.reason for e in AuditEvent.select().where(AuditEvent.event_type == "NO_SHOW_EXCUSED")] == [
        "Snowed in"
    ]


def test_the_next_meetups_door_row_shows_the_guests_history(browser, olga, org, meetup, guest, token_for):
    past = [
        Meetup.create(
            org=org, name=f"Night {n}", date=datetime(2026, 10, 1 + 7 * n), platform_url=f"{DEMO}/night-{n}"
        )
        for n in range(3)
    ]
    for n, night in enumerate(past):
        MeetupGuest.create(meetup=night, guest=guest, has_arrived=n == 0, arrival_time=night.date)
    MeetupGuest.update(guests_count=2).where(MeetupGuest.meetup == meetup.id).execute()
    page = browser.page(token=token_for(olga), path=f"/#/meetups/{meetup.id}")
    row = page.locator("[data-guest='9007199254740993']")
    expect(row).to_contain_text("+2")
    expect(row).to_contain_text("2nd visit")
    expect(row).to_contain_text("2 no-shows in the last 5")
    screenshot(page, "door-history")
    phone = browser.page(token=token_for(olga), viewport=PHONE, path=f"/#/meetups/{meetup.id}")
    expect(phone.locator("[data-guest='9007199254740993']")).to_contain_text("2nd visit")
    screenshot(phone, "door-history")
    page.goto(f"/#/guests/{guest.platform_user_id}")
    expect(page.get_by_text("Repeat no-show: 2 of the last 5 meetups.")).to_be_visible()
    expect(page.locator(".row")).to_have_count(4)
    screenshot(page, "guest")


@pytest.mark.beyond_the_document  # an event type from a newer Door
def test_the_audit_screen_takes_types_from_openapi_shows_unknown_ones_and_downloads(
    browser, olga, org, token_for
):
    AuditEvent.create(event_type="FROM_A_NEWER_DOOR", org=org, details={"what": "x"})
    AuditEvent.create(event_type="BAN", org=org, reason="=cmd|' /C calc'!A0")
    page = browser.page(token=token_for(olga), path="/#/audit")
    expect(page.locator("[data-type='FROM_A_NEWER_DOOR']")).to_contain_text("From a newer door")
    options = page.get_by_label("Type").locator("option").all_text_contents()
    assert "No-show excused" in options and len(options) == 1 + len(AuditType)  # "Any type", then all
    page.get_by_label("Type").select_option("BAN")
    page.get_by_role("button", name="Show").click()
    expect(page.locator(".event")).to_have_count(1)
    page.get_by_role("button", name="Download CSV").click()
    page.get_by_role("dialog").locator("select[name=style]").select_option("data")  # for a program
    with page.expect_download() as waiting:
        page.get_by_role("dialog").get_by_role("button", name="Download CSV").click()
    rows = list(csv.reader(io.StringIO(open(waiting.value.path(), "rb").read().decode("utf-8-sig"))))
    assert [row[2] for row in rows[1:]] == ["BAN"] and rows[1][9] == "'=cmd|' /C calc'!A0"
    page.get_by_role("button", name="Download CSV").click()  # for a spreadsheet: the type in words
    with page.expect_download() as waiting:
        page.get_by_role("dialog").get_by_role("button", name="Download CSV").click()
    rows = list(csv.reader(io.StringIO(open(waiting.value.path(), "rb").read().decode("utf-8-sig"))))
    assert rows[0][:2] == ["When", "What"] and [row[1] for row in rows[1:]] == ["Ban"]
    assert rows[1][6] == "'=cmd|' /C calc'!A0"
    screenshot(page, "audit-export")
