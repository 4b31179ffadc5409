"""The platform adapters: choice by PLATFORM, the demo community, the event-URL table, health, and every
platform endpoint's answer to every fault of the fake `rest` platform (docs/platforms.md's error mapping)."""

import os
import subprocess
import sys
import threading
import time
import unicodedata
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from helpers import create_meetup

from doorapp import platforms
from doorapp.app import create_app
from doorapp.errors import ApiError
from doorapp.models import AuditEvent, Guest, Meetup, MeetupGuest
from doorapp.platforms import demo

WEB = "https://community.test"  # FakePlatform.web_url


@pytest.fixture
def adapter():
    """Which platform the app runs on; a test says `@pytest.mark.parametrize("adapter", ["demo"])`."""
    return "rest"


@pytest.fixture
def config(config, adapter, request, platform_timeout):
    if adapter == "demo":
        return config
    return request.getfixturevalue("fake_platform").configure(config, timeout=platform_timeout)


@pytest.fixture
def fake(fake_platform):
    """The fake with one community: users 1-3 and an event with their RSVPs, plus a discussion thread."""
    fake_platform.add_user(1, "alice", "Alice Ångström")
    fake_platform.add_user(2, "bob", "Bob")
    fake_platform.add_user(9223372036854775807, "max", "Max Int64")
    fake_platform.add_event(
        "night-owls", "summer-social", "Summer social", "2026-12-05T20:00:00Z", [1, 2, 9223372036854775807]
    )
    fake_platform.add_event("Night-Owls", "Winter-Ball", "Winter ball", "2027-01-20T19:30:00+01:00", [1])
    fake_platform.add_thread("night-owls", "welcome", "Welcome, read me first")
    return fake_platform


# --- choosing the adapter -------------------------------------------------------------------------


@pytest.mark.parametrize("adapter", ["demo"])
def test_demo_is_the_default_and_lists_its_event_urls(door):
    assert door.get("/platform").json == {
        "adapter": "demo",
        "web_url": "https://demo.door.invalid",
        "example_urls": [
            "https://demo.door.invalid/night-owls/board-games",
            "https://demo.door.invalid/night-owls/book-circle",
            "https://demo.door.invalid/night-owls/summer-social",
            "https://demo.door.invalid/night-owls/tech-conference",
        ],
        "guest_lookup": "username",
    }


def test_rest_lists_no_example_urls(door, fake):
    assert door.get("/platform").json == {
        "adapter": "rest",
        "web_url": WEB,
        "example_urls": [],
        "guest_lookup": "username",
    }


@pytest.mark.parametrize("adapter", ["demo"])
@pytest.mark.parametrize(
    "settings, message",
    [
        ({"platform": "meetup"}, "PLATFORM=meetup needs MEETUP_TOKEN"),
        ({"platform": "facebook"}, "PLATFORM must be demo, rest or meetup"),
        ({"platform": "rest"}, "PLATFORM=rest needs PLATFORM_API_URL and PLATFORM_WEB_URL"),
    ],
)
def test_an_unusable_platform_setting_stops_the_start_with_a_clear_message(config, settings, message):
    with pytest.raises(SystemExit, match=message.replace("(", r"\(").replace(")", r"\)")):
        create_app(replace(config, **settings))


def test_serve_prints_the_demo_event_urls(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLATFORM", "DOOR_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "doorapp", "serve", "--port", "0", "--data-dir", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=Path(__file__).parent.parent,
    )
    watchdog = threading.Timer(30, process.kill)  # a serve that never prints the URLs fails, not hangs
    watchdog.start()
    lines = []
    try:
        for line in process.stdout:
            lines.append(line.strip())
            if "tech-conference" in line:
                break
    finally:
        watchdog.cancel()
        process.terminate()
        process.wait(timeout=10)
    assert lines[-4:] == demo.DemoPlatform().example_urls()


# --- the demo community ---------------------------------------------------------------------------


@pytest.mark.parametrize("adapter", ["demo"])
def test_every_demo_event_syncs_with_its_size_of_rsvp_list(door, org):
    urls = door.get("/platform").json["example_urls"]
    sizes = []
    for url in urls:
        sizes.append(create_meetup(door, org, url).json["counts"]["rsvps"])  # synced when created
    assert sizes == [5, 40, 250, 2000]
    assert Guest.get_by_id(1001).displayname == "<img src=x onerror=alert(1)>"
    shown = door.get("/guests/9223372036854775807").json
    assert shown["platform_user_id"] == 9223372036854775807 and shown["username"] == "max_id"


def test_demo_names_are_varied_and_the_same_on_every_start():
    first, again = demo.DemoPlatform(), demo.DemoPlatform()
    url = "https://demo.door.invalid/night-owls/tech-conference"
    assert first.event(url) == again.event(url)
    ids = [r.platform_user_id for r in first.event(url).rsvps]
    assert len(set(ids)) == 2000 and first.profiles(ids) == again.profiles(ids)
    names = " ".join(p.displayname for p in first.profiles(ids).values())
    scripts = {unicodedata.name(ch).split()[0] for ch in names if ch.isalpha()}
    assert {"CJK", "HANGUL", "ARABIC", "HEBREW", "CYRILLIC", "DEVANAGARI", "GREEK", "LATIN"} <= scripts
    assert any(unicodedata.category(ch) == "So" for ch in names)  # emoji
    assert any(ch in "áéíóúøåäëöüçñł" for ch in names.lower())


@pytest.mark.parametrize("adapter", ["demo"])
@pytest.mark.parametrize(
    "url, code",
    [
        (
            "https://demo.door.invalid/night-owls/welcome",
            "platform_event_not_found",
        ),  # a thread, not an event
        ("https://demo.door.invalid/night-owls/no-such-event", "platform_event_not_found"),
        ("https://demo.door.invalid/day-larks/summer-social", "platform_event_not_found"),
    ],
)
def test_demo_answers_not_found_like_a_real_platform(door, org, url, code):
    assert create_meetup(door, org, url, status=404).json["code"] == code
    reply = door.post_json("/guests/", {"username": "nobody_here"}, status=404)
    assert reply.json["code"] == "platform_user_not_found"


@pytest.mark.parametrize("adapter", ["demo"])
def test_demo_is_always_healthy(client):
    assert client.get("/health").json["services"]["platform"]["status"] == "healthy"


# --- the event-URL table (rest) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, stored",
    [
        (f"{WEB}/night-owls/summer-social", f"{WEB}/night-owls/summer-social"),
        (f"{WEB}/+night-owls/summer-social", f"{WEB}/night-owls/summer-social"),
        (f"{WEB}/night-owls/summer-social/", f"{WEB}/night-owls/summer-social"),
        (f"{WEB}/+night-owls/summer-social/?utm_source=mail&x=1", f"{WEB}/night-owls/summer-social"),
        (f"{WEB}/night-owls/summer-social#rsvp", f"{WEB}/night-owls/summer-social"),
        ("  https://COMMUNITY.test/night-owls/summer-social  ", f"{WEB}/night-owls/summer-social"),
        ("http://community.test/night-owls/summer-social", f"{WEB}/night-owls/summer-social"),
        (f"{WEB}/+Night-Owls/Winter-Ball/", f"{WEB}/Night-Owls/Winter-Ball"),  # case is kept
    ],
)
def test_event_urls_are_normalised(door, org, fake, url, stored):
    assert create_meetup(door, org, url).json["platform_url"] == stored


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.test/night-owls/summer-social",  # another host
        "https://community.test.evil.test/night-owls/summer-social",
        "https://community.test:8443/night-owls/summer-social",  # another port
        "https://someone@community.test/night-owls/summer-social",
        f"{WEB}/night-owls",  # no thread part
        f"{WEB}/night-owls/",
        f"{WEB}/",
        f"{WEB}/night-owls/summer-social/rsvps",  # one part too many
        f"{WEB}/++night-owls/summer-social",
        f"{WEB}/night owls/summer-social",
        f"{WEB}/night-owls/summer%20social",
        "community.test/night-owls/summer-social",  # no scheme
        "ftp://community.test/night-owls/summer-social",
        "javascript:alert(1)//community.test/night-owls/summer-social",
        "summer social",
    ],
)
def test_anything_but_an_event_url_of_the_platform_is_422(door, org, fake, url):
    reply = create_meetup(door, org, url, status=422).json
    assert reply["code"] == "validation_error" and reply["errors"][0]["loc"] == ["body", "platform_url"]
    assert fake.calls("thread") == [] and Meetup.select().count() == 0


def test_a_web_url_with_a_path_keeps_it(config):
    adapter = platforms.load(replace(config, platform_web_url="https://example.org/communities/"))
    assert (
        adapter.event_url("https://example.org/communities/+owls/party/?a=1")
        == "https://example.org/communities/owls/party"
    )
    with pytest.raises(ApiError):
        adapter.event_url("https://example.org/owls/party")


# --- health ---------------------------------------------------------------------------------------


def test_health_reports_a_reachable_platform(client, fake):
    platform = client.get("/health").json["services"]["platform"]
    assert platform["status"] == "healthy" and platform["latency_ms"] >= 0
    assert fake.calls("head") == ["/api/v1/"]


@pytest.mark.parametrize("platform_timeout", [0.3])
@pytest.mark.parametrize("fault", ["500", "stall", "drop"])
def test_an_unreachable_platform_makes_health_degraded_but_still_200(client, fake, fault):
    fake.fail("head", fault)
    first = client.get("/health")
    assert first.status_int == 200 and first.json["status"] == "degraded"
    for _ in range(50):  # the first answer may come before the probe has finished
        platform = client.get("/health").json["services"]["platform"]
        if platform["status"] == "unhealthy":
            break
        time.sleep(0.1)
    assert platform["status"] == "unhealthy" and platform["latency_ms"] is None and platform["message"]
    assert client.head("/health").status_int == 200


def test_health_never_waits_for_a_hanging_platform(client, fake):
    fake.fail("head", "stall")  # the probe takes PLATFORM_TIMEOUT (2 s) to give up
    reply = client.get("/health").json
    assert reply["status"] == "degraded" and reply["services"]["platform"]["status"] == "unknown"
    assert fake.wait_stalled()


def test_health_is_answered_from_the_last_probe_while_the_platform_hangs(client, fake):
    client.get("/health")
    fake.fail("head", "stall")
    for _ in range(20):  # all within one probe interval: one probe, already answered
        assert client.get("/health").json["services"]["platform"]["status"] == "healthy"
    assert len(fake.calls("head")) == 1


# --- every platform endpoint against every fault ----------------------------------------------------


def call(door, org, endpoint):
    if endpoint == "create guest":
        return door.post_json("/guests/", {"username": "alice"}, expect_errors=True)
    if endpoint == "create meetup":
        return door.post_json(
            f"/organizations/{org.id}/meetups/",
            {"platform_url": f"{WEB}/night-owls/summer-social"},
            expect_errors=True,
        )
    meetup = Meetup.create(
        org=org, name="x", date=datetime(2026, 12, 5, 20), platform_url=f"{WEB}/night-owls/summer-social"
    )
    return door.post(f"/organizations/{org.id}/meetups/{meetup.id}/sync", expect_errors=True)


CASES = [
    # (endpoint, kind of platform call that fails, fault, status, code)
    ("create guest", "user", "404", 404, "platform_user_not_found"),
    ("create meetup", "thread", "404", 404, "platform_event_not_found"),
    ("sync", "thread", "404", 404, "platform_event_not_found"),
    ("sync", "users", "404", 502, "platform_error"),  # the batch endpoint itself missing is an error
] + [
    (endpoint, kind, fault, status, code)
    for endpoint, kind in [
        ("create guest", "user"),
        ("create meetup", "thread"),
        ("sync", "thread"),
        ("sync", "users"),
    ]
    for fault, status, code in [
        ("500", 502, "platform_error"),
        ("garbage", 502, "platform_error"),
        ("shape", 502, "platform_error"),
        ("stall", 504, "platform_unreachable"),
        ("drop", 504, "platform_unreachable"),
    ]
]


# 1 s, as in test_meetup_platform: a loaded machine's fake must answer a 500 before the timeout makes it a 504
@pytest.mark.parametrize("platform_timeout", [1.0])
@pytest.mark.parametrize("endpoint, kind, fault, status, code", CASES, ids=lambda v: str(v))
def test_each_platform_failure_has_its_documented_answer_and_stores_nothing(
    door, org, fake, endpoint, kind, fault, status, code
):
    fake.fail(kind, fault)
    started = time.monotonic()
    reply = call(door, org, endpoint)
    assert (reply.status_int, reply.json["code"]) == (status, code)
    assert reply.content_type == "application/problem+json" and reply.json["detail"]
    assert time.monotonic() - started < 10  # bounded by PLATFORM_TIMEOUT, never a hang
    assert Guest.select().count() == 0 and MeetupGuest.select().count() == 0
    assert Meetup.select().count() == (1 if endpoint == "sync" else 0)
    assert AuditEvent.select().count() == 0


def test_an_unreachable_address_is_504(door, org, config, fake):
    fake.stop()  # nobody listens there any more: connection refused
    reply = door.post_json("/guests/", {"username": "alice"}, status=504).json
    assert reply["code"] == "platform_unreachable"
    reply = create_meetup(door, org, f"{WEB}/night-owls/summer-social", status=504).json
    assert reply["code"] == "platform_unreachable"


def test_a_failing_later_profile_batch_fails_the_whole_sync(door, org, fake):
    for n in range(100, 190):
        fake.add_user(n, f"user{n}", f"User {n}")
    fake.set_rsvps("night-owls", "summer-social", [])
    meetup = create_meetup(door, org, f"{WEB}/night-owls/summer-social").json
    fake.set_rsvps("night-owls", "summer-social", range(100, 190))
    fake.fail("users", "500", after=2)  # the third batch of 30 fails
    reply = door.post(f"/organizations/{org.id}/meetups/{meetup['id']}/sync", status=502).json
    assert reply["code"] == "platform_error"
    assert Guest.select().count() == 0 and MeetupGuest.select().count() == 0
    shown = door.get(f"/organizations/{org.id}/meetups/{meetup['id']}").json
    assert shown["last_synced_at"] == meetup["last_synced_at"]  # the creation's sync, not this one
