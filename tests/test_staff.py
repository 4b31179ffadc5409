"""Staff administration by site admins."""

import pytest

from doorapp.models import User


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
    assert client.post("/auth/token", {"username": "erin", "password": "correct horse battery staple"},
                       status=403).json["code"] == "account_pending"


def test_role_change_is_stored_for_the_next_sign_in(admin, make_user):
    dana = make_user("dana")
    assert admin.patch_json(f"/staff/{dana.id}/role", {"role": "SITE_ADMIN"}).json["role"] == "SITE_ADMIN"
    reply = admin.patch_json(f"/staff/{dana.id}/role", {"role": "GOD"}, status=422)
    assert reply.json["errors"] == [{"loc": ["body", "role"], "msg": "Must be one of USER, SITE_ADMIN."}]


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
    session.get("/auth/userinfo")


@pytest.mark.parametrize("method, path, body", [
    ("PATCH", "/staff/{id}/approve", {"is_approved": False}),
    ("PATCH", "/staff/{id}/role", {"role": "USER"}),
    ("PATCH", "/staff/{id}/disable", {}),
])
def test_a_site_admin_cannot_lock_themselves_out(admin, root, method, path, body):
    reply = admin.request(path.format(id=root.id), method=method, json=body, status=409)
    assert reply.json["code"] == "cannot_modify_self"
    assert User.get_by_id(root.id).is_approved and User.get_by_id(root.id).role == "SITE_ADMIN"


def test_unknown_and_malformed_user_ids(admin):
    assert admin.patch("/staff/999/enable", status=404).json["code"] == "not_found"
    reply = admin.patch("/staff/abc/enable", status=422)
    assert reply.json["errors"] == [{"loc": ["path", "user_id"], "msg": "Must be a whole number."}]


def test_recovery_code_is_shown_once_and_stored_hashed(admin, make_user):
    dana = make_user("dana")
    reply = admin.post(f"/staff/{dana.id}/recovery-code", status=201).json
    assert reply["username"] == "dana" and reply["expires_at"].endswith("Z")
    stored = User.get_by_id(dana.id)
    assert stored.recovery_code_hash.startswith("$argon2id$") and not stored.recovery_code_used
    assert reply["code"] not in admin.get("/staff/").text
