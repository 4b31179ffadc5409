"""Download CSV from the summary asks who the file is for (issue 24, item 8): a Spanish organizer on a phone
gets semicolons, Spanish words and Madrid's times, once the organization's time zone is set in the same
dialog; an English one on a desktop gets commas; a program's file stays the API's."""

import csv
import io

import pytest
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, no_english, screenshot
from doorapp.models import AuditEvent, MeetupGuest, Org

pytestmark = pytest.mark.browser


def downloaded(page, separator):
    with page.expect_download() as waiting:
        page.get_by_role("dialog").locator("button[type=submit]").click()
    data = open(waiting.value.path(), "rb").read()
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""), delimiter=separator))


@pytest.mark.parametrize(
    "locale, viewport, separator, outcome, name",
    [("es-ES", PHONE, ";", "Próximo", "Nombre"), ("en-US", DESKTOP, ",", "Upcoming", "Name")],
)
def test_the_summarys_csv_is_made_for_the_organizer(
    browser, olga, org, meetup, token_for, locale, viewport, separator, outcome, name
):
    page = browser.page(
        token=token_for(olga), locale=locale, viewport=viewport, path=f"/#/meetups/{meetup.id}/summary"
    )
    page.locator(".summary .actions button.primary").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator("select[name=sep]")).to_have_value("semicolon" if separator == ";" else "comma")
    dialog.locator("input[name=time_zone]").fill("Europe/Madrid")
    if locale == "es-ES":
        no_english(page, known=["Europe/Madrid", "Excel", "Google Sheets", "Numbers"])
    screenshot(page, f"csv-dialog-{locale}")
    header, *rows = downloaded(page, separator)
    assert header[0] == name and rows[0][0] == "Alice Ångström" and rows[0][2] == outcome
    assert rows[0][5] == "2026-11-20 11:00"  # the RSVP at 10:00 UTC, in Madrid
    assert Org.get_by_id(org.id).time_zone == "Europe/Madrid"
    assert AuditEvent.select().where(AuditEvent.event_type == "ORG_UPDATED").count() == 1
    # a program's file: the API's words and UTC, whatever the language
    page.locator(".summary .actions button.primary").click()
    page.get_by_role("dialog").locator("select[name=style]").select_option("data")
    expect(page.get_by_role("dialog").locator("input[name=time_zone]")).to_be_hidden()
    header, *rows = downloaded(page, ",")
    assert header[:2] == ["platform_user_id", "username"] and rows[0][3] == "UPCOMING"
    assert rows[0][6] == "2026-11-20T10:00:00Z"
    assert MeetupGuest.select().count() == 1
