"""Shared fixtures: an app on a fresh database per test, users, tokens, an org, a guest, a meetup and
a live server."""

import os
import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from fake_platform import FakePlatform
from helpers import PASSWORD, SECRET, THE_DAY, Conformance, next_week
from postgres import Server as PostgresServer
from postgres import missing as postgres_missing
from webtest import TestApp

from doorapp import access
from doorapp.app import create_app
from doorapp.config import Config
from doorapp.db import db
from doorapp.models import Guest, Meetup, MeetupGuest, Membership, Org, SigningKey, User
from doorapp.server import create_server

_HASH = {}


def pytest_configure(config):
    """DOOR_TEST_DAYS_AHEAD=N runs the tests with this process's clock N days ahead (tests/test_clock.py):
    a test that holds only today passes this way too."""
    days = os.environ.get("DOOR_TEST_DAYS_AHEAD")
    if days:
        time_machine.travel(datetime.now(UTC) + timedelta(days=int(days)), tick=True).start()


@pytest.fixture
def on_the_day():
    """The clock at helpers.THE_DAY, running: for a module whose evening is drawn with fixed dates (use it
    with `pytestmark = pytest.mark.usefixtures("on_the_day")`, so it starts before the app and tokens)."""
    with time_machine.travel(THE_DAY, tick=True):
        yield


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (tests/postgres.py) and a migrated template database."""
    reason = postgres_missing()
    if reason:
        if os.environ.get("DOOR_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"DOOR_REQUIRE_POSTGRES=1 but {reason}")
        pytest.skip(f"PostgreSQL half skipped: {reason}")
    server = PostgresServer()
    server.template = server.database()
    create_app(Config(data_dir=server.folder, secret_key=SECRET, database_url=server.template))
    SigningKey.delete().execute()  # each test's Door, with a key of its own, makes the database's key
    db.close_all()
    server.template = server.template.rsplit("/", 1)[1]
    yield server
    if db.obj is not None and hasattr(db.obj, "close_all"):
        db.close_all()
    server.stop()


@pytest.fixture
def engine(request):
    """The database engine of the test: sqlite, unless a module parametrizes it (ENGINES)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def database_url(engine, request):
    """DATABASE_URL for `config`: None (a SQLite file in the data folder) or a fresh PostgreSQL database."""
    if engine == "sqlite":
        yield None
        return
    server = request.getfixturevalue("postgres")
    url = server.database(server.template)
    yield url
    server.drop(url)


@pytest.fixture
def config(tmp_path, database_url):
    return Config(data_dir=tmp_path / "data", secret_key=SECRET, database_url=database_url)


@pytest.fixture
def app(config, request):
    """The app, each of its answers checked against its /openapi.json (helpers.Conformance), unless the
    test is marked `beyond_the_document` (it stores what Door never would, to see the app cope)."""
    app = create_app(config)
    if request.node.get_closest_marker("beyond_the_document"):
        yield app
        return
    watched = Conformance(app)
    yield app
    assert not watched.failures, "answers that break /openapi.json:\n" + "\n".join(watched.failures)


@pytest.fixture
def client(app):
    """An anonymous client."""
    return TestApp(app)


@pytest.fixture
def make_user(app):
    """make_user(name, org=None, role="STAFF", site_admin=False, **fields): an approved user by default."""

    def make(name, org=None, role="STAFF", site_admin=False, **fields):
        if PASSWORD not in _HASH:
            _HASH[PASSWORD] = access.hash_secret(PASSWORD)
        fields.setdefault("is_approved", True)
        fields.setdefault("password_hash", _HASH[PASSWORD])
        user = User.create(username=name, role="SITE_ADMIN" if site_admin else "USER", **fields)
        if org is not None:
            Membership.create(user=user, org=org, role=role)
        return user

    return make


@pytest.fixture
def as_user(app):
    """as_user(user): a TestApp that sends that user's bearer token."""

    def client_for(user):
        test_app = TestApp(app)
        token = access.issue_token(app.config["door.config"].secret_key, user, 60)
        test_app.authorization = ("Bearer", token)
        return test_app

    return client_for


@pytest.fixture
def root(make_user):
    """An approved SITE_ADMIN."""
    return make_user("root", site_admin=True)


@pytest.fixture
def admin(root, as_user):
    """A client signed in as `root`, the site admin."""
    return as_user(root)


@pytest.fixture
def boss_user(org, make_user):
    """An ADMIN of `org`."""
    return make_user("boss", org=org, role="ADMIN")


@pytest.fixture
def boss(boss_user, as_user):
    """A client signed in as `boss_user`."""
    return as_user(boss_user)


@pytest.fixture
def staff(org, make_user):
    """A STAFF member of `org`."""
    return make_user("sam", org=org, role="STAFF")


@pytest.fixture
def door(staff, as_user):
    """A client signed in as `staff`: the door."""
    return as_user(staff)


@pytest.fixture
def org(app):
    return Org.create(name="Night Owls", slug="night-owls")


@pytest.fixture
def guest(app):
    return Guest.create(platform_user_id=9007199254740993, username="alice", displayname="Alice Ångström")


@pytest.fixture
def meetup(org, guest):
    """A meetup of `org` with `guest` on its RSVP list, at 20:00 UTC a week from today: still to come,
    whatever the day (on_the_day: 2026-12-05)."""
    meetup = Meetup.create(
        org=org,
        name="Summer social",
        date=next_week(),
        platform_url="https://demo.door.invalid/night-owls/summer-social",
    )
    MeetupGuest.create(meetup=meetup, guest=guest, rsvp_time=datetime(2026, 11, 20, 10))
    return meetup


@pytest.fixture
def live_port():
    """The port of `live_server`: 0, any free one; a module whose Door must know its own address before it
    starts (DOOR_PUBLIC_URL in its `config`) picks one (postgres.free_port)."""
    return 0


@pytest.fixture
def live_server(app, live_port):
    """The app served by waitress as `doorapp serve` serves it, on 127.0.0.1 (an ephemeral port, or
    `live_port`) in this process; yields its base URL."""
    server = create_server(app, "127.0.0.1", live_port)
    stop = threading.Event()

    def serve():  # server.run() cannot be stopped from another thread without racing its select()
        while not stop.is_set():
            server.asyncore.loop(timeout=0.05, map=server._map, use_poll=True, count=1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    host, port = server.getsockname()[:2]
    yield f"http://{host}:{port}"
    stop.set()
    thread.join(timeout=5)
    # let requests still running finish before the next test points the database at its own file: one
    # that outlived its server failed that test's set-up ("locking protocol"), seen in a CI run
    server.task_dispatcher.shutdown(timeout=5)
    server.close()


@pytest.fixture
def platform_timeout():
    """PLATFORM_TIMEOUT for a module's `fake.configure(config, timeout=platform_timeout)`; a test lowers it
    with `@pytest.mark.parametrize("platform_timeout", [0.3])`."""
    return 2.0


@pytest.fixture
def fake_platform():
    """The fake `rest` platform of tests/fake_platform.py on 127.0.0.1; a module that wants the app on it
    overrides `config` with `fake_platform.configure(config)`."""
    with FakePlatform() as fake:
        yield fake
