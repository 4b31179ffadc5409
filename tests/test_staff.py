"""Staff administration by site admins."""

import threading

import pytest
import requests
from helpers import events

from doorapp import access
from doorapp.models import Membership, User


def test_lists_all_staff_and_the_pending_ones(admin, make_user, org):
    make_user("dana", org=org, role="ADMIN")
    make_user("erin", is_approved=False)
    everyone = admin.get("/staff/").json
    assert everyone["total"] == 3 and [u["username"] for u in everyone["users"]] == ["root", "dana", "erin"]
    assert everyone["users"][1]["org_memberships"][0]["role"] == "ADMIN"
    assert all("password_hash" not in u and "recovery_code_hash" not in u for u in everyone["users"])
    pending = admin.get("/staff/pending").json
    assert [u["username"] for u in pending["users"]] == ["erin"] and pending["total"] == 1


def test_approve_then_revoke(admin, make_user, client):
    erin = make_user("erin", is_approved=False)
    assert admin.patch_json(f"/staff/{erin.id}/approve", {"is_approved": True}).json["is_approved"] is True
    client.post("/auth/token", {"username": "erin", "password": "correct horse battery staple"})
    assert admin.patch_json(f"/staff/{erin.id}/approve", {"is_approved": False}).json["is_approved"] is False
    assert (
        client.post(
            "/auth/token", {"username": "erin", "password": "correct horse battery staple"}, status=403
        ).json["code"]
        == "account_pending"
    )


def test_role_change_is_stored_for_the_next_sign_in(admin, make_user):
    dana = make_user("dana")
    assert admin.patch_json(f"/staff/{dana.id}/role", {"role": "SITE_ADMIN"}).json["role"] == "SITE_ADMIN"
    reply = admin.patch_json(f"/staff/{dana.id}/role", {"role": "GOD"}, status=422)
    assert reply.json["errors"] == [
        {
            "loc": ["body", "role"],
            "msg": "Must be one of USER, SITE_ADMIN.",
            "type": "choice",
            "ctx": {"choices": ["USER", "SITE_ADMIN"]},
        }
    ]


def test_disable_keeps_history_and_enable_restores(admin, make_user, as_user):
    dana = make_user("dana")
    session = as_user(dana)
    reply = admin.patch_json(f"/staff/{dana.id}/disable", {"reason": "left the club"}).json
    assert reply["is_disabled"] and reply["disabled_reason"] == "left the club" and reply["disabled_at"]
    assert session.get("/auth/userinfo", status=403).json["code"] == "account_disabled"
    assert admin.patch(f"/staff/{dana.id}/disable", status=409).json["code"] == "already_disabled"
    assert User.get_by_id(dana.id).username == "dana"
    enabled = admin.patch(f"/staff/{dana.id}/enable").json
    assert not enabled["is_disabled"] and enabled["disabled_at"] is None
    assert admin.patch(f"/staff/{dana.id}/enable", status=409).json["code"] == "not_disabled"
    assert session.get("/auth/userinfo", status=401).json["code"] == "invalid_token"  # disabling ended it


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("PATCH", "/staff/{id}/approve", {"is_approved": False}),
        ("PATCH", "/staff/{id}/role", {"role": "USER"}),
        ("PATCH", "/staff/{id}/disable", {}),
    ],
)
def test_a_site_admin_cannot_lock_themselves_out(admin, root, method, path, body):
    reply = admin.request(
        path.format(id=root.id), method=method, json=body, status=409, content_type="application/json"
    )
    assert reply.json["code"] == "cannot_modify_self"
    assert User.get_by_id(root.id).is_approved and User.get_by_id(root.id).role == "SITE_ADMIN"


def test_unknown_and_malformed_user_ids(admin):
    assert admin.patch("/staff/999/enable", status=404).json["code"] == "not_found"
    reply = admin.patch("/staff/abc/enable", status=422)
    assert reply.json["errors"] == [
        {
            "loc": ["path", "user_id"],
            "msg": "Must be a whole number.",
            "type": "type",
            "ctx": {"expected": "integer"},
        }
    ]


def test_recovery_code_is_shown_once_and_stored_hashed(admin, make_user):
    dana = make_user("dana")
    reply = admin.post(f"/staff/{dana.id}/recovery-code", status=201).json
    assert reply["username"] == "dana" and reply["expires_at"].endswith("Z")
    stored = User.get_by_id(dana.id)
    assert stored.recovery_code_hash.startswith("$argon2id$") and not stored.recovery_code_used
    assert reply["code"] not in admin.get("/staff/").text


# --- onboarding in one step: approve and add to an organization --------------------------------------

NO_ORG = "00000000-0000-4000-8000-000000000000"


def org_log(admin, org):
    """The organization's audit log as (type, actor, details), oldest first, read through the API."""
    events = admin.get(f"/organizations/{org.id}/events/").json["events"]
    return [(e["event_type"], e["actor"]["username"], e["details"]) for e in reversed(events)]


def test_approving_can_add_the_account_to_an_organization_with_a_role(admin, make_user, org, as_user):
    erin = make_user("erin", is_approved=False)
    reply = admin.patch_json(
        f"/staff/{erin.id}/approve", {"is_approved": True, "org_id": str(org.id), "role": "ADMIN"}
    ).json
    assert reply["is_approved"] is True
    assert reply["org_memberships"] == [
        {"org_id": str(org.id), "org_name": org.name, "org_slug": org.slug, "role": "ADMIN"}
    ]
    assert org_log(admin, org) == [
        ("MEMBER_ADDED", "root", {"user_id": erin.id, "username": "erin", "role": "ADMIN"})
    ]
    # erin works the org's doors at once: an org-admin-only list answers her
    assert as_user(erin).get(f"/organizations/{org.id}/members").json["total"] == 1


def test_the_role_defaults_to_staff(admin, make_user, org):
    erin = make_user("erin", is_approved=False)
    reply = admin.patch_json(f"/staff/{erin.id}/approve", {"is_approved": True, "org_id": str(org.id)}).json
    assert [m["role"] for m in reply["org_memberships"]] == ["STAFF"]


def test_an_approval_that_cannot_add_the_member_changes_nothing(admin, make_user, org):
    erin = make_user("erin", org=org, role="STAFF", is_approved=False)
    reply = admin.patch_json(
        f"/staff/{erin.id}/approve", {"is_approved": True, "org_id": str(org.id)}, status=409
    ).json
    assert reply["code"] == "already_member" and "erin" in reply["detail"]
    assert User.get_by_id(erin.id).is_approved is False and org_log(admin, org) == []


@pytest.mark.parametrize(
    "body, loc",
    [
        ({"is_approved": True, "role": "ADMIN"}, ["body", "role"]),
        ({"is_approved": False, "org_id": NO_ORG}, ["body", "org_id"]),
        ({"is_approved": True, "org_id": "night-owls"}, ["body", "org_id"]),
        ({"is_approved": True, "org_id": NO_ORG, "role": "OWNER"}, ["body", "role"]),
    ],
)
def test_org_and_role_out_of_place_are_422_and_change_nothing(admin, make_user, body, loc):
    erin = make_user("erin", is_approved=False)
    reply = admin.patch_json(f"/staff/{erin.id}/approve", body, status=422).json
    assert [e["loc"] for e in reply["errors"]] == [loc]
    assert User.get_by_id(erin.id).is_approved is False


def test_an_unknown_organization_is_404_and_the_account_stays_pending(admin, make_user):
    erin = make_user("erin", is_approved=False)
    reply = admin.patch_json(f"/staff/{erin.id}/approve", {"is_approved": True, "org_id": NO_ORG}, status=404)
    assert reply.json["code"] == "not_found" and "organization" in reply.json["detail"]
    assert User.get_by_id(erin.id).is_approved is False


def test_only_a_site_admin_approves_into_an_organization(make_user, org, as_user):
    boss = as_user(make_user("boss", org=org, role="ADMIN"))
    erin = make_user("erin", is_approved=False)
    reply = boss.patch_json(
        f"/staff/{erin.id}/approve", {"is_approved": True, "org_id": str(org.id)}, status=403
    )
    assert reply.json["code"] == "site_admin_required" and not User.get_by_id(erin.id).is_approved


def test_two_admins_approving_into_the_same_org_at_once_add_one_membership(
    live_server, config, root, make_user, org
):
    """Over a real server, both requests in flight together: one 200, one 409, one MEMBER_ADDED."""
    other = make_user("ada", site_admin=True)
    erin = make_user("erin", is_approved=False)
    start, answers = threading.Barrier(2), []

    def approve(admin):
        headers = {"Authorization": f"Bearer {access.issue_token(config.secret_key, admin, 60)}"}
        start.wait()
        answers.append(
            requests.patch(
                f"{live_server}/staff/{erin.id}/approve",
                headers=headers,
                timeout=30,
                json={"is_approved": True, "org_id": str(org.id), "role": "STAFF"},
            )
        )

    threads = [threading.Thread(target=approve, args=(admin,)) for admin in (root, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(a.status_code for a in answers) == [200, 409]
    assert Membership.select().where(Membership.user == erin.id).count() == 1
    assert len(events("MEMBER_ADDED")) == 1
    assert User.get_by_id(erin.id).is_approved
