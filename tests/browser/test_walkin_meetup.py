"""The walk-in dialog on the `meetup` platform (a fake Meetup on a real socket), where a guest is found by
member id or profile URL, never by name: a name finds the members Door knows and is never sent to Meetup;
a member id is looked up; one Meetup does not have says what to do next."""

import pytest
from fake_meetup import FakeMeetup
from playwright.sync_api import expect
from webtest import TestApp

from browser.support import PHONE, audit_types
from doorapp import access
from doorapp.models import Guest

pytestmark = pytest.mark.browser


@pytest.fixture
def fake_meetup():
    with FakeMeetup() as fake:
        fake.add_group("night-owls")
        fake.add_member(21, "Hannah Baker", None, groups=["night-owls"])
        fake.add_member(22, "Ivy Reed", None, groups=["night-owls"])
        fake.add_member(23, "Walk In", None, groups=["night-owls"])
        yield fake


@pytest.fixture
def config(config, fake_meetup, platform_timeout):
    return fake_meetup.configure(config, timeout=platform_timeout)


@pytest.fixture
def book_circle(app, olga, org, fake_meetup):
    """Hannah came to the summer social; the book circle's list has Ivy alone."""
    api = TestApp(app)
    api.authorization = ("Bearer", access.issue_token(app.config["door.config"].secret_key, olga, 60))
    summer = fake_meetup.add_event("night-owls", "301", "Summer social", "2026-12-05T21:00:00+01:00", [21])
    books = fake_meetup.add_event("night-owls", "302", "Book circle", "2026-12-10T19:00:00+01:00", [22])
    for url in (summer, books):
        made = api.post_json(f"/organizations/{org.id}/meetups/", {"platform_url": url}, status=201)
    return made.json["id"]


def test_a_name_finds_the_members_door_knows_and_a_member_id_is_looked_up(
    browser, olga, org, book_circle, token_for, fake_meetup
):
    page = browser.page(
        token=token_for(olga), viewport=PHONE, touch=True, path=f"/#/orgs/{org.id}/meetups/{book_circle}"
    )
    expect(page.locator("#door-results > [role=row]")).to_have_count(1)
    page.locator(".door-search").fill("hannah baker")
    page.get_by_role("button", name="add “hannah baker” as a walk-in").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_label("Meetup member id or profile URL, or a name")).to_have_value("hannah baker")
    expect(dialog.get_by_role("button", name="Hannah Baker @21")).to_be_visible()
    # a name is no member id: nothing to look up on Meetup
    expect(dialog.get_by_role("button", name="Look up")).to_have_count(0)
    dialog.get_by_label("Meetup member id or profile URL, or a name").fill("99")
    dialog.get_by_role("button", name="Look up 99 on the platform").tap()
    expect(dialog.get_by_role("alert")).to_have_text(
        "Meetup has nobody by “99”. Pick them from the list above if they are there, try their Meetup "
        "member id or profile URL, or let them in by name below."
    )
    dialog.get_by_label("Meetup member id or profile URL, or a name").fill("23")
    dialog.get_by_role("button", name="Look up 23 on the platform").tap()
    expect(dialog).to_have_count(0)
    walk_in = page.locator("#door-results > [role=row]").filter(has_text="Walk In")
    expect(walk_in).to_contain_text("#1")
    assert audit_types(guest=23) == ["GUEST_CREATED", "WALKIN", "CHECK_IN"]
    assert Guest.get_by_id(23).displayname == "Walk In"
