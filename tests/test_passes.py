"""Door passes over HTTP: an org admin makes one, a phone pairs with its one-time code and works the door
(and nothing else) until the pass is revoked, ends or its meetup is finalized; what it did names it."""

import base64
import csv
import io
import json
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
import requests
from helpers import ENGINES, PASS_LABEL, base, make_pass, phone_of
from webtest import TestApp

from doorapp.access import issue_token
from doorapp.app import create_app
from doorapp.models import AuditEvent, Membership

pytestmark = ENGINES  # on SQLite and on PostgreSQL

LABEL = PASS_LABEL
WORDS = "Maria's phone (pass, made by boss)"


def pair(client, code, status=200):
    return client.post_json("/auth/pass", {"code": code}, status=status)


@pytest.fixture
def phone(client, boss, meetup):
    return phone_of(client, make_pass(boss, meetup))


def check_in(phone, meetup, guest, **body):
    return phone.post_json(
        f"{base(meetup)}/guests/{guest.platform_user_id}/checkin", body, expect_errors=True
    )


def test_a_new_pass_shows_its_pairing_address_and_code_once(client, boss, meetup, boss_user):
    made = make_pass(boss, meetup)
    pairing = made.pop("pairing")
    assert pairing["url"] == f"http://localhost:80/#/pass/{pairing['code']}"
    # Door listens only on this computer: no code a phone could not open, and how to let phones in
    assert pairing["qr_svg"] is None
    lan = {"command": "doorapp serve --host 0.0.0.0", "setting": "DOOR_HOST=0.0.0.0"}
    assert pairing["open_to_lan"] == lan
    assert (
        made["label"] == LABEL
        and made["meetup_id"] == str(meetup.id)
        and made["org_id"] == str(meetup.org_id)
    )
    assert made["created_by"] == {"id": boss_user.id, "username": "boss"}
    assert (made["paired_at"], made["last_seen_at"], made["revoked_at"], made["check_ins"]) == (
        None,
        None,
        None,
        0,
    )
    expires = datetime.fromisoformat(pairing["expires_at"]) - datetime.now(UTC)
    assert timedelta(minutes=9) < expires <= timedelta(minutes=10)
    listed = boss.get(f"/organizations/{meetup.org_id}/passes").json
    assert listed == {"total": 1, "passes": [made]}  # the code is never shown again
    assert pairing["code"] not in boss.get(f"/organizations/{meetup.org_id}/passes").text


def test_the_pairing_address_is_the_public_one_when_door_has_one(config, make_user, org, meetup):
    app = create_app(replace(config, public_url="https://door.example.org/"))
    boss = TestApp(app)
    boss.authorization = (
        "Bearer",
        issue_token(config.secret_key, make_user("olga", org=org, role="ADMIN"), 5),
    )
    made = make_pass(boss, meetup)
    assert made["pairing"]["url"] == f"https://door.example.org/#/pass/{made['pairing']['code']}"
    assert made["pairing"]["qr_svg"].startswith("data:image/svg+xml")
    assert made["pairing"]["open_to_lan"] is None


def test_a_pass_ends_at_most_24_hours_after_it_is_made(boss, meetup):
    soon = datetime.now(UTC) + timedelta(hours=25)
    reply = boss.post_json(
        f"/organizations/{meetup.org_id}/passes",
        {"label": LABEL, "ends_at": soon.isoformat()},
        expect_errors=True,
    )
    assert reply.status_int == 422 and reply.json["errors"][0]["loc"] == ["body", "ends_at"]
    ends = datetime.fromisoformat(make_pass(boss, meetup)["ends_at"]) - datetime.now(UTC)
    assert timedelta(0) < ends <= timedelta(hours=24)


def test_a_pass_for_a_finalized_meetup_is_refused(boss, meetup):
    boss.patch_json(f"{base(meetup)}/finalize", {})
    reply = boss.post_json(
        f"/organizations/{meetup.org_id}/passes",
        {"label": LABEL, "meetup_id": str(meetup.id)},
        expect_errors=True,
    )
    assert reply.status_int == 409 and reply.json["code"] == "meetup_finalized"


def test_a_code_pairs_once_and_a_wrong_or_used_one_gets_nothing(client, boss, meetup):
    made = make_pass(boss, meetup)
    first = pair(client, made["pairing"]["code"]).json
    assert first["token_type"] == "bearer" and first["pass"]["paired_at"] is not None
    assert "pairing" not in first["pass"]
    again = pair(client, made["pairing"]["code"], status=403)
    assert again.json["code"] == "invalid_pass_code" and "access_token" not in again.text
    assert pair(client, "0" * 16, status=403).json["code"] == "invalid_pass_code"


def test_wrong_codes_are_limited_per_address_like_recovery_codes(client, boss, meetup):
    for _ in range(10):
        pair(client, "WRONGWRONGWRONG0", status=403)
    refused = pair(client, "WRONGWRONGWRONG0", status=429)
    assert int(refused.headers["Retry-After"]) > 0


def test_the_token_says_what_it_is_and_is_no_users(client, phone, meetup):
    info = phone.get("/auth/userinfo").json
    assert list(info) == ["pass"] and info["pass"]["label"] == LABEL and info["pass"]["last_seen_at"]


def test_the_token_holds_nothing_of_the_code(client, boss, meetup):
    made = make_pass(boss, meetup)
    token = pair(client, made["pairing"]["code"]).json["access_token"]
    header, claims, _ = (base64.urlsafe_b64decode(part + "==") for part in token.split("."))
    assert made["pairing"]["code"].encode() not in header + claims
    assert json.loads(claims)["sub"] == f"pass {made['id']}"  # a space: no username has one


def test_last_seen_is_written_at_most_once_a_minute(phone, boss, meetup, org):
    paired = boss.get(f"/organizations/{org.id}/passes").json["passes"][0]
    assert paired["last_seen_at"] == paired["paired_at"]
    for _ in range(3):
        phone.get(f"{base(meetup)}/guests")
    assert (
        boss.get(f"/organizations/{org.id}/passes").json["passes"][0]["last_seen_at"] == paired["paired_at"]
    )


def test_a_pass_works_its_meetups_door_and_is_named_for_what_it_did(
    phone, boss, boss_user, meetup, guest, org
):
    assert phone.get(f"{base(meetup)}/guests").json["total"] == 1
    assert phone.get(base(meetup)).json["id"] == str(meetup.id)
    checked = check_in(phone, meetup, guest).json
    pass_id = boss.get(f"/organizations/{org.id}/passes").json["passes"][0]["id"]
    made_by = {"id": boss_user.id, "username": "boss"}
    actor = {"id": None, "username": None, "pass": {"id": pass_id, "label": LABEL, "created_by": made_by}}
    assert checked["rsvp"]["checked_in_by"] == actor
    door_list = boss.get(f"{base(meetup)}/guests").json
    assert door_list["guests"][0]["rsvp"]["checked_in_by"] == actor
    again = check_in(phone, meetup, guest)
    assert again.status_int == 409 and again.json["checked_in_by"] == actor
    undo = phone.patch_json(
        f"{base(meetup)}/guests/{guest.platform_user_id}/undo-checkin", {"reason": "wrong Alice"}
    )
    assert undo.json["rsvp"]["checked_in_by"] is None
    assert check_in(phone, meetup, guest).status_int == 200
    walkin = phone.post_json(f"{base(meetup)}/local-walkins", {"displayname": "Bob Nobody"}, status=201)
    assert walkin.json["rsvp"]["checked_in_by"] == actor
    events = boss.get(f"/organizations/{org.id}/events/", {"type": "CHECK_IN,UNDO_CHECK_IN,WALKIN"}).json[
        "events"
    ]
    assert {e["event_type"] for e in events} == {"CHECK_IN", "UNDO_CHECK_IN", "WALKIN"}
    assert all(e["actor"] == actor for e in events)
    listed = boss.get(f"/organizations/{org.id}/passes").json["passes"][0]
    assert listed["check_ins"] == 3  # what it did, undone or not


def test_summary_and_csv_exports_name_the_pass_and_its_maker(phone, boss, meetup, guest, org):
    check_in(phone, meetup, guest)
    summary = boss.get(f"{base(meetup)}/summary").json
    line = summary["guests"][0]
    assert (line["checked_in_by"], line["checked_in_pass_label"], line["checked_in_pass_made_by"]) == (
        WORDS,
        LABEL,
        "boss",
    )
    rows = list(csv.DictReader(io.StringIO(boss.get(f"{base(meetup)}/export").text.lstrip("\ufeff"))))
    assert (rows[0]["checked_in_by"], rows[0]["checked_in_pass_label"]) == (WORDS, LABEL)
    people = boss.get(f"{base(meetup)}/export", {"style": "people", "lang": "es"}).text.lstrip("\ufeff")
    (spanish,) = csv.DictReader(io.StringIO(people))
    assert spanish["Entrada dada por"] == "Maria's phone (pase, creado por boss)"
    assert [v for v in spanish.values() if LABEL in v] == [
        spanish["Entrada dada por"]
    ]  # no column of its own
    exported = boss.get(f"/organizations/{org.id}/events/export").text.lstrip("\ufeff")
    assert [(row["event_type"], row["actor"]) for row in csv.DictReader(io.StringIO(exported))] == [
        ("CHECK_IN", WORDS),
        ("PASS_CREATED", "boss"),
    ]
    query = {"style": "people", "lang": "es", "sep": "semicolon"}
    log = boss.get(f"/organizations/{org.id}/events/export", query).text.lstrip("\ufeff")
    assert [row["Por"] for row in csv.DictReader(io.StringIO(log), delimiter=";")] == [
        "Maria's phone (pase, creado por boss)",  # in the file's language, as on the guest list
        "boss",
    ]


def test_a_pass_cannot_override_a_ban(phone, boss, meetup, guest, org):
    boss.patch_json(f"/organizations/{org.id}/guests/{guest.platform_user_id}/ban", {"reason": "fights"})
    refused = check_in(phone, meetup, guest, force=True)
    assert refused.status_int == 403 and refused.json["code"] == "pass_not_allowed"
    assert check_in(phone, meetup, guest).json["code"] == "guest_banned"
    assert boss.get(f"{base(meetup)}/guests").json["counts"]["arrived"] == 0


def test_an_idempotency_key_replays_a_passs_check_in(phone, meetup, guest):
    path = f"{base(meetup)}/guests/{guest.platform_user_id}/checkin"
    first = phone.post_json(path, {}, headers={"Idempotency-Key": "key-of-the-phone-1"})
    again = phone.post_json(path, {}, headers={"Idempotency-Key": "key-of-the-phone-1"})
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"


def test_revoking_ends_the_pass_at_once_and_keeps_what_it_did(phone, boss, meetup, guest, org):
    check_in(phone, meetup, guest)
    pass_id = boss.get(f"/organizations/{org.id}/passes").json["passes"][0]["id"]
    boss.delete(f"/organizations/{org.id}/passes/{pass_id}", status=204)
    ended = phone.get(f"{base(meetup)}/guests", expect_errors=True)
    assert ended.status_int == 401 and ended.json["code"] == "pass_ended"
    assert ended.headers["WWW-Authenticate"] == "Bearer"
    listed = boss.get(f"/organizations/{org.id}/passes").json["passes"][0]
    assert listed["revoked_at"] is not None and listed["check_ins"] == 1
    events = boss.get(f"/organizations/{org.id}/events/").json["events"]
    assert [(e["event_type"], e["actor"].get("username")) for e in events] == [
        ("PASS_REVOKED", "boss"),
        ("CHECK_IN", None),
        ("PASS_CREATED", "boss"),
    ]
    assert events[0]["details"] == {"pass_id": pass_id, "label": LABEL}
    assert events[1]["actor"]["pass"]["label"] == LABEL
    assert events[2]["details"] == {"pass_id": pass_id, "label": LABEL, "ends_at": listed["ends_at"]}
    boss.delete(f"/organizations/{org.id}/passes/{pass_id}", status=204)  # again: nothing more happens
    assert boss.get(f"/organizations/{org.id}/events/").json["total"] == 3


def test_revoking_a_meetups_passes_ends_them_all(client, boss, meetup, org):
    phones = [phone_of(client, make_pass(boss, meetup)) for _ in range(2)]
    assert boss.delete(f"{base(meetup)}/passes").json == {"revoked": 2}
    assert boss.delete(f"{base(meetup)}/passes").json == {"revoked": 0}
    revoked = boss.get(f"/organizations/{org.id}/events/", {"type": "PASS_REVOKED"}).json
    assert revoked["total"] == 2
    assert {p.get("/auth/userinfo", expect_errors=True).json["code"] for p in phones} == {"pass_ended"}


def test_a_pass_for_every_meetup_sees_the_open_ones(client, boss, meetup, org):
    other = boss.post_json(
        f"/organizations/{org.id}/meetups/",
        {"platform_url": "https://demo.door.invalid/night-owls/board-games"},
    ).json
    boss.patch_json(f"{base(meetup)}/finalize", {})
    made = boss.post_json(f"/organizations/{org.id}/passes", {"label": "Side entrance"}, status=201).json
    assert made["meetup_id"] is None
    phone = phone_of(client, made)
    assert [m["id"] for m in phone.get(f"/organizations/{org.id}/meetups/").json["meetups"]] == [other["id"]]
    assert phone.get(f"/organizations/{org.id}/meetups/{other['id']}/guests").status_int == 200


def test_finalizing_the_meetup_ends_its_pass(phone, boss, meetup):
    boss.patch_json(f"{base(meetup)}/finalize", {})
    assert phone.get(f"{base(meetup)}/guests", expect_errors=True).json["code"] == "pass_ended"


def test_cancelling_the_meetup_ends_its_pass(phone, boss, meetup):
    assert phone.get(f"{base(meetup)}/guests").status_int == 200
    boss.patch_json(f"{base(meetup)}/cancel", {"reason": "The venue flooded."})
    assert phone.get(f"{base(meetup)}/guests", expect_errors=True).json["code"] == "pass_ended"


def test_deleting_the_meetup_ends_its_pass_and_keeps_what_it_did(phone, boss, meetup, org):
    """A pass that registered a platform guest (GUEST_CREATED names it) outlives its meetup's deletion
    as an ended pass: the log keeps naming it (before, the delete was a 500 on the log's reference)."""
    phone.post_json("/guests/", {"username": "img_tag"}, status=201)
    boss.delete(base(meetup), status=204)
    assert phone.get("/auth/userinfo", expect_errors=True).json["code"] == "pass_ended"
    [kept] = boss.get(f"/organizations/{org.id}/passes").json["passes"]
    assert kept["revoked_at"] is not None and kept["meetup_id"] is None
    created = AuditEvent.get(AuditEvent.event_type == "GUEST_CREATED")
    assert created.actor_pass_id == kept["id"]


def test_a_pass_for_every_meetup_stops_covering_a_cancelled_one(client, boss, meetup, org, guest):
    made = boss.post_json(f"/organizations/{org.id}/passes", {"label": "Side entrance"}, status=201).json
    phone = phone_of(client, made)
    listed = phone.get(f"/organizations/{org.id}/meetups/").json["meetups"]
    assert [m["id"] for m in listed] == [str(meetup.id)]
    boss.patch_json(f"{base(meetup)}/cancel", {"reason": "The venue flooded."})
    assert phone.get(f"/organizations/{org.id}/meetups/").json == {"total": 0, "meetups": []}
    refused = check_in(phone, meetup, guest)  # nor reads its list
    assert refused.status_int == 403 and refused.json["code"] == "pass_not_allowed"
    assert phone.get("/auth/userinfo").status_int == 200  # the pass itself lives on for the org's others


def test_a_pass_ends_by_itself_at_its_end_time(client, boss, meetup):
    soon = datetime.now(UTC) + timedelta(seconds=4)  # time to pair and poll once on a loaded machine
    phone = phone_of(client, make_pass(boss, meetup, ends_at=soon.isoformat()))
    assert phone.get(f"{base(meetup)}/guests").status_int == 200
    time.sleep(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 1.1)
    assert phone.get(f"{base(meetup)}/guests", expect_errors=True).json["code"] == "pass_ended"


def test_a_pass_stays_in_its_org_and_meetup(phone, boss, meetup, org, admin):
    other = boss.post_json(
        f"/organizations/{org.id}/meetups/",
        {"platform_url": "https://demo.door.invalid/night-owls/board-games"},
    ).json
    refused = phone.get(f"/organizations/{org.id}/meetups/{other['id']}/guests", expect_errors=True)
    assert refused.status_int == 403 and refused.json["code"] == "pass_not_allowed"
    elsewhere = admin.post_json("/organizations/", {"name": "Early Birds", "slug": "early-birds"}).json
    refused = phone.get(f"/organizations/{elsewhere['id']}/meetups/{meetup.id}/guests", expect_errors=True)
    assert refused.status_int == 403 and refused.json["code"] == "pass_not_allowed"
    for path in (f"/organizations/{org.id}/events/", "/users/", f"/organizations/{org.id}/passes"):
        assert phone.get(path, expect_errors=True).json["code"] == "pass_not_allowed"


# --- passes never outlive what made them (issue 37, item 7), through a real server --------------------------


def live_phone(live_server, client, made):
    """The headers of a phone paired with the pass `made`, through the live server."""
    reply = requests.post(f"{live_server}/auth/pass", json={"code": made["pairing"]["code"]}, timeout=10)
    assert reply.status_code == 200, reply.text
    return {"Authorization": f"Bearer {reply.json()['access_token']}"}


def door_status(live_server, meetup, headers):
    reply = requests.get(f"{live_server}{base(meetup)}/guests", headers=headers, timeout=10)
    return reply.status_code, reply.json().get("code") if reply.status_code >= 400 else None


def test_unfinalizing_brings_back_no_pass_that_finalizing_ended(live_server, client, boss, meetup):
    phone = live_phone(live_server, client, make_pass(boss, meetup))
    assert door_status(live_server, meetup, phone) == (200, None)
    boss.patch_json(f"{base(meetup)}/finalize", {})
    boss.patch_json(f"{base(meetup)}/unfinalize", {})
    assert door_status(live_server, meetup, phone) == (401, "pass_ended")


@pytest.mark.parametrize("what", ["demoted", "removed", "disabled"])
def test_a_pass_ends_when_its_maker_no_longer_answers_for_it(
    live_server, client, make_user, as_user, org, meetup, admin, what
):
    maker, other = make_user("maya", org=org, role="ADMIN"), as_user(make_user("otto", org=org, role="ADMIN"))
    phone = live_phone(live_server, client, make_pass(as_user(maker), meetup))
    assert door_status(live_server, meetup, phone) == (200, None)
    if what == "demoted":
        other.patch_json(f"/organizations/{org.id}/members/{maker.id}", {"role": "STAFF"})
    elif what == "removed":
        other.delete(f"/organizations/{org.id}/members/{maker.id}", status=204)
    else:
        admin.patch_json(f"/staff/{maker.id}/disable", {"reason": "Left the club"})
    assert door_status(live_server, meetup, phone) == (401, "pass_ended")
    [listed] = other.get(f"/organizations/{org.id}/passes").json["passes"]
    assert listed["revoked_at"] is not None  # the list says so too


def test_a_pass_ends_when_its_maker_leaves_the_admins_by_any_way(
    live_server, client, make_user, as_user, org, meetup
):
    """Even a change no route makes (a database edited by hand): each request checks its maker."""
    maker = make_user("maya", org=org, role="ADMIN")
    phone = live_phone(live_server, client, make_pass(as_user(maker), meetup))
    Membership.update(role="STAFF").where(Membership.user == maker).execute()
    assert door_status(live_server, meetup, phone) == (401, "pass_ended")


def test_a_pass_for_every_open_meetup_reads_no_finalized_or_cancelled_list(
    live_server, client, boss, meetup, org
):
    other = boss.post_json(
        f"/organizations/{org.id}/meetups/",
        {"platform_url": "https://demo.door.invalid/night-owls/board-games"},
    ).json
    made = boss.post_json(f"/organizations/{org.id}/passes", {"label": "Side entrance"}, status=201).json
    phone = live_phone(live_server, client, made)
    assert door_status(live_server, meetup, phone) == (200, None)
    boss.patch_json(f"{base(meetup)}/finalize", {})
    assert door_status(live_server, meetup, phone) == (403, "pass_not_allowed")
    boss.patch_json(f"/organizations/{org.id}/meetups/{other['id']}/cancel", {"reason": "Flooded."})
    cancelled = requests.get(
        f"{live_server}/organizations/{org.id}/meetups/{other['id']}/guests", headers=phone, timeout=10
    )
    assert (cancelled.status_code, cancelled.json()["code"]) == (403, "pass_not_allowed")
    matches = requests.get(
        f"{live_server}{base(meetup)}/walkin-matches", params={"q": "ali"}, headers=phone, timeout=10
    )
    assert matches.status_code == 403
