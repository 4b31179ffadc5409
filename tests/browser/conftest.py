"""Browser tests: Playwright drives Debian's Chromium against the app served by waitress (`live_server`).

One browser for the whole package; every test gets a fresh app and database, and fresh browser contexts
(so fresh localStorage). Without /usr/bin/chromium the tests are skipped with a plain message, unless
DOOR_REQUIRE_BROWSER=1 (CI), where a missing browser fails them.
"""

import os
from datetime import datetime
from pathlib import Path

import pytest
from webtest import TestApp

from browser.support import TIMEOUT_MS, Browser
from doorapp import access
from doorapp.models import Guest, MeetupGuest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SKIPPED = "browser tests skipped: install Debian's chromium"
HERE = Path(__file__).parent
NAMES = [
    "Grace Okafor",
    "Ada Smith",
    "Oliver Nguyen",
    "Alice O'Brien",
    "Samuel Okafor",
    "Zoë Müller",
    "Søren Álvarez",
    "Łukasz Nowak",
    "Anna Иванова",
    "Wei Wang",
]


def pytest_collection_modifyitems(config, items):
    """Without Chromium, skip this package's tests with one plain reason (folded per module by -ra)."""
    if CHROMIUM.exists() or os.environ.get("DOOR_REQUIRE_BROWSER") == "1":
        return
    for item in items:
        if HERE in Path(item.fspath).parents:
            item.add_marker(pytest.mark.skip(reason=SKIPPED))


@pytest.fixture(scope="package")
def chromium():
    """The one Chromium of this package (package scope: Playwright's loop is gone before other tests)."""
    if not CHROMIUM.exists():  # only reached with DOOR_REQUIRE_BROWSER=1 (CI): a missing browser fails
        pytest.fail(
            f"DOOR_REQUIRE_BROWSER=1 but {CHROMIUM} is missing: install Debian's chromium", pytrace=False
        )
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(autouse=True)
def root(make_user):
    """A site admin, so Door is set up and signed-out visitors land on sign-in rather than first-run setup."""
    return make_user("root", site_admin=True)


@pytest.fixture
def token_for(app):
    """token_for(user, minutes=60): a bearer token as POST /auth/token would issue it."""
    secret = app.config["door.config"].secret_key
    return lambda user, minutes=60: access.issue_token(secret, user, minutes)


@pytest.fixture
def olga(make_user, org):
    """An admin of the org."""
    return make_user("olga", org=org, role="ADMIN")


@pytest.fixture
def api(app, olga, token_for):
    """olga's API client (WebTest on the same app), its user as .user."""
    client = TestApp(app)
    client.authorization = ("Bearer", token_for(olga))
    client.user = olga
    return client


@pytest.fixture
def browser(chromium, live_server):
    """browser.page(token=None, viewport=DESKTOP, path="/"): a page in a fresh context on the live server."""
    opened = Browser(chromium, live_server)
    yield opened
    opened.close()
    assert not opened.problems, opened.problems


@pytest.fixture
def crowd(meetup):
    """40 more guests on the meetup's list, with two namesakes of Grace Okafor."""
    rows = [(2000 + i, f"{name.split()[0].lower()}_{i}", name) for i, name in enumerate(NAMES * 4)]
    rows += [(3001, "grace_okafor", "Grace Okafor"), (3002, "grace_okafor2386", "Grace Okafor")]
    for guest_id, username, displayname in rows:
        Guest.create(platform_user_id=guest_id, username=username, displayname=displayname)
        MeetupGuest.create(meetup=meetup, guest=guest_id, rsvp_time=datetime(2026, 11, 1))
    return meetup
