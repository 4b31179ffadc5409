"""/docs in the browser: Authorize keeps no copy of the token that Sign out would leave behind."""

import pytest
from helpers import PASSWORD
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_authorizing_in_the_docs_leaves_no_token_in_the_browser(browser, make_user):
    make_user("sam")
    page = browser.page(path="/docs")
    page.get_by_role("button", name="Authorize").first.click()
    page.locator("#oauth_username").fill("sam")
    page.locator("#oauth_password").fill(PASSWORD)
    page.locator(".modal-ux button.authorize").click()
    expect(page.locator(".modal-ux").get_by_text("Authorized", exact=True)).to_be_visible()
    stored = page.evaluate("JSON.stringify(Object.entries(localStorage))")
    assert "eyJ" not in stored, stored  # a JWT starts so
    page.reload()
    page.get_by_role("button", name="Authorize").first.click()
    expect(page.locator("#oauth_username")).to_be_visible()  # asked again: nothing was kept
