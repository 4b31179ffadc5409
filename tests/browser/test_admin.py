"""The organizer's and site admin's screens: meetups (finalize), bans, members, staff and recovery codes,
organizations, the audit log."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from browser.support import PHONE, audit_types, screenshot
from doorapp.db import utcnow
from doorapp.models import AuditEvent, Meetup, Membership, Org, User

pytestmark = pytest.mark.browser


def test_an_admin_finalizes_a_meetup_after_confirming_and_the_door_closes(
    browser, make_user, org, meetup, token_for
):
    admin = make_user("olga", org=org, role="ADMIN")
    page = browser.page(token=token_for(admin))
    card = page.locator(f"[data-meetup='{meetup.id}']")
    expect(card).to_contain_text("Summer social")
    screenshot(page, "meetups")
    card.get_by_role("button", name="Finalize…").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    assert not Meetup.get_by_id(meetup.id).is_finalized
    card.get_by_role("button", name="Finalize…").click()
    page.get_by_role("dialog").get_by_role("button", name="Finalize").click()
    expect(page).to_have_url(re.compile(f"#/meetups/{meetup.id}/summary$"))  # the night's summary
    expect(page.get_by_role("heading", name="Arrivals")).to_be_visible()
    page.get_by_role("link", name="← Meetups").click()
    expect(card).to_contain_text("finalized")
    assert audit_types(event_type="MEETUP_FINALIZED") == ["MEETUP_FINALIZED"]
    card.get_by_role("link", name="Open").click()
    expect(page.get_by_text("This meetup is finalized")).to_be_visible()
    expect(page.get_by_role("button", name="Check in")).to_be_disabled()
    expect(page.get_by_role("button", name="Sync RSVPs")).to_have_count(0)
    page.get_by_role("button", name="Unfinalize").click()
    page.get_by_role("dialog").get_by_role("button", name="Unfinalize").click()
    expect(page.get_by_role("button", name="Check in")).to_be_enabled()
    assert audit_types(event_type="MEETUP_UNFINALIZED") == ["MEETUP_UNFINALIZED"]
    phone = browser.page(token=token_for(admin), viewport=PHONE)
    expect(phone.locator(f"[data-meetup='{meetup.id}']")).to_be_visible()
    screenshot(phone, "meetups")


def test_door_staff_see_only_the_door_screens(browser, make_user, org, meetup, token_for):
    page = browser.page(token=token_for(make_user("sam", org=org, role="STAFF")))
    card = page.locator(f"[data-meetup='{meetup.id}']")
    expect(card).to_be_visible()
    expect(card.get_by_role("button", name="Finalize…")).to_have_count(0)
    nav = page.get_by_role("navigation", name="Sections")
    expect(nav.get_by_role("link")).to_have_text(["Meetups", "Bans"])
    nav.get_by_role("link", name="Bans").click()
    expect(page.get_by_text("Nobody is banned here.")).to_be_visible()
    expect(page.get_by_role("heading", name="Ban a guest")).to_have_count(0)


def test_an_admin_bans_a_guest_looked_up_on_the_platform_then_unbans(browser, make_user, org, token_for):
    page = browser.page(token=token_for(make_user("olga", org=org, role="ADMIN")), path="/#/bans")
    page.get_by_label("Find a guest to ban").fill("zoë_m")
    page.get_by_role("button", name="Look up @zoë_m on the platform").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Ban Zoë Mîlle-Feuille in Night Owls?")
    dialog.get_by_label("Reason").fill("Sold fake tickets")
    dialog.get_by_role("button", name="Ban", exact=True).click()
    banned = page.locator(".row.banned")
    expect(banned).to_contain_text("Reason: Sold fake tickets")
    expect(banned).to_contain_text("by olga")
    banned.get_by_role("button", name="Unban").click()
    page.get_by_role("dialog").get_by_role("button", name="Unban").click()
    expect(page.get_by_text("Nobody is banned here.")).to_be_visible()
    assert audit_types(guest=1006) == ["GUEST_CREATED", "BAN", "UNBAN"]


def test_an_org_admin_adds_promotes_and_removes_a_member(browser, make_user, org, token_for):
    admin = make_user("olga", org=org, role="ADMIN")
    kim = make_user("kim")
    page = browser.page(token=token_for(admin), path="/#/members")
    page.get_by_label("Find a user to add").fill("KI")
    page.locator(".picker").get_by_role("button", name="Add").click()
    member = page.locator(f"[data-user='{kim.id}']")
    expect(member.get_by_label("Role of kim")).to_have_value("STAFF")
    assert Membership.get(user=kim, org=org).role == "STAFF"
    member.get_by_label("Role of kim").select_option("ADMIN")
    expect(page.get_by_text("kim is now an admin.")).to_be_visible()
    assert Membership.get(user=kim, org=org).role == "ADMIN"
    member.get_by_role("button", name="Remove").click()
    page.get_by_role("dialog").get_by_role("button", name="Remove").click()
    expect(member).to_have_count(0)
    assert audit_types(org=org.id) == ["MEMBER_ADDED", "MEMBER_ROLE_CHANGED", "MEMBER_REMOVED"]
    # the API refuses an admin demoting themselves; the page shows why and keeps the role
    page.locator(f"[data-user='{admin.id}']").get_by_label("Role of olga").select_option("STAFF")
    expect(page.get_by_text("You cannot")).to_be_visible()
    expect(page.locator(f"[data-user='{admin.id}']").get_by_label("Role of olga")).to_have_value("ADMIN")


def test_a_site_admin_approves_staff_and_a_recovery_code_resets_a_password(
    browser, root, make_user, token_for
):
    newbie = make_user("newbie", is_approved=False)
    page = browser.page(
        token=token_for(root), path="/#/staff", permissions=["clipboard-read", "clipboard-write"]
    )
    pending = page.locator("section", has=page.get_by_role("heading", name="Waiting for approval"))
    pending.get_by_role("button", name="Approve").click()
    expect(pending.get_by_text("Nobody is waiting.")).to_be_visible()
    assert User.get_by_id(newbie.id).is_approved

    account = page.locator(f"[data-user='{newbie.id}']")
    account.get_by_label("Global role of newbie").select_option("SITE_ADMIN")
    expect(page.get_by_text("newbie's role changes at their next sign-in.")).to_be_visible()
    assert User.get_by_id(newbie.id).role == "SITE_ADMIN"
    account.get_by_label("Global role of newbie").select_option("USER")
    account.get_by_role("button", name="Disable").click()
    page.get_by_role("dialog").get_by_label("Reason (optional)").fill("Left the club")
    page.get_by_role("dialog").get_by_role("button", name="Disable").click()
    expect(account).to_contain_text("disabled: Left the club")
    account.get_by_role("button", name="Enable").click()
    expect(account.get_by_role("button", name="Disable")).to_be_visible()
    assert not User.get_by_id(newbie.id).is_disabled

    account.get_by_role("button", name="Recovery code").click()
    page.get_by_role("dialog").get_by_role("button", name="Generate").click()
    code_box = page.get_by_role("dialog").get_by_label("Recovery code")
    expect(code_box).to_have_value(re.compile(r"^\d{6}$"))
    code = code_box.input_value()
    page.get_by_role("dialog").get_by_role("button", name="Copy").click()
    expect(page.get_by_role("dialog").get_by_text("Copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == code
    page.get_by_role("dialog").get_by_role("button", name="Done").click()

    guest = browser.page(path="/#/forgot")
    guest.get_by_label("Username").fill("newbie")
    guest.get_by_label("Recovery code").fill("000000" if code != "000000" else "111111")
    guest.get_by_role("button", name="Check the code").click()
    expect(guest.get_by_role("alert")).to_have_text(
        "This recovery code is not valid; ask a site admin for a new one."
    )
    guest.get_by_label("Recovery code").fill(code)
    guest.get_by_role("button", name="Check the code").click()
    new_password = "a brand new passphrase for newbie"
    guest.get_by_label("New password", exact=True).fill(new_password)
    guest.get_by_label("Repeat the new password").fill(new_password)
    guest.get_by_role("button", name="Set the new password").click()
    expect(guest.get_by_text("Your password is changed.")).to_be_visible()
    guest.get_by_role("link", name="Sign in").click()
    guest.get_by_label("Username").fill("newbie")
    guest.get_by_label("Password").fill(new_password)
    guest.get_by_role("button", name="Sign in").click()
    expect(guest.get_by_text("You are not a member of any organization yet.")).to_be_visible()
    screenshot(page, "staff")


def test_a_site_admin_creates_an_organization_and_switches_between_them(browser, root, org, token_for):
    page = browser.page(token=token_for(root), path="/#/orgs")
    page.get_by_label("Name").fill("Early Birds")
    expect(page.get_by_label("Slug")).to_have_value("early-birds")
    page.get_by_role("button", name="Create organization").click()
    expect(page.get_by_role("heading", name="Meetups of Early Birds")).to_be_visible()
    assert Org.get(Org.slug == "early-birds").name == "Early Birds"
    switcher = page.get_by_label("Organization")
    expect(switcher.locator("option")).to_have_text(["Early Birds", "Night Owls"])
    switcher.select_option(label="Night Owls")
    expect(page.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()
    page.reload()
    # the choice is remembered
    expect(page.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()


def test_the_audit_log_filters_and_pages(browser, make_user, org, meetup, guest, token_for):
    admin = make_user("olga", org=org, role="ADMIN")
    sam = make_user("sam", org=org)
    start = utcnow() - timedelta(minutes=10)
    rows = [
        {
            "event_type": "CHECK_IN",
            "timestamp": start + timedelta(seconds=i),
            "org": org.id,
            "actor": sam.id,
            "guest": guest.platform_user_id,
            "meetup_id": meetup.id,
            "reason": None,
            "details": {},
        }
        for i in range(55)
    ]
    rows.append(
        {
            "event_type": "BAN",
            "timestamp": start + timedelta(minutes=2),
            "org": org.id,
            "actor": admin.id,
            "meetup_id": None,
            "guest": guest.platform_user_id,
            "reason": "Rude at the bar",
            "details": {},
        }
    )
    AuditEvent.insert_many(rows).execute()
    page = browser.page(token=token_for(admin), path="/#/audit")
    pager = page.locator(".pager")
    expect(pager).to_contain_text("1–50 of 56")
    page.get_by_role("button", name="Older →").click()
    expect(pager).to_contain_text("51–56 of 56")
    page.get_by_label("Type").select_option("BAN")
    page.get_by_role("button", name="Show").click()
    expect(pager).to_contain_text("1–1 of 1")
    expect(page.locator(".event")).to_contain_text("Reason: Rude at the bar")
    page.get_by_role("button", name="Clear").click()
    page.get_by_label("Staff").select_option(label="sam")
    page.get_by_label("Guest").fill("angstrom ALICE")  # as the door's search: accents and word order aside
    expect(page.locator("#audit-guests option[value='@alice']")).to_have_text("Alice Ångström")
    page.get_by_label("Meetup").select_option(label="Summer social")
    page.get_by_role("button", name="Show").click()
    expect(pager).to_contain_text("1–50 of 55")
    page.get_by_label("Guest").fill("nobody here")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("alert")).to_have_text("No guest matches “nobody here”.")
    page.get_by_label("Guest").fill("@alice")
    page.get_by_label("From").fill(start.date().isoformat())  # the pages run in UTC (support.Browser)
    page.get_by_label("To").fill(utcnow().date().isoformat())
    page.get_by_role("button", name="Show").click()
    expect(pager).to_contain_text("of 55")
    screenshot(page, "audit")
