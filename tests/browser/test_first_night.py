"""A newcomer's first night in Chromium (issue 37, items 11 to 17): a Door only this computer can open never
shows a phone a code it cannot use; a lost phone is two taps from Revoke; the organization takes the time
zone of the browser that made it; and the walk's smaller findings. On a phone (390x844, and 390x470 with
the keyboard up), in English and in Spanish."""

import csv
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from helpers import LUMA_HEADER, meetup_xls, next_week
from playwright.sync_api import expect

from browser.support import PHONE, arrived, check_in_by_username, counter, pairing_path, screenshot, wait_for
from doorapp.models import AuditEvent, DoorPass, Meetup, MeetupGuest, Org

pytestmark = pytest.mark.browser
KEYBOARD_UP = {"width": 390, "height": 470}


# --- item 11: no code a phone cannot open ------------------------------------------------------------------


@pytest.mark.parametrize("viewport", [PHONE, KEYBOARD_UP], ids=["390x844", "390x470"])
def test_a_door_for_this_computer_only_shows_no_pass_code_and_says_how_to_open_it(
    browser, boss_user, meetup, token_for, viewport
):
    page = browser.page(
        token=token_for(boss_user), viewport=viewport, path=f"/#/passes/{meetup.id}", touch=True
    )
    help_ = page.locator(".lan-help").first
    expect(help_).to_contain_text("Phones cannot join yet")
    expect(help_.locator("code").first).to_have_text("doorapp serve --host 0.0.0.0")
    screenshot(page, "first-night-pass-local")
    page.get_by_label("Name").fill("Maria's phone")
    page.get_by_role("button", name="Make the pass").click()
    expect(page.locator("tr[data-pass]")).to_have_count(1)
    expect(page.locator(".lan-help")).to_have_count(2)  # above the form, and where the code would be
    expect(page.locator("img.qr")).to_have_count(0)
    expect(page.locator(".join")).to_have_count(0)  # nor the address to copy
    screenshot(page, "first-night-pass-made-local")


# --- item 12: a lost phone, two taps from Revoke -----------------------------------------------------------


def test_a_lost_phone_is_two_taps_from_revoke(browser, boss_user, org, crowd, as_user, token_for):
    made = (
        as_user(boss_user)
        .post_json(f"/organizations/{org.id}/passes", {"label": "Maria's phone", "meetup_id": str(crowd.id)})
        .json
    )
    phone = browser.page(viewport=PHONE, path=None, touch=True)
    phone.goto(pairing_path(made))
    expect(phone.locator("#door-results > [role=row]").first).to_be_visible()

    laptop = browser.page(token=token_for(boss_user), viewport=PHONE, path="/#/meetups", touch=True)
    laptop.get_by_role("navigation").get_by_role("link", name="Phones").tap()  # one
    passes = laptop.locator(".passes tr[data-pass]")
    expect(passes).to_have_count(1)
    screenshot(laptop, "first-night-phones-passes")
    passes.get_by_role("button", name="Revoke Maria's phone").tap()  # two
    laptop.get_by_role("dialog").get_by_role("button", name="Revoke").tap()
    expect(laptop.get_by_text("No door pass is working now.")).to_be_visible()
    assert DoorPass.get_by_id(made["id"]).revoked_at is not None
    expect(phone.get_by_role("heading", name="This door pass has ended")).to_be_visible()  # at its next poll


# --- item 13: the organization's time zone is the browser's -------------------------------------------------


def test_a_new_organization_takes_the_time_zone_of_the_browser_that_made_it(browser, root, token_for):
    page = browser.page(token=token_for(root), path="/#/orgs", timezone="Europe/Madrid")
    page.get_by_label("Name", exact=True).fill("Lechuzas")
    page.get_by_role("button", name="Create organization").click()
    expect(page.get_by_role("heading", name="Meetups of Lechuzas")).to_be_visible()
    assert Org.get(Org.name == "Lechuzas").time_zone == "Europe/Madrid"


def test_the_csv_dialog_offers_the_browsers_time_zone_and_the_file_follows_it(
    browser, boss_user, org, meetup, guest, as_user, token_for
):
    as_user(boss_user).patch_json(f"/organizations/{org.id}/settings", {"time_zone": "UTC"})
    as_user(boss_user).post_json(
        f"/organizations/{org.id}/meetups/{meetup.id}/guests/{guest.platform_user_id}/checkin", {}
    )
    arrival = MeetupGuest.get(MeetupGuest.guest == guest).arrival_time
    page = browser.page(
        token=token_for(boss_user), path=f"/#/meetups/{meetup.id}/summary", timezone="Europe/Madrid"
    )
    page.get_by_role("button", name="Download CSV").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_label("The organization's time zone")).to_have_value("UTC")
    dialog.get_by_role("button", name="Use this device's: Europe/Madrid").click()
    expect(dialog.get_by_label("The organization's time zone")).to_have_value("Europe/Madrid")
    with page.expect_download() as done:
        dialog.get_by_role("button", name="Download CSV").click()
    text = open(done.value.path(), encoding="utf-8-sig").read()  # noqa: SIM115 (read once)
    madrid = arrival.replace(tzinfo=UTC).astimezone(ZoneInfo("Europe/Madrid"))
    assert madrid.strftime("%Y-%m-%d %H:%M") in text
    assert Org.get_by_id(org.id).time_zone == "Europe/Madrid"


# --- item 17: the walk's smaller findings -------------------------------------------------------------------


def test_on_a_phone_the_tabs_are_one_row_and_new_meetup_is_one_tap_away(browser, make_user, org, token_for):
    olga = make_user("olga", org=org, role="ADMIN", site_admin=True)
    for i in range(40):
        Meetup.create(org=org, name=f"Night {i}", date=next_week() + timedelta(days=i), platform_url=f"u{i}")
    page = browser.page(token=token_for(olga), viewport=PHONE, path="/#/meetups", touch=True)
    expect(page.locator("[data-meetup]").first).to_be_visible()
    tabs = page.locator("nav.tabs a")
    expect(tabs.filter(has_text="Privacy")).to_be_visible()  # the last of an admin's tabs is drawn
    tops = {round(box["y"]) for box in (tabs.nth(i).bounding_box() for i in range(tabs.count()))}
    assert len(tops) == 1, tops  # one row, which scrolls sideways
    page.locator("section.panel").first.get_by_role("button", name="New meetup").tap()
    form = page.locator(".new-meetup")
    expect(form.get_by_role("heading", name="New meetup")).to_be_in_viewport()
    screenshot(page, "first-night-new-meetup")


def test_a_door_pass_refuses_a_banned_guest_at_once_even_one_who_brings_guests(
    browser, boss_user, org, meetup, guest, as_user
):
    MeetupGuest.update(guests_count=2).execute()
    as_user(boss_user).patch_json(
        f"/organizations/{org.id}/guests/{guest.platform_user_id}/ban", {"reason": "Fought"}
    )
    made = (
        as_user(boss_user)
        .post_json(f"/organizations/{org.id}/passes", {"label": "Maria's phone", "meetup_id": str(meetup.id)})
        .json
    )
    phone = browser.page(viewport=PHONE, path=None, touch=True)
    phone.goto(pairing_path(made))
    expect(phone.locator("#door-results > [role=row]").first).to_be_visible()
    check_in_by_username(phone, "alice")
    expect(phone.locator(".door-status")).to_contain_text("Fought")
    expect(phone.get_by_role("dialog")).to_have_count(0)  # never asked how many came
    assert arrived() == {}


def test_a_check_in_sent_late_for_a_guest_another_door_let_in_is_no_refusal(
    browser, make_user, org, crowd, token_for, as_user
):
    page = browser.page(
        token=token_for(make_user("sam", org=org)), viewport=PHONE, path=f"/#/meetups/{crowd.id}"
    )
    expect(page.locator("#door-results > [role=row]").first).to_be_visible()
    page.context.set_offline(True)
    check_in_by_username(page, "grace_0")
    expect(page.locator("[data-queue=waiting]")).to_be_visible()
    other = as_user(make_user("kim", org=org))
    other.post_json(f"/organizations/{org.id}/meetups/{crowd.id}/guests/2000/checkin", {})
    page.context.set_offline(False)
    expect(page.locator("[data-queue]")).to_have_count(0)  # nothing needs attention
    status = page.locator(".door-status")
    expect(status).to_contain_text("already")
    expect(status.locator(".error")).to_have_count(0)
    expect(counter(page, "arrived")).to_have_text("1")
    wait_for(lambda: len(arrived()) == 1)


def test_errors_name_their_fields_once_and_in_words(browser, boss_user, org, meetup, token_for):
    page = browser.page(
        token=token_for(boss_user), viewport=PHONE, path=f"/#/passes/{meetup.id}", locale="es-ES"
    )
    page.get_by_role("button", name="Crear el pase").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Nombre:")
    expect(alert).not_to_contain_text("label")


def test_the_audit_log_words_a_change_and_names_a_guest_without_a_username(
    browser, boss_user, org, meetup, as_user, token_for
):
    boss = as_user(boss_user)
    boss.patch_json(f"/organizations/{org.id}/settings", {"time_zone": "Europe/Madrid"})
    boss.post_json(
        f"/organizations/{org.id}/meetups/{meetup.id}/local-walkins", {"displayname": "Pat Newcomer"}
    )
    page = browser.page(token=token_for(boss_user), viewport=PHONE, path="/#/audit")
    updated = page.locator("li.event[data-type=ORG_UPDATED]")
    expect(updated).to_contain_text("Time zone: — → Europe/Madrid")
    expect(updated).not_to_contain_text("{")
    walked_in = page.locator("li.event[data-type=WALKIN]")
    expect(walked_in).to_contain_text("Pat Newcomer")
    expect(walked_in).not_to_contain_text("@")
    assert AuditEvent.select().count() >= 2


def test_the_import_form_has_tonight_as_its_date_and_says_when_a_date_has_passed(browser, staff, token_for):
    page = browser.page(
        token=token_for(staff), viewport=PHONE, path="/#/meetups", locale="es-ES", timezone="Europe/Madrid"
    )
    page.get_by_role("radio", name="Desde un archivo").click()
    date = page.get_by_label("Fecha y hora")
    expect(date).to_have_value(
        datetime.now().strftime("%Y-%m-%d") + "T19:00"
    )  # the machine's day, as Madrid's
    page.locator("input[type=file]").set_input_files(
        {"name": "attendees.xls", "mimeType": "application/vnd.ms-excel", "buffer": meetup_xls()}
    )
    expect(page.locator(".import-report")).to_be_visible()
    expect(page.get_by_text("Esta fecha ya pasó")).to_be_hidden()
    date.fill("2020-03-01T19:00")
    expect(page.get_by_text("Esta fecha ya pasó")).to_be_visible()
    date.fill("")
    page.get_by_label("Nombre del evento").fill("Búhos")
    page.get_by_role("button", name="Importar y abrir la puerta").click()
    expect(page.get_by_role("alert")).to_contain_text("Fecha: falta")
    screenshot(page, "first-night-import-date-es")


def test_a_summarys_counts_in_spanish_are_counts(browser, boss_user, meetup, token_for):
    page = browser.page(token=token_for(boss_user), path=f"/#/meetups/{meetup.id}/summary", locale="es-ES")
    expect(page.locator(".summary")).to_contain_text("Cancelados")
    expect(page.locator(".summary")).not_to_contain_text("Canceló")


@pytest.mark.parametrize("viewport", [PHONE, KEYBOARD_UP], ids=["390x844", "390x470"])
def test_the_preview_flags_formulas_luma_check_ins_and_rows_awaiting_approval(
    browser, staff, token_for, viewport
):
    rows = [
        ("Lena", "Fischer", "approved", "2026-11-18T19:30:00.000Z"),
        ("Ravi", "Shah", "pending_approval", ""),
        ('=HYPERLINK("http://x")', "Evil", "approved", ""),
    ]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(LUMA_HEADER)
    for n, (first, last, status, came) in enumerate(rows):
        writer.writerow(
            [f"gst-{n}", f"{first} {last}", first, last, f"p{n}@x.org", "", "", status, came, "", ""]
        )
    page = browser.page(
        token=token_for(staff), viewport=viewport, path="/#/meetups", locale="es-ES", touch=True
    )
    page.get_by_role("radio", name="Desde un archivo").click()
    page.locator("input[type=file]").set_input_files(
        {"name": "guests.csv", "mimeType": "text/csv", "buffer": out.getvalue().encode()}
    )
    report = page.locator(".import-report")
    expect(report.locator("[data-count='checked_in'] .value")).to_have_text("1")
    expect(report.locator(".formulas")).to_contain_text('Fila 4: =HYPERLINK("http://x") Evil')
    expect(report.locator(".problems")).to_contain_text("pendiente de aprobación en Luma")
    report.locator(".formulas").scroll_into_view_if_needed()
    screenshot(page, "first-night-preview-flags-es")
