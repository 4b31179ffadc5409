"""The walk-in dialog on the demo community (issue 24, item 6), on a phone (touch) and a desktop, in English
and Spanish: what was typed at the door finds the members Door knows from another night, one tap adds and
checks one in; a ban still needs the override; a name with no platform account is let in by name; a look-up
that finds nobody says what to do next."""

import pytest
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, audit_types, english_left, pairing_path, row, screenshot
from doorapp.models import AuditEvent, Ban, Guest, Meetup, MeetupGuest

pytestmark = pytest.mark.browser
DEMO = "https://demo.door.invalid/night-owls"
KEYBOARD_UP = {"width": 390, "height": 470}
WORDS = {
    "en-US": {
        "add": "add “{typed}” as a walk-in",
        "field": "Platform username, or a name",
        "banned": "BANNED",
        "anyway": "Check in anyway",
        "forced": "checked in: #1 (ban overridden)",
        "by_name": "Let in “{typed}” by name",
        "no_match": "Nobody Door knows matches “{typed}”.",
        "look_up": "Look up @{typed} on the platform",
        "not_found": (
            "The platform has nobody by “{typed}”. Pick them from the list above if they are there, "
            "try their username on the platform, or let them in by name below."
        ),
        "how": "Not on the platform, or no account there? Let them in by the name typed above.",
        "local": "not on the platform",
        "cancel": "Cancel",
    },
    "es-ES": {
        "add": "añadir a «{typed}» sin inscripción",
        "field": "Usuario en la plataforma, o un nombre",
        "banned": "VETADO",
        "anyway": "Dar entrada igualmente",
        "forced": "ha entrado: n.º 1 (veto saltado)",
        "by_name": "Dejar entrar a «{typed}» por su nombre",
        "no_match": "Nadie que Door conozca coincide con «{typed}».",
        "look_up": "Buscar @{typed} en la plataforma",
        "not_found": (
            "La plataforma no tiene a nadie como «{typed}». Elígele en la lista de arriba si está, "
            "prueba con su usuario en la plataforma, o déjale entrar por su nombre aquí abajo."
        ),
        "how": (
            "¿No está en la plataforma o no tiene cuenta allí? Déjale entrar con el nombre escrito arriba."
        ),
        "local": "no está en la plataforma",
        "cancel": "Cancelar",
    },
}
# (locale, viewport, touch): a phone with touch and a desktop, each language on both across the tests
PHONE_EN, DESKTOP_ES = ("en-US", PHONE, True), ("es-ES", DESKTOP, False)
PHONE_ES, DESKTOP_EN = ("es-ES", PHONE, True), ("en-US", DESKTOP, False)
EVERY = [PHONE_EN, DESKTOP_EN, PHONE_ES, DESKTOP_ES]


@pytest.fixture
def board_games(api, org):
    """The demo's board games night (5 RSVPs, no Hannah), after its summer social (250 RSVPs, Hannah Baker
    among them) was synced, so Door knows her from another night."""
    for thread in ("summer-social", "board-games"):
        made = api.post_json(
            f"/organizations/{org.id}/meetups/", {"platform_url": f"{DEMO}/{thread}"}, status=201
        )
    return made.json["id"]


def hannah():
    return Guest.get(Guest.username == "hannah_baker")


def door(browser, token, org, meetup_id, setting):
    locale, viewport, touch = setting
    page = browser.page(token=token, viewport=viewport, touch=touch, locale=locale, path=None)
    page.goto(f"/#/orgs/{org.id}/meetups/{meetup_id}")
    expect(page.locator("#door-results > [role=row]")).to_have_count(5)
    return page, WORDS[locale]


def open_walk_in(page, words, typed):
    """Type at the door, see nobody on the list, and open the walk-in dialog from the offer."""
    page.locator(".door-search").fill(typed)
    expect(page.locator("#door-results > [role=row]")).to_have_count(0)
    page.get_by_role("button", name=words["add"].format(typed=typed)).click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_label(words["field"])).to_have_value(typed)
    return dialog


def in_its_language(page, locale):
    """English left on the screen (names taken out) exactly when the screen is not in Spanish."""
    left = english_left(page)
    assert (left == []) == (locale == "es-ES"), left


def tap(page, locator, setting):
    locator.tap() if setting[2] else locator.click()


@pytest.mark.parametrize("setting", EVERY, ids=["phone-en", "desktop-en", "phone-es", "desktop-es"])
def test_hannah_typed_at_the_door_is_offered_and_let_in_in_one_tap(
    browser, olga, org, board_games, token_for, setting
):
    page, words = door(browser, token_for(olga), org, board_games, setting)
    dialog = open_walk_in(page, words, "hannah")
    offered = dialog.get_by_role("button", name="Hannah Baker @hannah_baker")
    expect(offered).to_be_visible()
    expect(dialog.get_by_text(words["how"])).to_be_visible()
    expect(dialog.get_by_role("button", name=words["by_name"].format(typed="hannah"))).to_be_visible()
    in_its_language(page, setting[0])
    if setting[1] == PHONE:  # with the keyboard up the match is still on screen, under the field
        name = f"walkin-{setting[0]}"
        screenshot(page, name)
        page.set_viewport_size(KEYBOARD_UP)
        screenshot(page, name)
        box = offered.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= KEYBOARD_UP["height"], box
    tap(page, offered, setting)
    expect(dialog).to_have_count(0)
    expect(row(page, "hannah_baker")).to_contain_text("#1")
    entry = MeetupGuest.get(MeetupGuest.guest == hannah(), MeetupGuest.meetup == board_games)
    assert entry.is_walkin and entry.arrival_order == 1
    # known already from the summer social: added and let in, never looked up on the platform again
    assert audit_types(guest=hannah().platform_user_id) == ["WALKIN", "CHECK_IN"]


@pytest.mark.parametrize("setting", [DESKTOP_EN, PHONE_ES], ids=["desktop-en", "phone-es"])
def test_a_banned_member_offered_shows_the_ban_and_still_needs_the_override(
    browser, olga, org, board_games, token_for, setting
):
    Ban.create(org=org, guest=hannah(), reason="Threw dice at the host")
    page, words = door(browser, token_for(olga), org, board_games, setting)
    dialog = open_walk_in(page, words, "hannah baker")
    offered = dialog.get_by_role("button", name="Hannah Baker @hannah_baker")
    expect(offered).to_contain_text(f"{words['banned']} Threw dice at the host")
    screenshot(page, f"walkin-banned-{setting[0]}")
    tap(page, offered, setting)
    override = page.get_by_role("dialog")
    expect(override).to_contain_text("Threw dice at the host")
    override.get_by_role("button", name=words["cancel"]).click()  # declined: nothing is added
    expect(override).to_have_count(0)
    assert (
        not MeetupGuest.select()
        .where(MeetupGuest.guest == hannah(), MeetupGuest.meetup == board_games)
        .exists()
    )
    dialog = open_walk_in(page, words, "hannah baker")
    tap(page, dialog.get_by_role("button", name="Hannah Baker @hannah_baker"), setting)
    page.get_by_role("dialog").get_by_role("button", name=words["anyway"]).click()
    expect(page.get_by_text(words["forced"])).to_be_visible()
    forced = AuditEvent.get(AuditEvent.guest == hannah(), AuditEvent.event_type == "CHECK_IN")
    assert forced.details["forced"] is True


@pytest.mark.parametrize("setting", [PHONE_EN, DESKTOP_ES], ids=["phone-en", "desktop-es"])
def test_a_name_nobody_knows_is_let_in_by_name_and_a_failed_look_up_says_what_next(
    browser, olga, org, board_games, token_for, setting
):
    page, words = door(browser, token_for(olga), org, board_games, setting)
    dialog = open_walk_in(page, words, "nadia_v")
    expect(dialog.get_by_text(words["no_match"].format(typed="nadia_v"))).to_be_visible()
    dialog.get_by_role("button", name=words["look_up"].format(typed="nadia_v")).click()
    expect(dialog.get_by_role("alert")).to_have_text(words["not_found"].format(typed="nadia_v"))
    in_its_language(page, setting[0])
    dialog.get_by_label(words["field"]).fill("Nadia Volkova")
    expect(dialog.get_by_text(words["no_match"].format(typed="Nadia Volkova"))).to_be_visible()
    # a name with a space is no username: nothing to look up, and letting in by name is said and offered
    expect(dialog.get_by_role("button", name=words["look_up"].format(typed="Nadia Volkova"))).to_have_count(0)
    expect(dialog.get_by_text(words["how"])).to_be_visible()
    tap(page, dialog.get_by_role("button", name=words["by_name"].format(typed="Nadia Volkova")), setting)
    expect(dialog).to_have_count(0)
    nadia = page.locator("#door-results > [role=row]").filter(has_text="Nadia Volkova")
    expect(nadia).to_contain_text(words["local"])
    expect(nadia).to_contain_text("#1")
    local = Guest.get(Guest.displayname == "Nadia Volkova")
    assert local.is_local and audit_types(guest=local.platform_user_id) == ["WALKIN", "CHECK_IN"]

    # she comes again to the summer social: offered as the person let in here before, not typed in anew
    summer = Meetup.get(Meetup.platform_url == f"{DEMO}/summer-social")
    page.goto(f"/#/orgs/{org.id}/meetups/{summer.id}")
    dialog = open_walk_in(page, words, "nadia")
    offered = dialog.get_by_role("button", name=f"Nadia Volkova {words['local']}")
    tap(page, offered, setting)
    expect(page.locator(".last-action[data-kind=ok]")).to_be_visible()  # in, and the search emptied
    page.locator(".door-search").fill("nadia")
    expect(page.locator("#door-results > [role=row]").filter(has_text="Nadia Volkova")).to_contain_text("#1")
    assert Guest.select().where(Guest.displayname == "Nadia Volkova").count() == 1
    assert MeetupGuest.get(MeetupGuest.meetup == summer, MeetupGuest.guest == local).has_arrived


def test_a_door_pass_offers_and_adds_a_member_but_never_lets_a_banned_one_in(api, browser, org, board_games):
    """A volunteer's phone works the walk-in dialog as staff do; a ban it cannot override."""
    made = api.post_json(
        f"/organizations/{org.id}/passes", {"label": "Maria's phone", "meetup_id": board_games}, status=201
    ).json
    phone = browser.page(viewport=PHONE, path=None, touch=True)
    phone.goto(pairing_path(made))
    expect(phone.locator("#door-results > [role=row]")).to_have_count(5)
    words = WORDS["en-US"]
    dialog = open_walk_in(phone, words, "hannah")
    dialog.get_by_role("button", name="Hannah Baker @hannah_baker").tap()
    expect(row(phone, "hannah_baker")).to_contain_text("#1")
    assert MeetupGuest.get(MeetupGuest.guest == hannah(), MeetupGuest.meetup == board_games).is_walkin
    zoe = Guest.get(Guest.username == "zoë_m")  # on the summer social's list, not the board games'
    Ban.create(org=org, guest=zoe, reason="Threw dice at the host")
    dialog = open_walk_in(phone, words, "zoë_m")
    offered = dialog.get_by_role("button", name="Zoë Mîlle-Feuille @zoë_m")
    expect(offered).to_contain_text("BANNED Threw dice at the host")
    offered.tap()
    expect(
        phone.get_by_text("A door pass cannot let them in: ask an organizer with an account.")
    ).to_be_visible()
    assert (
        not MeetupGuest.select().where(MeetupGuest.guest == zoe, MeetupGuest.meetup == board_games).exists()
    )


def test_a_search_overtaken_by_newer_typing_is_cancelled_and_never_shown(
    browser, olga, org, board_games, token_for
):
    page, words = door(browser, token_for(olga), org, board_games, DESKTOP_EN)
    held, failed = [], []
    page.route("**/walkin-matches?q=hannah*", lambda route: held.append(route))
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.locator(".door-search").fill("hannah")
    with page.expect_request("**/walkin-matches?q=hannah*"):  # the dialog searches what the door typed
        page.get_by_role("button", name=words["add"].format(typed="hannah")).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label(words["field"]).fill("zoë")  # before that answer: the search is overtaken
    expect(dialog.get_by_role("button", name="Zoë Mîlle-Feuille @zoë_m")).to_be_visible()
    assert len(held) == 1 and [url for url in failed if "q=hannah" in url] == [held[0].request.url]
    expect(dialog.get_by_role("button", name="Hannah Baker @hannah_baker")).to_have_count(0)
