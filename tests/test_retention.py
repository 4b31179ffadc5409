"""Retention through a served Door (`doorapp serve` forgets, as it starts, what each organization keeps no
longer; then every hour): a meetup dated 75 days ago, in an organization that keeps guests one month,
loses its guests and keeps its numbers, on SQLite and PostgreSQL. Times are derived from now."""

from datetime import timedelta

import requests
from helpers import DOORAPP, ENGINES, SECRET, add_guest, auth, base, entry, served

from doorapp.db import db, utcnow
from doorapp.models import AuditEvent, Ban, Guest, Meetup, MeetupGuest

pytestmark = ENGINES

ALICE = 9007199254740993


def test_a_served_door_forgets_at_start_what_its_organizations_keep_no_longer(
    config, boss, boss_user, door, org, meetup, guest
):
    boss.patch_json(
        f"/organizations/{org.id}/privacy",
        {"keep_guests_months": 1, "keep_bans_months": 1, "keep_audit_details_months": 1},
    )
    bob = add_guest(11, "bob", meetup)
    local = door.post_json(f"{base(meetup)}/local-walkins", {"displayname": "Zed Nobody"}, status=201).json
    for guest_id in (ALICE, 11):  # 2 and 3: the walk-in by name was 1
        door.post_json(f"{base(meetup)}/guests/{guest_id}/checkin", {})
    door.patch_json(f"{entry(meetup, bob)}/undo-checkin", {"reason": "Bob's brother, not Bob"})
    boss.patch_json(f"/organizations/{org.id}/guests/{ALICE}/ban", {"reason": "Shouted at Bob"})
    tag = boss.post_json(f"/organizations/{org.id}/tags", {"label": "See a host", "color": "red"}).json
    boss.put_json(f"/organizations/{org.id}/guests/{ALICE}/tags", {"tags": [tag["id"]], "note": "Ask Sam"})
    recent = Meetup.create(org=org, name="Last week", date=utcnow() - timedelta(days=5), platform_url="")
    add_guest(12, "carol", recent)
    door.post_json(f"{base(recent)}/guests/12/checkin", {})
    long_ago = utcnow() - timedelta(days=75)  # the night, its events and the ban, more than a month ago
    Meetup.update(date=long_ago).where(Meetup.id == meetup.id).execute()
    Ban.update(banned_at=long_ago).execute()
    elsewhen = AuditEvent.meetup_id.is_null() | (AuditEvent.meetup_id != recent.id)
    AuditEvent.update(timestamp=long_ago).where(elsewhen).execute()
    old_list, old_summary = door.get(f"{base(meetup)}/guests").json, door.get(f"{base(meetup)}/summary").json
    recent_list = door.get(f"{base(recent)}/guests").json
    old_events = AuditEvent.select().where(AuditEvent.org == org.id, elsewhen).count()
    db.close()

    settings = {
        "DOOR_SECRET_KEY": SECRET,
        **({"DATABASE_URL": config.database_url} if config.database_url else {}),
    }
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", config.data_dir, env=settings) as served_door:
        at, headers = served_door.url, auth(boss_user)
        listed = requests.get(f"{at}{base(meetup)}/guests", headers=headers, timeout=30).json()
        summary = requests.get(f"{at}{base(meetup)}/summary", headers=headers, timeout=30).json()
        still = requests.get(f"{at}{base(recent)}/guests", headers=headers, timeout=30).json()
        log = requests.get(
            f"{at}/organizations/{org.id}/events/?limit=200", headers=headers, timeout=30
        ).json()
        found = requests.get(f"{at}/guests/?q=bob", headers=headers, timeout=30).json()
        tagged = requests.get(f"{at}/organizations/{org.id}/guests/{ALICE}/tags", headers=headers, timeout=30)
        assert served_door.stop() == 0
    assert any("retention in org" in line for line in served_door.log)

    # the night long ago: nobody on its list or in its summary's lines, every number as it was
    assert (listed["guests"], listed["total"], listed["counts"]) == ([], 0, old_list["counts"])
    assert summary["guests"] == [] and summary["counts"] == old_summary["counts"]
    assert (summary["outcomes"], summary["arrivals"]) == (old_summary["outcomes"], old_summary["arrivals"])
    assert summary["counts"]["local_walkins"] == 1 and summary["counts"]["undone_check_ins"] == 1
    assert still == recent_list  # last week's night is kept
    # its guests: the one let in by name and bob (nothing else of theirs) are gone; alice's ban ended
    assert Guest.get_or_none(Guest.platform_user_id == local["guest"]["platform_user_id"]) is None
    assert Guest.get_or_none(Guest.platform_user_id == 11) is None and found["total"] == 0
    assert Ban.select().count() == 0
    # alice is kept (her ban's end names her) but the org lists her no longer: its tags and note on her go
    assert tagged.json() == {"tags": [], "note": None}
    by_type = {}
    for event in log["events"]:
        by_type.setdefault(event["event_type"], []).append(event)
    [expired] = by_type["BAN_EXPIRED"]
    assert (expired["guest"]["username"], expired["actor"], expired["shredded"]) == ("alice", None, False)
    [applied] = by_type["RETENTION_APPLIED"]
    assert applied["details"] == {"entries": 3, "guests_deleted": 2, "bans": 1, "events": old_events}
    shredded = [e for e in log["events"] if e["shredded"]]
    assert len(shredded) == old_events
    assert all(e["guest"] is None and e["reason"] is None for e in shredded)
    [undo] = [e for e in shredded if e["event_type"] == "UNDO_CHECK_IN"]
    assert undo["details"]["arrival_order"] == 3 and undo["actor"]["username"] == "sam"  # numbers, actor kept
    assert "Bob" not in str(shredded) and "Zed" not in str(shredded)  # the reasons, the undo's too
    assert {"BAN", "ORG_UPDATED", "CHECK_IN", "WALKIN"} <= {e["event_type"] for e in shredded}
    kept = MeetupGuest.select().where(MeetupGuest.meetup == meetup.id).count()
    assert kept == 3  # the entries stay, nameless: the counts are theirs
