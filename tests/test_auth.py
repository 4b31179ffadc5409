"""Accounts: register, sign in, userinfo, recovery codes, first-run setup, and the token rules (a token's
life, its end with a password change or a disabled account)."""

from datetime import timedelta

import argon2
import jwt
import pytest
import time_machine
from helpers import PASSWORD, SECRET
from webtest import TestApp

from doorapp.api.setup import issue_setup_code
from doorapp.app import create_app
from doorapp.db import utcnow
from doorapp.models import User

NEW_PASSWORD = "another long enough passphrase"


def sign_in(client, username, password=PASSWORD, status=200, **headers):
    return client.post(
        "/auth/token", {"username": username, "password": password}, headers=headers, status=status
    )


# --- register ---------------------------------------------------------------------------------------


def test_a_new_account_is_pending_and_never_shows_secrets(client):
    reply = client.post_json("/auth/register", {"username": "dana", "password": PASSWORD}, status=201)
    assert reply.json == {
        "id": reply.json["id"],
        "username": "dana",
        "role": "USER",
        "is_approved": False,
        "is_disabled": False,
        "disabled_at": None,
        "disabled_reason": None,
        "created_at": reply.json["created_at"],
        "org_memberships": [],
    }
    assert reply.json["created_at"].endswith("Z")
    assert User.get(User.username == "dana").password_hash.startswith("$argon2id$")
    assert sign_in(client, "dana", status=403).json["code"] == "account_pending"


@pytest.mark.parametrize(
    "body, fields",
    [
        ({}, ["username", "password"]),
        ({"username": "has space", "password": "x" * 14}, ["username", "password"]),
        ({"username": "tab\tname", "password": PASSWORD}, ["username"]),
        ({"username": "x" * 65, "password": "x" * 129}, ["username", "password"]),
        ({"username": 7, "password": None}, ["username", "password"]),
    ],
)
def test_register_lists_every_bad_field_at_once(client, body, fields):
    reply = client.post_json("/auth/register", body, status=422)
    assert reply.json["code"] == "validation_error"
    assert [e["loc"] for e in reply.json["errors"]] == [["body", f] for f in fields]


def test_usernames_are_unique_and_case_sensitive(client, make_user):
    make_user("dana")
    assert (
        client.post_json("/auth/register", {"username": "dana", "password": PASSWORD}, status=409).json[
            "code"
        ]
        == "username_taken"
    )
    client.post_json("/auth/register", {"username": "Dana", "password": PASSWORD}, status=201)


@pytest.mark.parametrize(
    "body, content_type, status, code",
    [
        (b"{not json", "application/json", 400, "malformed_json"),
        (b"[1, 2]", "application/json", 422, "validation_error"),
        (b'"text"', "application/json", 422, "validation_error"),
        (b'{"username": "\xff"}', "application/json", 400, "malformed_json"),
        (b"username=x", "text/plain", 415, "unsupported_media_type"),
        (b'{"username": "' + b"x" * 70000 + b'"}', "application/json", 413, "body_too_large"),
    ],
)
def test_hostile_bodies_get_clear_4xx_answers(client, body, content_type, status, code):
    reply = client.post("/auth/register", body, content_type=content_type, status=status)
    assert reply.json["code"] == code and reply.content_type == "application/problem+json"


def test_unknown_fields_are_ignored_and_an_empty_body_is_an_empty_object(client):
    client.post_json(
        "/auth/register", {"username": "eve", "password": PASSWORD, "role": "SITE_ADMIN"}, status=201
    )
    assert User.get(User.username == "eve").role == "USER"
    assert client.post("/auth/register", status=422).json["code"] == "validation_error"


# --- sign in ----------------------------------------------------------------------------------------


def test_sign_in_gives_an_hs256_token_with_the_documented_claims(client, make_user):
    make_user("dana")
    reply = sign_in(client, "dana")
    assert reply.headers["Cache-Control"] == "no-store"
    assert reply.json["token_type"] == "bearer" and reply.json["expires_in"] == 720 * 60
    token = reply.json["access_token"]
    assert jwt.get_unverified_header(token)["alg"] == "HS256"
    claims = jwt.decode(token, SECRET, algorithms=["HS256"])
    assert (
        set(claims) == {"sub", "role", "iat", "exp"} and claims["sub"] == "dana" and claims["role"] == "USER"
    )
    assert claims["exp"] - claims["iat"] == 720 * 60


def test_sign_in_accepts_the_oauth2_extras_and_refuses_json(client, make_user):
    make_user("dana")
    client.post(
        "/auth/token",
        {
            "username": "dana",
            "password": PASSWORD,
            "grant_type": "password",
            "scope": "",
            "client_id": "x",
            "client_secret": "y",
        },
        headers={"Authorization": "Basic eDp5"},
    )
    reply = client.post_json("/auth/token", {"username": "dana", "password": PASSWORD}, status=415)
    assert reply.json["code"] == "unsupported_media_type"


def test_a_hash_of_older_parameters_is_replaced_at_sign_in_and_the_password_still_works(client, make_user):
    """Hashes made with argon2-cffi's defaults (64 MiB, 4 lanes: Door's before) verify, and the sign-in
    stores one with today's parameters (19 MiB, 2 passes, 1 lane)."""
    old = argon2.PasswordHasher().hash(PASSWORD)
    make_user("dana", password_hash=old)
    sign_in(client, "dana")
    stored = User.get(User.username == "dana").password_hash
    assert old.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    sign_in(client, "dana")
    assert User.get(User.username == "dana").password_hash == stored  # replaced once
    sign_in(client, "dana", "not the password at all", status=401)


def test_wrong_password_and_unknown_user_look_the_same(client, make_user):
    make_user("dana")
    wrong = sign_in(client, "dana", "not the password at all", status=401)
    unknown = sign_in(client, "nobody", status=401)
    assert wrong.json == unknown.json and wrong.json["code"] == "invalid_credentials"
    assert wrong.headers["WWW-Authenticate"] == "Bearer"


def test_disabled_account_cannot_sign_in(client, make_user):
    make_user("dana", is_disabled=True)
    assert sign_in(client, "dana", status=403).json["code"] == "account_disabled"


def test_eleventh_failed_sign_in_is_rate_limited_even_after_a_restart(client, make_user, config):
    make_user("dana")
    for _ in range(10):
        sign_in(client, "dana", "wrong password, again", status=401)
    reply = sign_in(client, "dana", status=429)  # even the right password waits
    assert reply.json["code"] == "rate_limited" and 1 <= int(reply.headers["Retry-After"]) <= 300
    restarted = TestApp(create_app(config))
    assert sign_in(restarted, "dana", status=429).json["code"] == "rate_limited"
    with time_machine.travel(utcnow() + timedelta(minutes=5, seconds=2)):
        sign_in(restarted, "dana")


def test_failures_count_per_address_too(client, make_user):
    make_user("dana")
    for n in range(10):
        client.post(
            "/auth/token",
            {"username": f"guess{n}", "password": "x"},
            extra_environ={"REMOTE_ADDR": "192.0.2.7"},
            status=401,
        )
    client.post(
        "/auth/token",
        {"username": "dana", "password": PASSWORD},
        extra_environ={"REMOTE_ADDR": "192.0.2.7"},
        status=429,
    )
    client.post(
        "/auth/token",
        {"username": "dana", "password": PASSWORD},
        extra_environ={"REMOTE_ADDR": "192.0.2.8"},
        status=200,
    )


def test_trusted_proxy_forwarded_address_is_the_one_counted(tmp_path, make_user, config):
    from dataclasses import replace

    proxied = TestApp(create_app(replace(config, trusted_proxies="127.0.0.0/8")))
    make_user("dana")
    for n in range(10):
        proxied.post(
            "/auth/token",
            {"username": f"guess{n}", "password": "x"},
            status=401,
            extra_environ={"REMOTE_ADDR": "127.0.0.1"},
            headers={"X-Forwarded-For": "203.0.113.5, 127.0.0.2"},
        )
    proxied.post(
        "/auth/token",
        {"username": "dana", "password": PASSWORD},
        status=429,
        extra_environ={"REMOTE_ADDR": "127.0.0.1"},
        headers={"X-Forwarded-For": "203.0.113.5"},
    )
    proxied.post(
        "/auth/token",
        {"username": "dana", "password": PASSWORD},
        status=200,
        extra_environ={"REMOTE_ADDR": "127.0.0.1"},
        headers={"X-Forwarded-For": "203.0.113.6"},
    )


# --- tokens on later requests -------------------------------------------------------------------------


def test_userinfo_shows_the_signed_in_user_with_memberships(org, make_user, as_user):
    dana = make_user("dana", org=org, role="ADMIN")
    assert as_user(dana).get("/auth/userinfo").json["org_memberships"] == [
        {"org_id": str(org.id), "org_name": "Night Owls", "org_slug": "night-owls", "role": "ADMIN"}
    ]


@pytest.mark.parametrize(
    "header, code",
    [
        (None, "not_authenticated"),
        ("Bearer", "not_authenticated"),
        ("Basic eDp5", "not_authenticated"),
        ("Bearer not.a.token", "invalid_token"),
        (
            "Bearer "
            + jwt.encode({"sub": "dana", "role": "USER", "exp": 9999999999}, "x" * 40, algorithm="HS256"),
            "invalid_token",
        ),
        (
            "Bearer "
            + jwt.encode({"sub": "dana", "role": "USER", "exp": 9999999999}, SECRET, algorithm="HS512"),
            "invalid_token",
        ),
        (
            "Bearer "
            + jwt.encode({"sub": "dana", "role": "USER", "exp": 9999999999}, None, algorithm="none"),
            "invalid_token",
        ),
        (
            "Bearer "
            + jwt.encode({"sub": "ghost", "role": "USER", "exp": 9999999999}, SECRET, algorithm="HS256"),
            "invalid_token",
        ),
        (
            "Bearer "
            + jwt.encode({"sub": "dana", "role": "ROOT", "exp": 9999999999}, SECRET, algorithm="HS256"),
            "invalid_token",
        ),
    ],
)
def test_bad_tokens_are_401_with_www_authenticate(client, make_user, header, code):
    make_user("dana")
    headers = {"Authorization": header} if header else {}
    reply = client.get("/auth/userinfo", headers=headers, status=401)
    assert reply.json["code"] == code and reply.headers["WWW-Authenticate"] == "Bearer"


def test_token_expires_after_the_configured_minutes(make_user, config):
    from dataclasses import replace

    client = TestApp(create_app(replace(config, access_token_expire_minutes=30)))
    make_user("dana")
    with time_machine.travel(utcnow().replace(microsecond=0), tick=False) as clock:
        token = sign_in(client, "dana").json["access_token"]
        claims = jwt.decode(token, SECRET, algorithms=["HS256"])
        assert claims["exp"] - claims["iat"] == 30 * 60
        headers = {"Authorization": f"Bearer {token}"}
        clock.shift(timedelta(minutes=29, seconds=59))
        client.get("/auth/userinfo", headers=headers)
        clock.shift(timedelta(seconds=2))
        assert client.get("/auth/userinfo", headers=headers, status=401).json["code"] == "invalid_token"


def test_role_is_fixed_at_sign_in(client, make_user, as_user):
    dana = make_user("dana")
    token = sign_in(client, "dana").json["access_token"]
    User.update(role="SITE_ADMIN").where(User.id == dana.id).execute()
    headers = {"Authorization": f"Bearer {token}"}
    assert client.get("/staff/", headers=headers, status=403).json["code"] == "site_admin_required"
    fresh = sign_in(client, "dana").json["access_token"]
    client.get("/staff/", headers={"Authorization": f"Bearer {fresh}"})


@pytest.mark.parametrize(
    "change, code", [({"is_disabled": True}, "account_disabled"), ({"is_approved": False}, "account_pending")]
)
def test_a_still_valid_token_is_refused_once_the_account_changes(make_user, as_user, change, code):
    dana = make_user("dana")
    session = as_user(dana)
    session.get("/auth/userinfo")
    User.update(**change).where(User.id == dana.id).execute()
    assert session.get("/auth/userinfo", status=403).json["code"] == code


# --- recovery codes ---------------------------------------------------------------------------------------


def new_code(admin, user):
    reply = admin.post(f"/staff/{user.id}/recovery-code", status=201)
    assert set(reply.json) == {"username", "code", "expires_at"}
    return reply.json["code"]


def test_recovery_code_resets_the_password_once(client, admin, make_user):
    dana = make_user("dana")
    code = new_code(admin, dana)
    assert len(code) == 6 and code.isdigit()
    stored = User.get_by_id(dana.id)
    assert stored.recovery_code_hash != code and code not in stored.recovery_code_hash
    for _ in range(2):  # verifying does not use it up
        assert client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": code}).json == {
            "valid": True
        }
    reply = client.post_json(
        "/auth/reset-password", {"username": "dana", "code": code, "new_password": NEW_PASSWORD}
    )
    assert reply.json == {"username": "dana"}
    assert User.get_by_id(dana.id).recovery_code_used
    sign_in(client, "dana", NEW_PASSWORD)
    sign_in(client, "dana", PASSWORD, status=401)
    again = client.post_json(
        "/auth/reset-password", {"username": "dana", "code": code, "new_password": PASSWORD}, status=400
    )
    assert again.json["code"] == "invalid_recovery_code"


def test_a_bad_new_password_does_not_use_up_the_code(client, admin, make_user):
    code = new_code(admin, make_user("dana"))
    reply = client.post_json(
        "/auth/reset-password", {"username": "dana", "code": code, "new_password": "short"}, status=422
    )
    assert reply.json["errors"][0]["loc"] == ["body", "new_password"]
    client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": code})


def test_every_kind_of_bad_code_gets_the_same_answer(client, admin, make_user):
    dana = make_user("dana")
    make_user("erin")  # has no code
    code = new_code(admin, dana)
    wrong = "000000" if code != "000000" else "111111"
    answers = [
        client.post_json("/auth/verify-recovery-code", body, status=400).json
        for body in (
            {"username": "dana", "code": wrong},  # wrong
            {"username": "Dana", "code": code},  # username is case-sensitive
            {"username": "nobody", "code": code},  # unknown user
            {"username": "erin", "code": code},  # no code generated
            {"username": "dana", "code": "12"},  # malformed
        )
    ]
    assert all(a == answers[0] for a in answers) and answers[0]["code"] == "invalid_recovery_code"


def test_a_new_code_replaces_the_old_one_at_once(client, admin, make_user):
    dana = make_user("dana")
    old = new_code(admin, dana)
    new = new_code(admin, dana)
    while new == old:  # one time in a million the new code is the same six digits
        new = new_code(admin, dana)
    client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": old}, status=400)
    client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": new})


def test_a_code_is_valid_for_72_hours_checked_at_use(client, admin, make_user):
    dana = make_user("dana")
    with time_machine.travel(utcnow(), tick=False) as clock:
        code = new_code(admin, dana)
        clock.shift(timedelta(hours=71, minutes=59))
        client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": code})
        clock.shift(timedelta(minutes=2))
        client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": code}, status=400)
        reply = client.post_json(
            "/auth/reset-password",
            {"username": "dana", "code": code, "new_password": NEW_PASSWORD},
            status=400,
        )
        assert reply.json["code"] == "invalid_recovery_code"


def test_five_wrong_attempts_kill_the_code(client, admin, make_user):
    dana = make_user("dana")
    code = new_code(admin, dana)
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(5):
        client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": wrong}, status=400)
    client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": code}, status=400)
    client.post_json("/auth/verify-recovery-code", {"username": "dana", "code": new_code(admin, dana)})


# --- first run ----------------------------------------------------------------------------------------


def test_setup_creates_the_first_site_admin_once(client):
    assert client.get("/setup").json == {"needed": True}
    code = issue_setup_code()
    body = {"code": code, "username": "root", "password": PASSWORD}
    wrong = client.post_json("/setup", {**body, "code": "AAAA-BBBB-CCCC"}, status=403)
    assert wrong.json["code"] == "invalid_setup_code"
    created = client.post_json("/setup", body, status=201).json
    assert created["role"] == "SITE_ADMIN" and created["is_approved"]
    assert client.get("/setup").json == {"needed": False}
    again = client.post_json("/setup", {**body, "username": "root2"}, status=409)
    assert again.json["code"] == "already_set_up"
    assert issue_setup_code() is None
    sign_in(client, "root")


def test_setup_code_guesses_are_rate_limited(client):
    issue_setup_code()
    for _ in range(10):
        client.post_json(
            "/setup", {"code": "AAAA-BBBB-CCCC", "username": "root", "password": PASSWORD}, status=403
        )
    reply = client.post_json(
        "/setup", {"code": "AAAA-BBBB-CCCC", "username": "root", "password": PASSWORD}, status=429
    )
    assert reply.json["code"] == "rate_limited"
