"""Bans: admins ban and unban per organization; members read the banned list."""

from helpers import events

from doorapp.models import Ban, Guest, Org


def guest_path(org, guest):
    return f"/organizations/{org.id}/guests/{guest.platform_user_id}"


def test_an_admin_bans_a_guest_with_a_reason(boss, boss_user, org, guest):
    reply = boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "  Threw a chair  "}).json
    banned_at = reply.pop("banned_at")
    assert reply == {
        "platform_user_id": 9007199254740993,
        "username": "alice",
        "displayname": "Alice Ångström",
        "reason": "Threw a chair",
        "banned_by": {"id": boss_user.id, "username": "boss"},
    }
    assert banned_at.endswith("Z")
    [event] = events()
    assert (event.event_type, event.actor_id, event.org_id, event.guest_id, event.reason) == (
        "BAN",
        boss_user.id,
        org.id,
        guest.platform_user_id,
        "Threw a chair",
    )


def test_members_read_the_banned_list_by_username(boss, door, org, guest):
    zed = Guest.create(platform_user_id=2, username="zed")
    bob = Guest.create(platform_user_id=3, username="bob")
    assert door.get(f"/organizations/{org.id}/guests/banned").json == {"total": 0, "guests": []}
    for g in (zed, guest, bob):
        boss.patch_json(f"{guest_path(org, g)}/ban", {"reason": f"reason of {g.username}"})
    listed = door.get(f"/organizations/{org.id}/guests/banned").json
    assert listed["total"] == 3
    assert [(g["username"], g["reason"]) for g in listed["guests"]] == [
        ("alice", "reason of alice"),
        ("bob", "reason of bob"),
        ("zed", "reason of zed"),
    ]
    assert set(listed["guests"][0]) == {
        "platform_user_id",
        "username",
        "displayname",
        "reason",
        "banned_at",
        "banned_by",
    }
    assert listed["guests"][0]["banned_by"]["username"] == "boss"


def test_a_ban_is_per_organization(boss, make_user, as_user, org, guest):
    other = Org.create(name="Early Birds", slug="early-birds")
    their_admin = as_user(make_user("eve", org=other, role="ADMIN"))
    boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "Rude"})
    assert their_admin.get(f"/organizations/{other.id}/guests/banned").json["total"] == 0
    their_admin.patch_json(f"{guest_path(other, guest)}/ban", {"reason": "Loud"})
    assert [b.reason for b in Ban.select().order_by(Ban.id)] == ["Rude", "Loud"]
    assert boss.get(f"/organizations/{other.id}/guests/banned", status=403).json["code"] == "not_org_member"


def test_ban_refusals(boss, door, org, guest):
    assert boss.patch_json(f"{guest_path(org, guest)}/ban", {}, status=422).json["errors"] == [
        {"loc": ["body", "reason"], "msg": "Field required.", "type": "missing", "ctx": {}}
    ]
    assert (
        boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": " "}, status=422).json["errors"][0]["msg"]
        == "Must not be blank."
    )
    too_long = boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "x" * 501}, status=422).json
    assert too_long["errors"][0]["loc"] == ["body", "reason"]
    assert (
        boss.patch_json(f"/organizations/{org.id}/guests/424242/ban", {"reason": "x"}, status=404).json[
            "code"
        ]
        == "not_found"
    )
    assert (
        door.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "x"}, status=403).json["code"]
        == "org_admin_required"
    )
    boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "First"})
    reply = boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "Second"}, status=409).json
    assert reply["code"] == "already_banned"
    assert [(e.event_type, e.reason) for e in events()] == [("BAN", "First")]
    assert Ban.get().reason == "First"


def test_unban_lifts_the_ban_and_logs_what_it_was(boss, boss_user, org, guest):
    boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "Threw a chair"})
    reply = boss.patch(f"{guest_path(org, guest)}/unban").json
    assert reply == {
        "platform_user_id": 9007199254740993,
        "username": "alice",
        "displayname": "Alice Ångström",
        "created_at": reply["created_at"],
    }
    assert boss.get(f"/organizations/{org.id}/guests/banned").json["total"] == 0
    ban, unban = events()
    assert (unban.event_type, unban.actor_id, unban.guest_id, unban.details) == (
        "UNBAN",
        boss_user.id,
        guest.platform_user_id,
        {"ban_reason": "Threw a chair"},
    )
    assert boss.patch(f"{guest_path(org, guest)}/unban", status=409).json["code"] == "not_banned"
    assert len(events()) == 2
    boss.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "Again"})  # and a new ban works
    assert Ban.get().reason == "Again"


def test_a_site_admin_bans_in_any_org_and_gets_404_for_no_org(make_user, as_user, org, guest):
    root = as_user(make_user("root", site_admin=True))
    root.patch_json(f"{guest_path(org, guest)}/ban", {"reason": "Site-wide trouble"})
    missing = "/organizations/00000000-0000-0000-0000-000000000000"
    assert root.get(f"{missing}/guests/banned", status=404).json["code"] == "not_found"
    assert (
        root.patch_json(f"{missing}/guests/{guest.platform_user_id}/ban", {"reason": "x"}, status=404).json[
            "code"
        ]
        == "not_found"
    )
