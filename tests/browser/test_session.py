"""The client's session behaviour, rule by rule; registration, first-run setup, recovery."""

import re

import pytest
from helpers import PASSWORD
from playwright.sync_api import expect

from browser.support import JWT, local_storage_token, sign_in
from doorapp.api.setup import issue_setup_code
from doorapp.models import User

pytestmark = pytest.mark.browser


def test_signing_in_keeps_the_token_in_local_storage_across_a_reload(browser, make_user, org):
    make_user("sam", org=org)
    page = browser.page()
    expect(page).to_have_url(f"{browser.base_url}/#/signin")
    sign_in(page, "sam")
    expect(page.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()
    token = local_storage_token(page)
    assert JWT.match(token)
    page.reload()
    expect(page.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()
    assert local_storage_token(page) == token


def test_a_bookmarked_door_link_opens_after_signing_in(browser, make_user, org, meetup):
    make_user("sam", org=org)
    page = browser.page(path=f"/#/orgs/{org.id}/meetups/{meetup.id}")
    sign_in(page, "sam")
    expect(page.get_by_role("heading", name="Summer social")).to_be_visible()
    expect(page).to_have_url(f"{browser.base_url}/#/orgs/{org.id}/meetups/{meetup.id}")


def test_a_door_link_of_before_the_org_was_in_it_opens_the_door_at_its_new_address(
    browser, make_user, org, meetup
):
    make_user("sam", org=org)
    page = browser.page(path=f"/#/meetups/{meetup.id}")
    sign_in(page, "sam")
    expect(page.get_by_role("heading", name="Summer social")).to_be_visible()
    expect(page).to_have_url(f"{browser.base_url}/#/orgs/{org.id}/meetups/{meetup.id}")
    page.go_back()  # the old address left no entry to come back to
    expect(page).not_to_have_url(re.compile("#/meetups/"))


def test_a_wrong_password_shows_the_problem_detail_and_stores_nothing(browser, make_user):
    make_user("sam")
    page = browser.page()
    sign_in(page, "sam", "not the password at all")
    expect(page.get_by_role("alert")).to_have_text("The username or password is wrong.")
    assert local_storage_token(page) is None


def test_on_start_the_app_calls_userinfo_with_the_stored_token(browser, make_user, org, token_for):
    token = token_for(make_user("sam", org=org))
    page = browser.page(token=token, path=None)
    api_calls = []
    page.on(
        "request",
        lambda r: (
            api_calls.append((r.method, r.url.removeprefix(browser.base_url), r.headers.get("authorization")))
            if r.resource_type == "fetch"
            else None
        ),
    )
    page.goto("/")
    expect(page.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()
    assert api_calls[0] == ("GET", "/auth/userinfo", f"Bearer {token}")


def test_a_401_on_start_deletes_the_token_and_shows_sign_in(browser, make_user, org, token_for):
    expired = token_for(make_user("sam", org=org), minutes=-5)
    page = browser.page(token=expired)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_text("Your session has expired; sign in again.")
    assert local_storage_token(page) is None


def test_a_401_later_deletes_the_token_and_shows_sign_in(browser, make_user, org, token_for):
    sam = make_user("sam", org=org)
    page = browser.page(token=token_for(sam))
    expect(page.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()
    page.wait_for_load_state("networkidle")  # the list is read after its heading shows: let it arrive first
    sam.delete_instance(recursive=True)  # the token is now of nobody: the next request is 401
    page.get_by_role("link", name="Bans").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert local_storage_token(page) is None


def test_a_network_error_keeps_the_token_and_retries_until_the_server_answers(
    browser, make_user, org, token_for
):
    token = token_for(make_user("sam", org=org))
    page = browser.page(token=token, path=None)
    page.route("**/auth/userinfo", lambda route: route.abort("internetdisconnected"))
    page.goto("/")
    banner = page.get_by_text("Connection lost, retrying…")
    expect(banner).to_be_visible()
    assert local_storage_token(page) == token
    page.unroute("**/auth/userinfo")
    expect(page.get_by_role("heading", name="Meetups of Night Owls")).to_be_visible()
    expect(banner).to_be_hidden()
    assert local_storage_token(page) == token


def test_registering_shows_the_wait_for_approval_and_sign_in_says_so(browser):
    page = browser.page(path="/#/register")
    page.get_by_label("Username").fill("newbie")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Repeat the password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Waiting for approval")).to_be_visible()
    assert not User.get(User.username == "newbie").is_approved
    page.get_by_role("link", name="Go to sign in").click()
    sign_in(page, "newbie")
    expect(page.get_by_role("alert")).to_have_text("This account is waiting for a site admin's approval.")
    assert local_storage_token(page) is None


def test_first_run_setup_takes_the_printed_code_and_signs_the_site_admin_in(browser, root):
    root.delete_instance()  # a fresh install: no site admin yet
    code = issue_setup_code()
    page = browser.page()
    expect(page.get_by_role("heading", name="First-run setup")).to_be_visible()
    page.get_by_label("Setup code").fill("WRONG-CODE-0000")
    page.get_by_label("Username").fill("founder")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create the site admin").click()
    expect(page.get_by_role("alert")).to_have_text(
        "The setup code is wrong; it is printed where Door was started."
    )
    page.get_by_label("Setup code").fill(code)
    page.get_by_role("button", name="Create the site admin").click()
    expect(page.get_by_role("heading", name="Organizations", exact=True)).to_be_visible()
    assert User.get(User.username == "founder").role == "SITE_ADMIN"
    assert JWT.match(local_storage_token(page))


def test_the_start_page_opened_by_serve_has_the_setup_code_filled_in(browser, root):
    root.delete_instance()  # a fresh install: `serve` opens /#/setup/<code> when there is a desktop
    code = issue_setup_code()
    page = browser.page(path=f"/#/setup/{code}")
    expect(page.get_by_label("Setup code")).to_have_value(code)
    expect(page.get_by_label("Username")).to_be_focused()
    page.get_by_label("Username").fill("founder")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create the site admin").click()
    expect(page.get_by_role("heading", name="Organizations", exact=True)).to_be_visible()
    assert User.get(User.username == "founder").role == "SITE_ADMIN"
