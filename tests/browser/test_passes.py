"""Door passes in Chromium: an organizer on a laptop makes a pass, a volunteer's phone scans its QR code and
works the door in its own language (online and offline) with no account, until the organizer revokes it;
the audit log names the pass for everything it did."""

import pytest
from playwright.sync_api import expect
from postgres import free_port

from browser.support import (
    DESKTOP,
    DOOR_LIST,
    PHONE,
    arrived,
    check_in_by_username,
    counter,
    decoded_qr,
    no_english,
    open_to_phones,
    pairing_path,
    screenshot,
    wait_for,
)
from doorapp.models import AuditEvent

pytestmark = pytest.mark.browser


@pytest.fixture
def live_port():
    return free_port()


@pytest.fixture
def config(config, live_port):
    return open_to_phones(config, live_port)  # its passes have QR codes


WORDS = "Maria's phone (pass, made by boss)"


def test_a_phone_scans_a_door_pass_checks_guests_in_and_stops_when_it_is_revoked(
    browser, boss_user, org, crowd, token_for
):
    laptop = browser.page(token=token_for(boss_user), path="/#/meetups")
    laptop.locator(f"[data-meetup='{crowd.id}']").get_by_role("link", name="New door pass").click()
    laptop.get_by_label("Name").fill("Maria's phone")
    expect(laptop.get_by_label("Meetup")).to_have_value(str(crowd.id))
    laptop.get_by_role("button", name="Make the pass").click()
    qr = laptop.get_by_role("img", name="QR code that joins a phone to the door as Maria's phone")
    expect(qr).to_be_visible()
    expect(laptop.locator("tr[data-pass]")).to_contain_text("Not yet")
    screenshot(laptop, "pass-created")
    address = decoded_qr(qr.screenshot())
    assert address == laptop.get_by_label("Pairing address").input_value()

    phone = browser.page(viewport=PHONE, path=None, locale="es-ES", touch=True)
    phone.goto(address)
    expect(phone.locator("#door-results > [role=row]").first).to_be_visible()
    expect(phone.locator("html")).to_have_attribute("lang", "es")
    expect(phone.locator("#top")).to_contain_text("Maria's phone")
    assert phone.evaluate("localStorage.getItem('auth_token')").count(".") == 2
    screenshot(phone, "pass-door")
    no_english(phone, known=["Maria's phone"])
    check_in_by_username(phone, "grace_0")
    expect(counter(phone, "arrived")).to_have_text("1")
    wait_for(lambda: len(arrived()) == 1)

    phone.context.set_offline(True)
    check_in_by_username(phone, "ada_1")
    expect(phone.locator("[data-queue=waiting]")).to_be_visible()
    assert len(arrived()) == 1
    phone.context.set_offline(False)
    expect(counter(phone, "arrived")).to_have_text("2")
    expect(phone.locator("[data-queue]")).to_have_count(0)
    wait_for(lambda: len(arrived()) == 2)
    # the door's list stays as it is (its poll would hear of the revoke first): the next action hears it
    phone.route(DOOR_LIST, lambda route: route.fulfill(status=304))

    laptop.reload()
    row = laptop.locator("tr[data-pass]")
    expect(row).to_contain_text("2")  # its check-ins
    row.get_by_role("button", name="Revoke").click()
    laptop.get_by_role("dialog").get_by_role("button", name="Revoke").click()
    expect(row).to_contain_text("Revoked")

    check_in_by_username(phone, "oliver_2")
    expect(phone.get_by_role("heading", name="Este pase de puerta ha terminado")).to_be_visible()
    screenshot(phone, "pass-ended")
    no_english(phone)
    assert phone.evaluate("localStorage.getItem('auth_token')") is None
    assert len(arrived()) == 2

    laptop.goto(f"/#/meetups/{crowd.id}/summary")
    expect(laptop.locator("[data-guest='2000']")).to_contain_text(f"let in by {WORDS}")
    spanish = browser.page(token=token_for(boss_user), path=f"/#/meetups/{crowd.id}/summary", locale="es-ES")
    in_spanish = spanish.locator("[data-guest='2000']")  # the pass worded by the browser, in its language
    expect(in_spanish).to_contain_text("le dio entrada Maria's phone (pase, creado por boss)")
    expect(in_spanish).not_to_contain_text("made by")
    laptop.goto("/#/audit")
    check_ins = laptop.locator("li.event[data-type=CHECK_IN]")
    expect(check_ins).to_have_count(2)
    for n in range(2):
        expect(check_ins.nth(n)).to_contain_text(f"by {WORDS}")
    assert [e.actor_id for e in AuditEvent.select().where(AuditEvent.event_type == "CHECK_IN")] == [
        None,
        None,
    ]


def paired_phone(browser, boss, meetup):
    """A phone (English) paired with a new pass of the meetup, on its door; the pass's id."""
    made = boss.post_json(
        f"/organizations/{meetup.org_id}/passes", {"label": "Maria's phone", "meetup_id": str(meetup.id)}
    ).json
    phone = browser.page(viewport=PHONE, path=None, touch=True)
    phone.goto(pairing_path(made))
    expect(phone.locator("#door-results > [role=row]").first).to_be_visible()
    return phone, made["id"]


def test_what_a_phone_queued_offline_after_its_pass_was_revoked_is_refused_and_shown(
    browser, boss_user, org, crowd, as_user
):
    boss = as_user(boss_user)
    phone, pass_id = paired_phone(browser, boss, crowd)
    phone.context.set_offline(True)
    check_in_by_username(phone, "ada_1")
    expect(phone.locator("[data-queue=waiting]")).to_be_visible()
    boss.delete(f"/organizations/{org.id}/passes/{pass_id}", status=204)
    phone.context.set_offline(False)
    expect(phone.get_by_role("heading", name="This door pass has ended")).to_be_visible()
    unsent = phone.locator(".pass-ended").get_by_role("alert")
    expect(unsent).to_contain_text("1 action made on this phone was not sent before the pass ended")
    expect(unsent).to_contain_text("Ada Smith (@ada_1)")
    screenshot(phone, "pass-ended-unsent")
    assert arrived() == {}


def test_a_pass_for_every_open_meetup_lets_the_phone_choose_its_door(browser, boss_user, org, crowd, as_user):
    made = as_user(boss_user).post_json(f"/organizations/{org.id}/passes", {"label": "Side entrance"}).json
    phone = browser.page(viewport=PHONE, path=None, touch=True)
    phone.goto(pairing_path(made))
    expect(phone.get_by_role("heading", name="Which door?")).to_be_visible()
    phone.get_by_role("link", name=crowd.name).click()
    expect(phone.locator("#door-results > [role=row]").first).to_be_visible()
    expect(phone.get_by_role("link", name="Back to meetups")).to_have_attribute("href", "#/door-meetups")
    check_in_by_username(phone, "grace_0")
    wait_for(lambda: len(arrived()) == 1)


def test_an_organizer_in_spanish_makes_and_lists_passes_in_spanish(
    browser, boss_user, org, meetup, token_for
):
    for viewport in (DESKTOP, PHONE):
        page = browser.page(
            token=token_for(boss_user), viewport=viewport, path=f"/#/passes/{meetup.id}", locale="es-ES"
        )
        page.get_by_label("Nombre").fill("Puerta lateral")
        page.get_by_role("button", name="Crear el pase").click()
        expect(
            page.get_by_role("img", name="Código QR que une un teléfono a la puerta como Puerta lateral")
        ).to_be_visible()
        expect(page.locator("tr[data-pass]").first).to_contain_text("Todavía no")
        no_english(page, known=["Puerta lateral"])
        screenshot(page, "passes-es")


def test_an_organizer_revokes_every_pass_of_a_meetup_at_once(
    browser, boss_user, org, crowd, as_user, token_for
):
    boss = as_user(boss_user)
    phones = [paired_phone(browser, boss, crowd)[0] for _ in range(2)]
    laptop = browser.page(token=token_for(boss_user), path=f"/#/passes/{crowd.id}")
    laptop.get_by_role("button", name=f"Revoke every pass of {crowd.name}").click()
    laptop.get_by_role("dialog").get_by_role("button", name="Revoke").click()
    expect(laptop.get_by_text("2 door passes revoked.")).to_be_visible()
    expect(laptop.locator("tr[data-pass]", has_text="Revoked")).to_have_count(2)
    for phone in phones:  # each hears of it at its next poll
        expect(phone.get_by_role("heading", name="This door pass has ended")).to_be_visible()


def test_a_pass_for_every_meetup_leaves_a_door_that_was_finalized_for_the_choice_of_doors(
    browser, boss_user, org, crowd, as_user
):
    boss = as_user(boss_user)
    made = boss.post_json(f"/organizations/{org.id}/passes", {"label": "Side entrance"}).json
    phone = browser.page(viewport=PHONE, path=None, touch=True)
    phone.goto(pairing_path(made))
    phone.get_by_role("link", name=crowd.name).click()
    expect(phone.locator("#door-results > [role=row]").first).to_be_visible()
    boss.patch_json(f"/organizations/{org.id}/meetups/{crowd.id}/finalize", {})
    expect(phone.get_by_role("heading", name="Which door?")).to_be_visible()  # its list is no longer its
    expect(phone.get_by_role("link", name=crowd.name)).to_have_count(0)
