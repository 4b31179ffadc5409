"""Issue 22 in the browser: an organizer with nothing but the attendee file creates the meetup from it, the
door checks a guest in, the next day's newer file updates the list without losing the arrival or doubling a
guest; a Luma CSV and a list saved by Spanish Excel the same way; a photo uploaded by mistake is told what
to upload instead. On a desktop and on a phone, in English and in Spanish."""

import struct
import zlib

import pytest
from helpers import MEETUP_XLS_HEADER, PEOPLE, luma_csv, meetup_xls, spanish_excel
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, no_english, screenshot
from doorapp.models import Guest, Meetup, MeetupGuest

pytestmark = pytest.mark.browser

KEYBOARD_UP = {"width": 390, "height": 470}
FILE_WORDS = [*MEETUP_XLS_HEADER, *(name for name, *_ in PEOPLE)]  # the file's own words, on any screen
WORDS = {  # what the test reads and presses, in each language
    "en-US": {
        "new": "From a file", "preview": "Recognised: Meetup attendee list.", "name": "Meetup name",
        "date": "Date and time", "create": "Import and open the door", "update": "Update from a newer file",
        "confirm": "Update the list", "actions": "Actions", "where": "Where to get the file:",
        "photo": "This is a PNG picture, not a guest list. Upload the attendee list",
        "first": "Choose the newer file first.",
    },
    "es-ES": {
        "new": "Desde un archivo", "preview": "Reconocido: lista de asistentes de Meetup.",
        "name": "Nombre del evento", "date": "Fecha y hora", "create": "Importar y abrir la puerta",
        "update": "Actualizar con un archivo nuevo", "confirm": "Actualizar la lista", "actions": "Acciones",
        "where": "De dónde sacar el archivo:",
        "photo": "Esto es una foto, no una lista de invitados. Sube la lista de asistentes",
        "first": "Elige primero el archivo más reciente.",
    },
}  # fmt: skip
WAYS = pytest.mark.parametrize(
    ("viewport", "locale"), [(DESKTOP, "en-US"), (PHONE, "es-ES")], ids=["desktop-en", "phone-es"]
)


def png():
    """A real 2x2 PNG photo: what a phone offers first when asked for a file."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = zlib.compress(b"\x00\xff\x00\x00\xff\x00\x00" * 2)
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def new_meetup_from_file(browser, token, viewport, locale):
    """The meetups screen with "From a file" chosen."""
    touch = viewport["width"] < 600  # a phone: taps, and nothing to drop files from
    page = browser.page(token=token, viewport=viewport, locale=locale, path="/#/meetups", touch=touch)
    page.get_by_role("radio", name=WORDS[locale]["new"]).click()
    expect(page.get_by_text(WORDS[locale]["where"])).to_be_visible()
    return page


def choose(page, name, data, mime="text/csv"):
    page.locator("input[type=file]").set_input_files({"name": name, "mimeType": mime, "buffer": data})


def drop(page, name, text):
    """Drag a file from the desktop onto the drop zone."""
    script = """([name, text]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], name, { type: "text/csv" }));
      return transfer;
    }"""
    page.locator(".drop-zone").dispatch_event(
        "drop", {"dataTransfer": page.evaluate_handle(script, [name, text])}
    )


def tile(page, key):
    return page.locator(f".import-report [data-count='{key}'] .value")


def listed(meetup_id):
    """{displayname: (cancelled, guests_count, arrived)} of the meetup's list."""
    rows = MeetupGuest.select(MeetupGuest, Guest).join(Guest).where(MeetupGuest.meetup == meetup_id)
    return {r.guest.displayname: (r.cancelled_rsvp, r.guests_count, r.has_arrived) for r in rows}


@WAYS
def test_a_meetup_export_makes_the_door_and_the_next_days_file_updates_it(
    browser, org, staff, token_for, viewport, locale
):
    words = WORDS[locale]
    page = new_meetup_from_file(browser, token_for(staff), viewport, locale)
    screenshot(page, f"import-empty-{locale}")
    choose(page, "Night Owls attendees.xls", meetup_xls(), "application/vnd.ms-excel")
    expect(page.get_by_text(words["preview"])).to_be_visible()
    expect(tile(page, "expected")).to_have_text("3")
    expect(tile(page, "waitlisted")).to_have_text("1")
    expect(tile(page, "not_expected")).to_have_text("1")
    expect(page.locator(".first-rows tbody tr")).to_have_count(5)
    expect(page.locator(".first-rows")).to_contain_text('=HYPERLINK("http://x")')  # text, as typed
    screenshot(page, f"import-preview-{locale}")
    if locale == "es-ES":
        no_english(page, FILE_WORDS)
    page.get_by_label(words["name"]).fill("Night Owls #12")
    page.get_by_label(words["date"]).fill("2026-11-21T19:00")
    page.get_by_role("button", name=words["create"]).click()
    expect(page.get_by_role("heading", name="Night Owls #12")).to_be_visible()
    expect(page.locator("#door-results > [role=row]")).to_have_count(4)
    # a list from a file: no platform to sync with, and nobody labelled as missing from one; each row says
    # the end of its Meetup id, which tells namesakes apart
    sync = "Sync RSVPs" if locale == "en-US" else "Sincronizar inscritos"
    expect(page.get_by_role("button", name=sync)).to_have_count(0)
    expect(page.locator("#door-results [role=row]", has_text="Ana García").locator(".username")).to_have_text(
        "id …7919"
    )
    expect(page.locator("#door-results", has_text="on the platform")).to_have_count(0)
    meetup = Meetup.get(Meetup.name == "Night Owls #12")
    assert meetup.date.isoformat() == "2026-11-21T19:00:00" and meetup.platform_url == ""

    # the door checks Ana in; she RSVP'd +1, and a second Enter keeps "both came"
    page.get_by_label("Search guests" if locale == "en-US" else "Buscar invitados").fill("ana garcia")
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.locator("#door-results > [role=row]", has_text="Ana García")).to_contain_text("#1")
    assert listed(meetup.id)["Ana García"] == (False, 1, True)

    # the next day's file: Ana brings two now, Priya answered No, Lars is new (with markup in his name)
    newer = [("Ana García", 12537919, "Yes", 2), *PEOPLE[1:4], ("Priya Raman", 20000005, "No", 2)]
    newer.append(("Lars <b>Berg</b>", 20000006, "Yes", 0))
    if viewport == PHONE:
        page.get_by_role("button", name=words["actions"]).click()
    page.get_by_role("button", name=words["update"]).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name=words["confirm"]).click()
    expect(dialog.get_by_role("alert")).to_have_text(words["first"])
    choose(dialog, "Night Owls attendees (1).xls", meetup_xls(newer), "application/vnd.ms-excel")
    expect(tile(dialog, "added")).to_have_text("1")
    expect(tile(dialog, "cancelled")).to_have_text("1")
    expect(tile(dialog, "updated")).to_have_text("1")
    who = dialog.locator(".who-lists")  # who, by name
    expect(who.locator("[data-who='added'] li")).to_have_text(["Lars <b>Berg</b>"])  # text, never markup
    expect(who.locator("[data-who='cancelled'] li")).to_have_text(["Priya Raman"])
    expect(who.locator("[data-who='updated'] li")).to_have_text(["Ana García"])
    expect(who.locator("b")).to_have_count(0)
    added = "To add:" if locale == "en-US" else "Se añaden:"
    expect(who.locator("[data-who='added'] p")).to_have_text(added)
    screenshot(page, f"import-update-{locale}")
    if locale == "es-ES":
        no_english(page, FILE_WORDS)
    dialog.get_by_role("button", name=words["confirm"]).click()
    expect(dialog).to_be_hidden()
    expect(page.locator(".counter.rsvps .value")).to_have_text("4")  # Ana, Tomás, the waitlisted, Lars
    assert listed(meetup.id) == {
        "Ana García": (False, 2, True),
        "Tomás O'Neill, Jr.": (False, 0, False),
        '=HYPERLINK("http://x")': (False, 0, False),
        "Priya Raman": (True, 2, False),
        "Lars <b>Berg</b>": (False, 0, False),
    }
    assert Guest.select().count() == 5


@pytest.mark.parametrize(
    ("viewport", "locale", "name", "data", "format", "counts"),
    [
        (DESKTOP, "es-ES", "guests.csv", luma_csv(), "lista de invitados de Luma", ("2", "1", "2")),
        (PHONE, "en-US", "lista.csv", spanish_excel(), "spreadsheet", ("2", "1", "0")),
    ],
    ids=["luma-desktop-es", "spanish-excel-phone-en"],
)
def test_a_luma_csv_and_a_spanish_excel_list(
    browser, org, staff, token_for, viewport, locale, name, data, format, counts
):
    page = new_meetup_from_file(browser, token_for(staff), viewport, locale)
    choose(page, name, data)
    expect(page.locator(".import-report .format strong")).to_have_text(format)
    for key, count in zip(("expected", "waitlisted", "not_expected"), counts, strict=True):
        expect(tile(page, key)).to_have_text(count)
    page.get_by_label(WORDS[locale]["name"]).fill("Club night")
    page.get_by_label(WORDS[locale]["date"]).fill("2026-11-28T20:00")
    page.get_by_role("button", name=WORDS[locale]["create"]).click()
    expect(page.get_by_role("heading", name="Club night")).to_be_visible()
    names = sorted(listed(Meetup.get(Meetup.name == "Club night").id))
    assert names == (
        ["Lena Fischer", "Omar Haddad", "Sam Lee"] if name == "guests.csv" else
        ["José Núñez", "María Peña Ibáñez", "Álvaro Gómez"]
    )  # fmt: skip


@WAYS
def test_a_photo_uploaded_by_mistake_says_what_to_upload_instead(
    browser, org, staff, token_for, viewport, locale
):
    page = new_meetup_from_file(browser, token_for(staff), viewport, locale)
    choose(page, "IMG_2041.png", png(), "image/png")
    expect(page.get_by_role("alert")).to_contain_text(WORDS[locale]["photo"])
    expect(page.get_by_role("button", name=WORDS[locale]["create"])).to_be_disabled()
    screenshot(page, f"import-photo-{locale}")
    assert Meetup.select().count() == 0


def test_a_file_dropped_with_ambiguous_name_columns_says_which_and_lets_one_choose(
    browser, org, staff, token_for
):
    page = new_meetup_from_file(browser, token_for(staff), DESKTOP, "en-US")
    drop(page, "teams.csv", "Name,First Name,Last Name\nTeam Blue,Ida,Lund\n")
    expect(page.locator(".drop-zone")).to_contain_text("teams.csv")
    expect(page.get_by_text("Door picked First Name + Last Name")).to_be_visible()
    expect(page.locator(".first-rows td.name")).to_have_text("Ida Lund")
    page.get_by_label("Names from").select_option("Name")
    expect(page.locator(".first-rows td.name")).to_have_text("Team Blue")


def test_the_form_fits_a_phone_with_its_keyboard_up(browser, org, staff, token_for):
    page = new_meetup_from_file(browser, token_for(staff), KEYBOARD_UP, "en-US")
    choose(page, "attendees.xls", meetup_xls(), "application/vnd.ms-excel")
    expect(tile(page, "expected")).to_have_text("3")
    name = page.get_by_label("Meetup name")
    name.focus()
    name.scroll_into_view_if_needed()
    screenshot(page, "import-form-keyboard-up")
    wide = page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth")
    assert not wide


def test_the_events_page_names_the_meetup(browser, app, org, staff, token_for):
    """Pasting the event's address fills the name and date in from the platform (here the demo community)."""
    platform = app.config["door.platform"]
    address = platform.example_urls()[0]
    event = platform.event(address)
    page = new_meetup_from_file(browser, token_for(staff), DESKTOP, "en-US")
    choose(page, "attendees.xls", meetup_xls(), "application/vnd.ms-excel")
    expect(tile(page, "expected")).to_have_text("3")
    page.get_by_label("Event page (optional)").fill(address + "/?utm_source=newsletter")
    page.get_by_label("Event page (optional)").press("Tab")
    expect(page.get_by_label("Meetup name")).to_have_value(event.title)
    expect(page.get_by_label("Date and time")).to_have_value(
        event.date.strftime("%Y-%m-%dT%H:%M")
    )  # UTC page
    page.get_by_role("button", name="Import and open the door").click()
    expect(page.get_by_role("heading", name=event.title)).to_be_visible()
    meetup = Meetup.get(Meetup.name == event.title)
    assert (meetup.platform_url, meetup.date) == (address, event.date)


def test_namesakes_from_a_file_are_told_apart_at_the_door(browser, org, staff, token_for):
    """Two Ana Garcías in a Meetup file, two Sam Lees in a Luma file: each row says what tells them apart (the
    end of the Meetup id, the first letters of the e-mail), on a phone."""
    people = [("Ana García", 12537919, "Yes", 0), ("Ana García", 20000009, "Yes", 0)]
    page = new_meetup_from_file(browser, token_for(staff), PHONE, "en-US")
    choose(page, "attendees.xls", meetup_xls(people), "application/vnd.ms-excel")
    expect(tile(page, "expected")).to_have_text("2")
    page.get_by_label("Meetup name").fill("Twins night")
    page.get_by_label("Date and time").fill("2026-12-24T19:00")
    page.get_by_role("button", name="Import and open the door").click()
    expect(page.locator("#door-results .username")).to_have_count(2)
    assert sorted(page.locator("#door-results .username").all_text_contents()) == ["id …0009", "id …7919"]
    screenshot(page, "namesakes-meetup-file")
    luma = luma_csv([("Sam", "Lee", "approved"), ("Sam", "Lee ", "approved")]).replace(
        b"sam@", b"sam.lee@", 1
    )
    page = new_meetup_from_file(browser, token_for(staff), PHONE, "es-ES")
    choose(page, "guests.csv", luma)
    page.get_by_label(WORDS["es-ES"]["name"]).fill("Gemelos")
    page.get_by_label(WORDS["es-ES"]["date"]).fill("2026-12-24T19:00")
    page.get_by_role("button", name=WORDS["es-ES"]["create"]).click()
    expect(page.locator("#door-results .username")).to_have_count(2)
    assert sorted(page.locator("#door-results .username").all_text_contents()) == [
        "correo sam.…",
        "correo sam…",
    ]
