"""Data protection (docs/api.md): an organization's privacy settings and notice, erasing one person from it
(every other organization's records, counts and arrival numbers as they were) and the file of everything
it holds about one person; admins only, on SQLite and PostgreSQL. Retention, run by a served Door:
test_retention.py."""

import json
from datetime import timedelta

import pytest
import requests
from helpers import ENGINES, add_guest, at_once, auth, base, entry, events, phone_of

from doorapp.backup import KEEP
from doorapp.db import utcnow
from doorapp.models import Guest, IdempotencyKey, Meetup, Org

pytestmark = ENGINES

ALICE = 9007199254740993  # conftest's guest: alice, Alice Ångström
NAMES = ("alice", "Ångström", str(ALICE))  # what names her in any answer or file


def privacy(org):
    return f"/organizations/{org.id}/privacy"


def person(org, guest_id=ALICE):
    return f"/organizations/{org.id}/guests/{guest_id}"


def test_an_organization_starts_with_the_default_settings_and_its_admins_change_them(boss, boss_user, org):
    assert boss.get(privacy(org)).json == {
        "keep_guests_months": 12,
        "keep_bans_months": 24,
        "keep_audit_details_months": 12,
        "notice": "",
    }
    notice = "We keep your name for the door.\nAsk us: privacy@example.org"
    changed = boss.patch_json(
        privacy(org), {"keep_guests_months": 6, "keep_bans_months": None, "notice": notice}
    )
    wanted = {
        "keep_guests_months": 6,
        "keep_bans_months": None,
        "keep_audit_details_months": 12,
        "notice": notice,
    }
    assert changed.json == wanted and boss.get(privacy(org)).json == wanted
    assert boss.patch_json(privacy(org), {"keep_audit_details_months": 3}).json["keep_bans_months"] is None
    [first, second] = events("ORG_UPDATED")
    assert first.actor_id == boss_user.id and first.details["changes"] == {
        "keep_guests_months": {"old": 12, "new": 6},
        "keep_bans_months": {"old": 24, "new": None},
        "privacy_notice": {"old": "", "new": notice},
    }
    assert second.details["changes"] == {"keep_audit_details_months": {"old": 12, "new": 3}}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"keep_guests_months": 0}, "keep_guests_months"),
        ({"keep_bans_months": 121}, "keep_bans_months"),
        ({"keep_audit_details_months": "12"}, "keep_audit_details_months"),
        ({"notice": "x" * 4001}, "notice"),
        ({"notice": "nul\x00"}, "notice"),
    ],
)
def test_settings_out_of_range_are_refused_and_change_nothing(boss, org, body, field):
    refused = boss.patch_json(privacy(org), body, status=422).json
    assert [e["loc"] for e in refused["errors"]] == [["body", field]]
    assert boss.get(privacy(org)).json["keep_guests_months"] == 12 and events("ORG_UPDATED") == []


def test_staff_and_door_passes_are_refused_the_settings_export_and_erasure(client, boss, door, org, meetup):
    phone = phone_of(
        client, boss.post_json(f"/organizations/{org.id}/passes", {"label": "Maria's phone"}).json
    )
    asks = [
        ("get", privacy(org), None),
        ("patch_json", privacy(org), {"keep_guests_months": 1}),
        ("get", f"{person(org)}/export", None),
        ("post_json", f"{person(org)}/erase", {"reason": "asked"}),
    ]
    for caller, code in ((door, "org_admin_required"), (phone, "pass_not_allowed")):
        for method, path, body in asks:
            reply = getattr(caller, method)(path, *([body] if body else []), status=403)
            assert reply.json["code"] == code, (method, path)
    assert boss.get(privacy(org)).json["keep_guests_months"] == 12
    assert Guest.get_or_none(Guest.platform_user_id == ALICE) is not None and events("GUEST_ERASED") == []


def test_the_notice_is_for_the_organizations_doors_and_passes_alone(
    client, boss, door, org, make_user, as_user
):
    boss.patch_json(privacy(org), {"notice": "Names are kept 12 months."})
    made = boss.post_json(f"/organizations/{org.id}/passes", {"label": "Maria's phone"}).json
    for reader in (boss, door, phone_of(client, made)):
        assert reader.get(f"{privacy(org)}/notice").json == {"notice": "Names are kept 12 months."}
    other = Org.create(name="Early Birds", slug="early-birds")
    theirs = as_user(make_user("eve", org=other, role="ADMIN"))
    assert theirs.get(f"{privacy(org)}/notice", status=403).json["code"] == "not_org_member"
    their_pass = phone_of(
        client, theirs.post_json(f"/organizations/{other.id}/passes", {"label": "Eve's"}).json
    )
    assert their_pass.get(f"{privacy(org)}/notice", status=403).json["code"] == "pass_not_allowed"


# --- one person, erased from one organization ------------------------------------------------------------


@pytest.fixture
def two_orgs(boss, door, org, meetup, guest, make_user, as_user):
    """Alice on the lists of a meetup of each of two orgs, checked in and banned in both; her neighbours on
    the lists (bob, carol) too. (this org's door, the other org's admin, the other org's meetup)"""
    bob, carol = add_guest(11, "bob", meetup), add_guest(12, "carol", meetup)
    for guest_id in (11, ALICE, 12):  # arrivals 1, 2, 3
        door.post_json(f"{base(meetup)}/guests/{guest_id}/checkin", {})
    door.patch_json(f"{entry(meetup, carol)}/undo-checkin", {"reason": "Checked in by mistake"})
    boss.patch_json(f"{person(org)}/ban", {"reason": "Rude to the door"})
    other = Org.create(name="Early Birds", slug="early-birds")
    theirs = as_user(make_user("eve", org=other, role="ADMIN"))
    early = Meetup.create(
        org=other, name="Breakfast", date=utcnow(), platform_url="https://x/early/breakfast"
    )
    for guest_id in (ALICE, bob.platform_user_id):
        theirs.post_json(f"{base(early)}/guests/{guest_id}/add-walkin", {"check_in": True}, status=201)
    theirs.patch_json(f"{person(other)}/ban", {"reason": "Trouble at breakfast"})
    return door, theirs, early


def everything(client, org, meetup):
    """What an org's answers and files hold: its door list, summary, audit log, bans and their CSVs."""
    at = base(meetup)
    files = [
        f"{at}/export?style=data",
        f"{at}/export?style=people&lang=en",
        f"/organizations/{org.id}/events/export",
    ]
    return {
        "list": client.get(f"{at}/guests").json,
        "summary": client.get(f"{at}/summary").json,
        "log": client.get(f"/organizations/{org.id}/events/?limit=200").json,
        "bans": client.get(f"/organizations/{org.id}/guests/banned").json,
        "files": [client.get(path).body.decode("utf-8-sig") for path in files],
    }


def test_erasing_a_person_leaves_this_orgs_numbers_and_every_other_orgs_records_as_they_were(
    boss, org, meetup, two_orgs
):
    door, theirs, early = two_orgs
    other = early.org
    before, theirs_before = everything(boss, org, meetup), everything(theirs, other, early)
    erased = boss.post_json(f"{person(org)}/erase", {"reason": "Asked by e-mail on 1 December"})
    assert erased.json == {"entries": 1, "bans": 1, "events": 2}  # her check-in and ban here

    after = everything(boss, org, meetup)
    for name in NAMES:  # nothing of this org's names her any more: answers, log, files
        assert name not in json.dumps(after, ensure_ascii=False), name
    assert after["list"]["counts"] == before["list"]["counts"]
    assert after["summary"]["counts"] == before["summary"]["counts"]
    assert after["summary"]["outcomes"] == before["summary"]["outcomes"]
    assert after["summary"]["arrivals"] == before["summary"]["arrivals"]
    numbers = {g["guest"]["username"]: g["rsvp"]["arrival_order"] for g in after["list"]["guests"]}
    assert numbers == {"bob": 1, "carol": None} and after["list"]["total"] == 2
    [gone] = events("GUEST_ERASED")
    assert (gone.guest_id, gone.reason, gone.details) == (None, "Asked by e-mail on 1 December", erased.json)
    shredded = [e for e in after["log"]["events"] if e["shredded"]]
    assert {e["event_type"] for e in shredded} == {"CHECK_IN", "BAN"}
    assert all(e["guest"] is None and e["reason"] is None for e in shredded)
    assert everything(theirs, other, early) == theirs_before  # the other org: every record as it was
    assert door.get(f"/guests/{ALICE}").json["username"] == "alice"  # she is still theirs


def test_afterwards_the_person_is_not_found_in_that_org_and_back_once_a_list_has_them_again(
    boss, org, meetup, two_orgs
):
    door = two_orgs[0]
    boss.post_json(f"{person(org)}/erase", {"reason": "Asked at the door"})
    for path in (
        f"{person(org)}/history",
        f"{person(org)}/export",
        f"/organizations/{org.id}/events/guests/{ALICE}",
    ):
        assert boss.get(path, status=404).json["code"] == "not_found"
    assert boss.patch_json(f"{person(org)}/ban", {"reason": "x"}, status=404).json["code"] == "not_found"
    assert boss.post_json(f"{person(org)}/erase", {"reason": "again"}, status=404).json["code"] == "not_found"
    checked = door.post_json(f"{base(meetup)}/guests/{ALICE}/checkin", {}, status=404).json
    assert checked["code"] == "not_found" and "alice" not in json.dumps(checked)
    assert door.get(f"{base(meetup)}/walkin-matches?q=alice").json == {"total": 0, "guests": []}
    # she comes back: a walk-in lists her again, a new arrival, and her page is there again
    again = door.post_json(f"{base(meetup)}/guests/{ALICE}/add-walkin", {"check_in": True}, status=201).json
    assert again["rsvp"]["arrival_order"] == 4
    assert boss.get(f"{person(org)}/history").json["attended"] == 1


def test_a_person_nothing_ties_to_anyone_any_more_is_deleted(boss, org, meetup, two_orgs):
    theirs, early = two_orgs[1], two_orgs[2]
    boss.post_json(f"{person(org)}/erase", {"reason": "Asked"})
    assert Guest.get_or_none(Guest.platform_user_id == ALICE) is not None  # the other org holds her
    assert theirs.post_json(f"{person(early.org)}/erase", {"reason": "Asked"}).json == {
        "entries": 1,
        "bans": 1,
        "events": 3,  # her walk-in, its check-in, her ban there
    }
    assert Guest.get_or_none(Guest.platform_user_id == ALICE) is None
    assert theirs.get(f"/guests/{ALICE}", status=404).json["code"] == "not_found"
    assert [e.guest_id for e in events() if e.guest_id == ALICE] == []  # GUEST_CREATED names no one now


def test_a_guest_let_in_by_name_is_deleted_with_their_door_answers(boss, door, org, meetup):
    key = {"Idempotency-Key": "a-key-of-the-door-0001"}
    made = door.post_json(
        f"{base(meetup)}/local-walkins", {"displayname": "Zed Nobody"}, headers=key, status=201
    )
    local = made.json["guest"]["platform_user_id"]
    assert IdempotencyKey.select().where(IdempotencyKey.org_id == org.id).count() == 1
    assert boss.post_json(f"{person(org, local)}/erase", {"reason": "Asked"}).json["entries"] == 1
    assert Guest.get_or_none(Guest.platform_user_id == local) is None
    assert IdempotencyKey.select().count() == 0  # the stored answer named them
    assert door.get(f"{base(meetup)}/guests").json["counts"]["walkins"] == 1
    assert boss.get(f"{base(meetup)}/summary").json["counts"]["local_walkins"] == 1


def test_eight_admins_erasing_one_person_at_once_erase_them_once(live_server, org, meetup, guest, make_user):
    admins = [auth(make_user(f"admin{i}", org=org, role="ADMIN")) for i in range(8)]
    url = f"{live_server}{person(org)}/erase"
    replies = at_once(
        8, lambda i: requests.post(url, json={"reason": "Asked"}, headers=admins[i], timeout=30)
    )
    assert sorted(r.status_code for r in replies) == [200] + [404] * 7
    assert len(events("GUEST_ERASED")) == 1


# --- the file of everything an org holds about one person -----------------------------------------------


def test_an_export_holds_the_persons_entries_bans_and_events_as_a_download(boss, org, meetup, two_orgs):
    reply = boss.get(f"{person(org)}/export")
    assert reply.headers["Content-Disposition"] == f'attachment; filename="guest-{ALICE}.json"'
    held = reply.json
    assert held["guest"]["username"] == "alice" and held["guest"]["displayname"] == "Alice Ångström"
    [only] = held["entries"]
    assert only["meetup"] == {
        "id": str(meetup.id),
        "name": meetup.name,
        "date": meetup.date.isoformat() + "Z",
    }
    assert (only["rsvp"]["has_arrived"], only["rsvp"]["arrival_order"]) == (True, 2)
    assert only["rsvp"]["checked_in_by"]["username"] == "sam"
    assert [(b["reason"], b["banned_by"]["username"]) for b in held["bans"]] == [("Rude to the door", "boss")]
    assert [e["event_type"] for e in held["events"]] == ["BAN", "CHECK_IN"]  # this org's, newest first
    assert "Trouble at breakfast" not in reply.text and "Breakfast" not in reply.text  # the other org's


def test_an_export_of_someone_this_org_never_listed_holds_only_who_they_are(boss, org):
    stranger = add_guest(77, "stranger")
    held = boss.get(f"{person(org, stranger.platform_user_id)}/export").json
    assert (held["entries"], held["bans"], held["events"]) == ([], [], [])
    assert boss.get(f"{person(org, 78)}/export", status=404).json["code"] == "not_found"


def test_a_meetup_older_than_its_org_keeps_guests_is_not_synced_again(boss, org, meetup):
    Meetup.update(date=utcnow() - timedelta(days=75)).where(Meetup.id == meetup.id).execute()
    boss.post(f"{base(meetup)}/sync")  # within the 12 months kept: synced (the demo platform has its event)
    boss.patch_json(privacy(org), {"keep_guests_months": 1})
    refused = boss.post(f"{base(meetup)}/sync", status=409).json
    assert refused["code"] == "meetup_forgotten" and "1 months" in refused["detail"]


def test_the_document_says_erased_data_leaves_the_backups_within_14_days(client):
    erase = client.get("/openapi.json").json["paths"][
        "/organizations/{org_id}/guests/{platform_user_id}/erase"
    ]
    said = f"Erased data leaves Door's daily backups as they rotate out: within {KEEP} days."  # one a day
    assert said in " ".join(erase["post"]["description"].split())


def test_the_orgs_tags_and_note_on_a_person_are_in_their_file_and_go_with_an_erasure(
    boss, org, meetup, two_orgs
):
    speaker = boss.post_json(f"/organizations/{org.id}/tags", {"label": "Speaker", "color": "purple"}).json
    note = "Uses the step-free entrance"
    boss.put_json(f"{person(org)}/tags", {"tags": [speaker["id"]], "note": note})
    held = boss.get(f"{person(org)}/export").json
    assert held["tags"] == {"tags": [speaker], "note": note}
    boss.post_json(f"{person(org)}/erase", {"reason": "Asked at the door"})
    boss.get(f"{person(org)}/tags", status=404)
    [tagged] = events("GUEST_TAGGED")  # her tags and note, as set, are shredded with the rest of her events
    assert tagged.shredded and tagged.guest_id is None and tagged.details == {}
    log = json.dumps(boss.get(f"/organizations/{org.id}/events/?limit=200").json, ensure_ascii=False)
    assert note not in log
    door = two_orgs[0]
    door.post_json(f"{base(meetup)}/guests/{ALICE}/add-walkin", {}, status=201)  # on its list again
    assert boss.get(f"{person(org)}/tags").json == {"tags": [], "note": None}  # with no tags here
