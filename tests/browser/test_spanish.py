"""Issue 13: a whole door evening with a Spanish browser (setup, staff, meetup, check-ins, a ban overridden,
an undo, finalize), every screen scanned for English left outside the catalogue; the language switch,
remembered; and changing one's own password, in both languages."""

import re

import pytest
from helpers import PASSWORD
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, counter, local_storage_token, no_english, screenshot
from doorapp.api.setup import issue_setup_code
from doorapp.models import MeetupGuest

pytestmark = pytest.mark.browser

SPANISH = "es-ES"


def test_a_door_evening_in_spanish_reads_in_spanish_from_setup_to_finalize(browser, root, make_user):
    root.delete_instance()  # a fresh install
    code = issue_setup_code()
    lucia = make_user("lucia", is_approved=False)

    # first-run setup, a wrong code refused in Spanish
    page = browser.page(locale=SPANISH)
    expect(page.get_by_role("heading", name="Configuración inicial")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "es")
    no_english(page)
    page.get_by_label("Código de configuración").fill("WRONG-CODE-0000")
    page.get_by_label("Nombre de usuario").fill("fundadora")
    page.get_by_label("Contraseña").fill(PASSWORD)
    page.get_by_role("button", name="Crear el administrador del sitio").click()
    expect(page.get_by_role("alert")).to_have_text(
        "El código de configuración no es correcto; aparece donde se arrancó Door."
    )
    page.get_by_label("Código de configuración").fill(code)
    page.get_by_role("button", name="Crear el administrador del sitio").click()

    # an organization, and a newcomer approved into it as its admin
    expect(page.get_by_role("heading", name="Organizaciones", exact=True)).to_be_visible()
    no_english(page)
    page.get_by_label("Nombre", exact=True).fill("Búhos Nocturnos")
    page.get_by_label("Identificador").fill("night-owls")
    page.get_by_role("button", name="Crear la organización").click()
    expect(page.get_by_text("Búhos Nocturnos se ha creado.")).to_be_visible()
    page.get_by_role("link", name="Personal").click()
    expect(page.get_by_role("heading", name="Pendientes de aprobación (1)")).to_be_visible()
    row = page.locator(f"[data-user='{lucia.id}']").first
    row.get_by_label("Organización para lucia").select_option(label="Añadir a Búhos Nocturnos")
    row.get_by_label("Rol de lucia allí").select_option("ADMIN")
    no_english(page)
    screenshot(page, "es-staff")
    row.get_by_role("button", name="Aprobar").click()
    expect(
        page.get_by_text("lucia está aprobado y añadido a Búhos Nocturnos como administrador.")
    ).to_be_visible()

    # lucia signs in on her phone (a Spanish one) and opens the door of a demo meetup
    phone = browser.page(locale=SPANISH, viewport=PHONE)
    expect(phone.get_by_role("heading", name="Iniciar sesión")).to_be_visible()
    no_english(phone)
    phone.get_by_label("Nombre de usuario").fill("lucia")
    phone.get_by_label("Contraseña").fill("not the password at all")
    phone.get_by_role("button", name="Iniciar sesión").click()
    expect(phone.get_by_role("alert")).to_have_text("Usuario o contraseña incorrectos.")
    phone.get_by_label("Contraseña").fill(PASSWORD)
    phone.get_by_role("button", name="Iniciar sesión").click()
    expect(phone.get_by_role("heading", name="Eventos de Búhos Nocturnos")).to_be_visible()
    no_english(phone)
    phone.get_by_role("button", name="night-owls/board-games").click()
    phone.get_by_role("button", name="Crear el evento").click()
    expect(phone.get_by_role("heading", name="Board games night")).to_be_visible()
    door_url = phone.url
    expect(phone.locator("[data-counter=rsvps]")).to_contain_text("5")
    expect(phone.locator("[data-counter=rsvps] .label")).to_have_text("Inscritos")
    no_english(phone)

    # a check-in from the keyboard
    phone.get_by_label("Buscar invitados").fill("zalgo")
    phone.keyboard.press("Enter")
    expect(phone.get_by_text(re.compile(r"^✓ .* \(@zalgo\) ha entrado: n\.º 1$"))).to_be_visible()
    no_english(phone)

    # a ban with its reason, then the override at the door
    phone.goto("/#/bans")
    expect(phone.get_by_role("heading", name="Vetados en Búhos Nocturnos")).to_be_visible()
    phone.get_by_label("Buscar un invitado para vetarlo").fill("max_id")
    phone.get_by_role("button", name="Vetar a Max Int64 🦉 (@max_id)…").click()  # each names its guest
    phone.get_by_role("dialog").get_by_label("Motivo").fill("Tiró los dados al anfitrión")
    no_english(phone)
    phone.get_by_role("dialog").get_by_role("button", name="Vetar", exact=True).click()
    expect(phone.locator(".row.banned")).to_contain_text("Tiró los dados al anfitrión")
    no_english(phone)
    phone.goto(door_url)
    phone.get_by_label("Buscar invitados").fill("max_id")
    expect(phone.locator("#door-results > [role=row]").first).to_contain_text(
        "VETADO Tiró los dados al anfitrión"
    )
    phone.keyboard.press("Enter")
    dialog = phone.get_by_role("dialog")
    expect(dialog).to_contain_text("Max Int64 🦉 (@max_id) está vetado")
    no_english(phone)
    screenshot(phone, "es-ban-override")
    dialog.get_by_role("button", name="Dar entrada igualmente").click()
    expect(phone.get_by_text("ha entrado: n.º 2 (veto saltado)")).to_be_visible()

    # a guest steps out for a moment and comes back in with their number
    phone.get_by_label("Buscar invitados").fill("max_id")
    phone.locator("#door-results > [role=row]").first.get_by_role("button", name="Sale").click()
    expect(phone.get_by_text("salió a las")).to_be_visible()
    phone.get_by_label("Buscar invitados").fill("max_id")
    expect(phone.locator("#door-results > [role=row]").first).to_contain_text("fuera desde las")
    no_english(phone)
    phone.get_by_label("Buscar invitados").press("Enter")
    expect(phone.get_by_text("ha vuelto: n.º 2")).to_be_visible()
    no_english(phone)

    # an undo needs its reason
    zalgo = phone.locator("#door-results > [role=row]").filter(has=phone.get_by_text("@zalgo", exact=True))
    phone.get_by_role("radio", name="Dentro").click()
    zalgo.get_by_role("button", name="Deshacer").click()
    dialog = phone.get_by_role("dialog")
    dialog.get_by_role("button", name="Anular la entrada").click()
    expect(dialog.get_by_role("alert")).to_have_text("Falta «Motivo».")
    no_english(phone)
    dialog.get_by_label("Motivo").fill("Me equivoqué de persona")
    dialog.get_by_role("button", name="Anular la entrada").click()
    expect(phone.get_by_text(re.compile(r"Entrada de .* \(@zalgo\) anulada\."))).to_be_visible()
    phone.get_by_role("radio", name="Todos").click()

    # a walk-in the platform does not know: the dialog says what to do next, in Spanish
    phone.get_by_role("button", name="Acciones").click()
    phone.get_by_role("button", name="Añadir sin inscripción").click()
    phone.get_by_role("dialog").get_by_label("Usuario en la plataforma, o un nombre").fill("nadie_de_nada")
    no_english(phone)
    phone.get_by_role("dialog").get_by_role("button", name="Buscar @nadie_de_nada en la plataforma").click()
    expect(phone.get_by_role("dialog").get_by_role("alert")).to_contain_text(
        "La plataforma no tiene a nadie como «nadie_de_nada»."
    )
    phone.get_by_role("dialog").get_by_role("button", name="Cancelar").click()
    no_english(phone)
    screenshot(phone, "es-door")
    meetup_id = door_url.rsplit("/", 1)[1]
    wide = browser.page(
        token=local_storage_token(phone), locale=SPANISH, viewport=DESKTOP, path=f"/#/meetups/{meetup_id}"
    )
    expect(counter(wide, "arrived")).to_have_text("1")
    no_english(wide)
    screenshot(wide, "es-door")

    # finalize, then the summary and the audit log
    phone.get_by_role("button", name="Acciones").click()
    phone.get_by_role("button", name="Finalizar").click()
    expect(phone.get_by_role("dialog")).to_contain_text("¿Finalizar este evento?")
    phone.get_by_role("dialog").get_by_role("button", name="Finalizar").click()
    expect(phone.get_by_text("Este evento está finalizado")).to_be_visible()
    no_english(phone)
    for page in (phone, wide):
        page.goto(f"/#/meetups/{meetup_id}/summary")
        expect(page.get_by_role("heading", name="Llegadas")).to_be_visible()
        expect(page.get_by_text("Personas dentro")).to_be_visible()
        no_english(page)
        screenshot(page, "es-summary")
        page.goto("/#/audit")
        expect(page.get_by_role("heading", name="Registro de auditoría de Búhos Nocturnos")).to_be_visible()
        expect(page.locator(".event").first).to_be_visible()
        no_english(page)
        screenshot(page, "es-audit")
    assert MeetupGuest.select().where(MeetupGuest.arrival_order.is_null(False)).count() == 1  # zalgo undone
    for path in ("/#/meetups", "/#/members", "/#/tags", "/#/phones", "/#/account", f"/#/meetups/{meetup_id}"):
        wide.goto(path)
        expect(wide.locator("main h1").first).to_be_visible()
        no_english(wide)

    # the language switch: English at once, remembered over a reload, and back
    wide.get_by_role("button", name="English").click()
    expect(wide.locator("[data-counter=arrived] .label")).to_have_text("Arrived")
    expect(wide.locator("html")).to_have_attribute("lang", "en")
    wide.reload()
    expect(wide.locator("[data-counter=arrived] .label")).to_have_text("Arrived")
    wide.get_by_role("button", name="Español").click()
    expect(wide.locator("[data-counter=arrived] .label")).to_have_text("Dentro")
    wide.reload()
    expect(wide.locator("[data-counter=arrived] .label")).to_have_text("Dentro")


@pytest.mark.parametrize(
    "locale, words",
    [
        (
            "en-US",
            {
                "title": "Your account",
                "current": "Current password",
                "new": "New password",
                "again": "Repeat the new password",
                "submit": "Change the password",
                "wrong": "The current password is wrong.",
                "done": "Your password is changed. Every other device signed in as you is signed out.",
            },
        ),
        (
            "es-ES",
            {
                "title": "Tu cuenta",
                "current": "Contraseña actual",
                "new": "Contraseña nueva",
                "again": "Repite la contraseña nueva",
                "submit": "Cambiar la contraseña",
                "wrong": "La contraseña actual no es correcta.",
                "done": "Tu contraseña ha cambiado. Se ha cerrado la sesión en todos tus demás dispositivos.",
            },
        ),
    ],
    ids=["english", "spanish"],
)
def test_a_signed_in_user_changes_their_password_and_their_other_sessions_end(
    browser, make_user, org, token_for, locale, words
):
    sam = make_user("sam", org=org)
    other = browser.page(token=token_for(sam), locale=locale)
    expect(other.locator("#top .who")).to_have_text("sam")
    page = browser.page(token=token_for(sam), locale=locale, viewport=PHONE)
    page.locator("#top .who").click()
    expect(page.get_by_role("heading", name=words["title"])).to_be_visible()
    page.get_by_label(words["current"]).fill("not my password at all")
    page.get_by_label(words["new"], exact=True).fill("a brand new door password")
    page.get_by_label(words["again"]).fill("a brand new door password")
    page.get_by_role("button", name=words["submit"]).click()
    expect(page.get_by_role("alert")).to_have_text(words["wrong"])
    page.get_by_label(words["current"]).fill(PASSWORD)
    page.get_by_role("button", name=words["submit"]).click()
    expect(page.get_by_role("status").filter(has_text=words["done"]).first).to_be_visible()
    if locale == SPANISH:
        no_english(page)
    screenshot(page, f"account-{locale}")
    # this phone goes on; the other device's session has ended
    page.reload()
    expect(page.locator("#top .who")).to_have_text("sam")
    other.reload()
    expect(other.locator("#top .who")).to_have_count(0)
    assert local_storage_token(other) is None
