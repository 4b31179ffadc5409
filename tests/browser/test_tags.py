"""An organizer's tags, as a new one uses them: make "Speaker" on the Tags screen, find tonight's speaker by
name and tick it with a note, and the door's row says "Speaker" before anyone has to ask; the summary shows
the tags, a chip per tag, and the most people inside at once."""

import pytest
from playwright.sync_api import expect

from browser.support import DESKTOP, PHONE, screenshot
from doorapp.models import AuditEvent, GuestNote, GuestTag, Tag

pytestmark = pytest.mark.browser


def test_a_new_organizer_tags_the_speaker_and_the_door_says_so(browser, olga, org, crowd, token_for, api):
    page = browser.page(token=token_for(olga), viewport=DESKTOP, path="/#/meetups")
    page.get_by_role("link", name="Tags").click()
    expect(page.get_by_text("No tags yet: make the first one below.")).to_be_visible()
    page.get_by_label("Name").fill("Speaker")
    page.get_by_role("combobox", name="Colour").select_option("purple")
    page.get_by_role("button", name="Make the tag").click()
    expect(page.get_by_text("Tag Speaker made.")).to_be_visible()
    expect(page.locator("[data-tag] .tag.label")).to_have_text("Speaker")
    page.get_by_label("Find a guest to tag").fill("grace")
    page.get_by_role("button", name="Tags and note of Grace Okafor (@grace_0)…").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("checkbox", name="Speaker").check()
    dialog.get_by_label("Note (every door row shows it)").fill("Talks at 21:00; give her the clicker")
    screenshot(page, "tags-guest-dialog")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Saved: the door shows it for Grace Okafor at once.")).to_be_visible()
    screenshot(page, "tags-screen")
    assert [(t.label, t.color) for t in Tag.select()] == [("Speaker", "purple")]
    assert GuestTag.get().guest_id == 2000 and GuestNote.get().note == "Talks at 21:00; give her the clicker"
    assert [e.event_type for e in AuditEvent.select().order_by(AuditEvent.id)] == [
        "TAG_CREATED",
        "GUEST_TAGGED",
    ]

    door = browser.page(token=token_for(olga), viewport=PHONE, path=f"/#/meetups/{crowd.id}")
    expect(door.locator("#door-results > [role=row]").first).to_be_visible()
    door.keyboard.type("grace_0")
    row = door.locator("#door-results > [role=row]").first
    expect(row.locator(".tag.label")).to_have_text("Speaker")
    expect(row).to_contain_text("Talks at 21:00; give her the clicker")
    screenshot(door, "door-speaker")

    # the summary: her tag on her line, a chip for it, and the most people inside at once
    for guest_id in (2000, 2001, 2002):
        api.post_json(f"/organizations/{org.id}/meetups/{crowd.id}/guests/{guest_id}/checkin", {})
    api.post_json(f"/organizations/{org.id}/meetups/{crowd.id}/guests/2001/exit", {})
    page.goto(f"/#/meetups/{crowd.id}/summary")
    expect(page.locator(".tile", has_text="Most inside")).to_contain_text("3")
    chips = page.get_by_role("radiogroup", name="Show")
    chips.get_by_role("radio", name="Speaker 1").click()
    expect(page.locator("li[data-guest]")).to_have_count(1)
    expect(page.locator("li[data-guest='2000'] .tag.label")).to_have_text("Speaker")
    screenshot(page, "summary-tags")


def test_the_guest_page_shows_and_changes_what_the_door_shows(browser, olga, org, crowd, token_for, api):
    made = api.post_json(
        f"/organizations/{org.id}/tags", {"label": "Step-free entrance", "color": "teal"}
    ).json
    page = browser.page(token=token_for(olga), viewport=PHONE, path="/#/guests/2003")
    panel = page.locator(".guest-tags")
    expect(panel).to_contain_text("No tags and no note")
    panel.get_by_role("button", name="Tags and note…").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("checkbox", name="Step-free entrance").check()
    dialog.get_by_role("button", name="Save").click()
    expect(panel.locator(".tag.label")).to_have_text("Step-free entrance")
    assert api.get(f"/organizations/{org.id}/guests/2003/tags").json["tags"] == [made]
    screenshot(page, "guest-tags")
