"""Organizations, members and user search."""

import pytest
from helpers import events

from doorapp.models import Membership


def test_site_admin_creates_lists_and_edits_organizations(admin, root):
    created = admin.post_json(
        "/organizations/", {"name": "Night Owls", "slug": "night-owls"}, status=201
    ).json
    assert set(created) == {"id", "name", "slug", "created_at", "time_zone"}
    admin.post_json("/organizations/", {"name": "Early Birds", "slug": "early-birds"}, status=201)
    listed = admin.get("/organizations/").json
    assert listed["total"] == 2 and [o["name"] for o in listed["organizations"]] == [
        "Early Birds",
        "Night Owls",
    ]
    edited = admin.patch_json(f"/organizations/{created['id']}", {"slug": "owls"}).json
    assert edited["slug"] == "owls" and edited["name"] == "Night Owls"
    event = events()[-1]
    assert (event.event_type, event.actor_id, str(event.org_id)) == ("ORG_UPDATED", root.id, created["id"])
    assert event.details == {"changes": {"slug": {"old": "night-owls", "new": "owls"}}}


@pytest.mark.parametrize(
    "body, code",
    [
        ({"name": "Night Owls", "slug": "other"}, "org_name_taken"),
        ({"name": "Other", "slug": "night-owls"}, "org_slug_taken"),
    ],
)
def test_names_and_slugs_are_unique(admin, org, body, code):
    assert admin.post_json("/organizations/", body, status=409).json["code"] == code


@pytest.mark.parametrize(
    "body, fields",
    [({"name": "x", "slug": "Bad Slug"}, ["name", "slug"]), ({"name": "  ", "slug": "a"}, ["name", "slug"])],
)
def test_bad_org_fields(admin, body, fields):
    reply = admin.post_json("/organizations/", body, status=422)
    assert [e["loc"][1] for e in reply.json["errors"]] == fields


def test_members_see_their_org_and_others_do_not(org, make_user, as_user, admin):
    staff = as_user(make_user("sam", org=org))
    assert staff.get(f"/organizations/{org.id}").json["name"] == "Night Owls"
    outsider = as_user(make_user("olga"))
    assert outsider.get(f"/organizations/{org.id}", status=403).json["code"] == "not_org_member"
    missing = "00000000-0000-0000-0000-000000000000"
    assert outsider.get(f"/organizations/{missing}", status=403).json["code"] == "not_org_member"
    assert admin.get(f"/organizations/{missing}", status=404).json["code"] == "not_found"
    assert admin.get("/organizations/not-a-uuid", status=422).json["errors"][0]["loc"] == ["path", "org_id"]


def test_org_admin_manages_members_with_audit_events(org, make_user, as_user):
    boss = make_user("boss", org=org, role="ADMIN")
    sam = make_user("sam")
    session = as_user(boss)
    added = session.post_json(f"/organizations/{org.id}/members/{sam.id}", {"role": "STAFF"}, status=201).json
    assert added == {"user_id": sam.id, "username": "sam", "role": "STAFF"}
    assert (events()[-1].event_type, events()[-1].details["role"]) == ("MEMBER_ADDED", "STAFF")
    assert (
        session.post_json(f"/organizations/{org.id}/members/{sam.id}", {"role": "STAFF"}, status=409).json[
            "code"
        ]
        == "already_member"
    )
    assert (
        session.patch_json(f"/organizations/{org.id}/members/{sam.id}", {"role": "ADMIN"}).json["role"]
        == "ADMIN"
    )
    assert events()[-1].details == {"user_id": sam.id, "username": "sam", "old": "STAFF", "new": "ADMIN"}
    members = session.get(f"/organizations/{org.id}/members").json
    assert members == {
        "total": 2,
        "members": [
            {"user_id": boss.id, "username": "boss", "role": "ADMIN"},
            {"user_id": sam.id, "username": "sam", "role": "ADMIN"},
        ],
    }
    session.delete(f"/organizations/{org.id}/members/{sam.id}", status=204)
    assert events()[-1].event_type == "MEMBER_REMOVED"
    assert session.delete(f"/organizations/{org.id}/members/{sam.id}", status=404).json["code"] == "not_found"
    assert (
        session.post_json(f"/organizations/{org.id}/members/999", {"role": "STAFF"}, status=404).json["code"]
        == "not_found"
    )


def test_org_admin_cannot_demote_or_remove_themselves_but_a_site_admin_can(
    org, make_user, as_user, admin, root
):
    boss = make_user("boss", org=org, role="ADMIN")
    session = as_user(boss)
    for reply in (
        session.patch_json(f"/organizations/{org.id}/members/{boss.id}", {"role": "STAFF"}, status=409),
        session.delete(f"/organizations/{org.id}/members/{boss.id}", status=409),
    ):
        assert reply.json["code"] == "cannot_modify_self"
    Membership.create(user=root, org=org, role="ADMIN")
    admin.patch_json(f"/organizations/{org.id}/members/{root.id}", {"role": "STAFF"})
    admin.delete(f"/organizations/{org.id}/members/{root.id}", status=204)
