"""The authorization matrix: every route of the specification against every kind of caller.

SPEC_ROLES is written from the specification by hand, so a route that declares a looser Rule than it
fails here, and every declared Rule is shown to be enforced in the order docs/api.md gives.
"""

import uuid

import pytest
from helpers import phone_of

from doorapp.api import ROUTES
from doorapp.models import Org

SPEC_ROLES = {
    ("POST", "/auth/register"): "public",
    ("POST", "/auth/token"): "public",
    ("GET", "/auth/userinfo"): "signed_in_or_pass",
    ("POST", "/auth/verify-recovery-code"): "public",
    ("POST", "/auth/reset-password"): "public",
    ("GET", "/organizations/"): "site_admin",
    ("POST", "/organizations/"): "site_admin",
    ("GET", "/organizations/<org_id>"): "org_member",
    ("PATCH", "/organizations/<org_id>"): "site_admin",
    ("GET", "/organizations/<org_id>/members"): "org_admin",
    ("POST", "/organizations/<org_id>/members/<user_id>"): "org_admin",
    ("PATCH", "/organizations/<org_id>/members/<user_id>"): "org_admin",
    ("DELETE", "/organizations/<org_id>/members/<user_id>"): "org_admin",
    ("GET", "/users/"): "signed_in",
    ("GET", "/staff/"): "site_admin",
    ("GET", "/staff/pending"): "site_admin",
    ("PATCH", "/staff/<user_id>/approve"): "site_admin",
    ("PATCH", "/staff/<user_id>/role"): "site_admin",
    ("PATCH", "/staff/<user_id>/disable"): "site_admin",
    ("PATCH", "/staff/<user_id>/enable"): "site_admin",
    ("POST", "/staff/<user_id>/recovery-code"): "site_admin",
    ("GET", "/guests/"): "signed_in",
    ("POST", "/guests/"): "signed_in_or_pass",
    ("GET", "/guests/<platform_user_id>"): "signed_in",
    ("GET", "/guests/by-username/<username>"): "signed_in",
    ("GET", "/organizations/<org_id>/guests/banned"): "org_member",
    ("PATCH", "/organizations/<org_id>/guests/<platform_user_id>/ban"): "org_admin",
    ("PATCH", "/organizations/<org_id>/guests/<platform_user_id>/unban"): "org_admin",
    ("POST", "/organizations/<org_id>/meetups/"): "org_member",
    ("GET", "/organizations/<org_id>/meetups/"): "door",
    ("GET", "/organizations/<org_id>/meetups/<meetup_id>"): "door",
    ("POST", "/organizations/<org_id>/meetups/<meetup_id>/sync"): "org_member",
    ("POST", "/organizations/<org_id>/meetups/import"): "org_member",  # docs/api.md: guest lists from files
    ("POST", "/organizations/<org_id>/meetups/<meetup_id>/import"): "org_member",
    ("GET", "/organizations/<org_id>/meetups/<meetup_id>/guests"): "door",
    ("PATCH", "/organizations/<org_id>/meetups/<meetup_id>/finalize"): "org_admin",
    ("PATCH", "/organizations/<org_id>/meetups/<meetup_id>/unfinalize"): "org_admin",
    ("PATCH", "/organizations/<org_id>/meetups/<meetup_id>/cancel"): "org_admin",
    ("PATCH", "/organizations/<org_id>/settings"): "org_admin",
    ("DELETE", "/organizations/<org_id>/meetups/<meetup_id>"): "org_admin",
    (
        "POST",
        "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/add-walkin",
    ): "door",
    ("POST", "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/checkin"): "door",
    ("POST", "/organizations/<org_id>/meetups/<meetup_id>/local-walkins"): "door",
    ("PATCH", "/organizations/<org_id>/guests/<platform_user_id>/link"): "org_admin",
    (
        "PATCH",
        "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/undo-checkin",
    ): "door",
    ("GET", "/organizations/<org_id>/events/"): "org_admin",
    ("GET", "/organizations/<org_id>/events/meetups/<meetup_id>"): "org_member",
    ("GET", "/organizations/<org_id>/events/guests/<guest_id>"): "org_member",
    ("GET", "/organizations/<org_id>/events/staff/<staff_id>"): "org_member",
    ("GET", "/ping"): "public",
    ("GET", "/health"): "public",
    ("HEAD", "/health"): "public",
    # added since the first specification
    ("GET", "/setup"): "public",
    ("POST", "/setup"): "public",
    ("GET", "/platform"): "signed_in_or_pass",
    ("GET", "/openapi.json"): "public",
    # issue 9: how phones join (the address and its QR code)
    ("GET", "/phones"): "any_org_admin",
    # issue 10: a signed-in user changes their own password
    ("PATCH", "/auth/password"): "signed_in",
    # issue 12: after the night (the summary for every member; exports, excuses and histories for admins)
    ("GET", "/organizations/<org_id>/meetups/<meetup_id>/summary"): "org_member",
    ("GET", "/organizations/<org_id>/meetups/<meetup_id>/export"): "org_admin",
    ("PATCH", "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/excuse"): "org_admin",
    # issue 24: an admin corrects how many guests an arrival brought (a door pass records it at check-in only)
    (
        "PATCH",
        "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/guests-brought",
    ): "org_admin",
    ("GET", "/organizations/<org_id>/guests/<platform_user_id>/history"): "org_admin",
    ("GET", "/organizations/<org_id>/events/export"): "org_admin",
    # issue 23: door passes (a phone works one org's door, for its meetup, with no account)
    ("POST", "/auth/pass"): "public",
    ("POST", "/organizations/<org_id>/passes"): "org_admin",
    ("GET", "/organizations/<org_id>/passes"): "org_admin",
    ("DELETE", "/organizations/<org_id>/passes/<pass_id>"): "org_admin",
    ("DELETE", "/organizations/<org_id>/meetups/<meetup_id>/passes"): "org_admin",
    # issue 24: the walk-in dialog offers the platform guests Door knows (a pass adds walk-ins too)
    ("GET", "/organizations/<org_id>/meetups/<meetup_id>/walkin-matches"): "door",
    # issue 35: people in the room (the door's, passes too; the capacity an admin's) and the org's tags
    ("POST", "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/exit"): "door",
    ("POST", "/organizations/<org_id>/meetups/<meetup_id>/guests/<platform_user_id>/reenter"): "door",
    ("POST", "/organizations/<org_id>/meetups/<meetup_id>/left"): "door",
    ("PATCH", "/organizations/<org_id>/meetups/<meetup_id>"): "org_admin",
    ("GET", "/organizations/<org_id>/tags"): "org_member",
    ("POST", "/organizations/<org_id>/tags"): "org_admin",
    ("PATCH", "/organizations/<org_id>/tags/<tag_id>"): "org_admin",
    ("DELETE", "/organizations/<org_id>/tags/<tag_id>"): "org_admin",
    ("GET", "/organizations/<org_id>/guests/<platform_user_id>/tags"): "org_member",
    ("PUT", "/organizations/<org_id>/guests/<platform_user_id>/tags"): "org_admin",
    # issue 34: data protection (how long an org keeps guests' data, its notice; one person's file, erasure)
    ("GET", "/organizations/<org_id>/privacy"): "org_admin",
    ("PATCH", "/organizations/<org_id>/privacy"): "org_admin",
    ("GET", "/organizations/<org_id>/privacy/notice"): "door",
    ("GET", "/organizations/<org_id>/guests/<platform_user_id>/export"): "org_admin",
    ("POST", "/organizations/<org_id>/guests/<platform_user_id>/erase"): "org_admin",
}

PEOPLE = ["anonymous", "pending", "disabled", "outsider", "staff", "other_org_admin", "admin", "site_admin"]
# door passes: one for the org's meetup, one for every meetup of another org, one for another meetup of the
# org, and one revoked
PASSES = ["door_pass", "other_org_pass", "other_meetup_pass", "ended_pass"]
CALLERS = PASSES + PEOPLE  # passes first: a route an admin changes things with (finalize) would end them
CHAIN_CODES = {
    "pass_not_allowed",
    "pass_ended",
    "not_authenticated",
    "invalid_token",
    "account_pending",
    "account_disabled",
    "site_admin_required",
    "not_org_member",
    "org_admin_required",
}

# What each caller gets from each rule: None means the chain lets it through. A pass gets
# pass_not_allowed from every rule but the door's, and an ended pass pass_ended from all.
NO_PASS = {"door_pass": "pass_not_allowed", "other_org_pass": "pass_not_allowed"}
NO_PASS.update(other_meetup_pass="pass_not_allowed", ended_pass="pass_ended")
EXPECTED = {
    "public": {c: None for c in CALLERS},
    "signed_in": {
        "anonymous": "not_authenticated",
        "pending": "account_pending",
        "disabled": "account_disabled",
        **{c: None for c in PEOPLE[3:]},
        **NO_PASS,
    },
}
EXPECTED["site_admin"] = {
    **EXPECTED["signed_in"],
    **{c: "site_admin_required" for c in PEOPLE[3:7]},
    "site_admin": None,
}
EXPECTED["org_member"] = {
    **EXPECTED["signed_in"],
    "outsider": "not_org_member",
    "other_org_admin": "not_org_member",
}
EXPECTED["org_admin"] = {**EXPECTED["org_member"], "staff": "org_admin_required"}
EXPECTED["any_org_admin"] = {
    **EXPECTED["signed_in"],
    "outsider": "org_admin_required",
    "staff": "org_admin_required",
}
EXPECTED["signed_in_or_pass"] = {**EXPECTED["signed_in"], **dict.fromkeys(PASSES[:3])}
EXPECTED["door"] = {**EXPECTED["org_member"], "door_pass": None}


def test_every_route_of_the_specification_exists_with_the_role_it_gives():
    assert {(r.method, r.path): r.config["auth"].name for r in ROUTES} == SPEC_ROLES


def paired(client, maker, org_id, **fields):
    """A client with the token of a new door pass of `org_id` made by `maker` (a client)."""
    made = maker.post_json(
        f"/organizations/{org_id}/passes", {"label": "Maria's phone", **fields}, status=201
    ).json
    return phone_of(client, made), made["id"]


def pass_callers(org, other, meetup, sessions):
    """The four door passes of PASSES, paired, as clients."""
    admin, client = sessions["admin"], sessions["anonymous"]
    second = admin.post_json(
        f"/organizations/{org.id}/meetups/",
        {"platform_url": "https://demo.door.invalid/night-owls/board-games"},
        expect_errors=True,
    )
    assert second.status_int == 201, second.text
    ended, ended_id = paired(client, admin, org.id, meetup_id=str(meetup.id))
    admin.delete(f"/organizations/{org.id}/passes/{ended_id}", status=204)
    return {
        "door_pass": paired(client, admin, org.id, meetup_id=str(meetup.id))[0],
        "other_org_pass": paired(client, sessions["other_org_admin"], other.id)[0],
        "other_meetup_pass": paired(client, admin, org.id, meetup_id=second.json["id"])[0],
        "ended_pass": ended,
    }


@pytest.fixture
def callers(org, meetup, guest, make_user, as_user, client):
    other = Org.create(name="Early Birds", slug="early-birds")
    users = {
        "pending": make_user("pending", org=org, role="ADMIN", is_approved=False),
        "disabled": make_user("disabled", org=org, role="ADMIN", is_disabled=True),
        "outsider": make_user("outsider"),
        "staff": make_user("staff", org=org, role="STAFF"),
        "other_org_admin": make_user("other_admin", org=other, role="ADMIN"),
        "admin": make_user("admin", org=org, role="ADMIN"),
        "site_admin": make_user("root", site_admin=True),
    }
    target = make_user("target", org=org)
    sessions = {"anonymous": client, **{name: as_user(user) for name, user in users.items()}}
    sessions.update(pass_callers(org, other, meetup, sessions))
    values = {
        "org_id": str(org.id),
        "meetup_id": str(meetup.id),
        "user_id": str(target.id),
        "staff_id": str(target.id),
        "platform_user_id": str(guest.platform_user_id),
        "guest_id": str(guest.platform_user_id),
        "username": guest.username,
        "pass_id": "1",
        "tag_id": "1",
    }
    return sessions, values


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_each_caller_gets_what_the_rule_says(callers, route):
    sessions, values = callers
    path = route.path
    for name, value in values.items():
        path = path.replace(f"<{name}>", value)
    for caller in CALLERS:
        reply = sessions[caller].request(
            path,
            method=route.method,
            expect_errors=True,
            headers={"Content-Type": "application/json"},
            body=b"{}",
        )
        code = reply.json.get("code") if reply.content_type == "application/problem+json" else None
        expected = EXPECTED[route.config["auth"].name][caller]
        if caller == "other_meetup_pass" and route.config["auth"].passes and "<meetup_id>" not in route.path:
            expected = None  # a route of the org, not of one meetup (its list of meetups shows the pass's)
        assert reply.status_int < 500, (caller, reply.text)
        if expected is None:
            assert code not in CHAIN_CODES, (caller, reply.text)
        else:
            assert code == expected, (caller, reply.text)


RULES = {route.config["auth"].name: route.config["auth"] for route in ROUTES}


@pytest.mark.parametrize("name", sorted(RULES))
def test_a_rule_declares_exactly_the_refusals_its_callers_get(name):
    """What the matrix shows the callers get from a Rule, and the 401 of a forged token (which none of them
    has: see below), is what the Rule declares it refuses with, and so what /openapi.json lists for every
    route that declares it (tests/test_openapi.py)."""
    answered = {code for code in EXPECTED[name].values() if code is not None}
    forged = set() if RULES[name].public else {"invalid_token"}
    assert RULES[name].refusals == answered | forged


@pytest.mark.parametrize(
    "route",
    [route for route in ROUTES if not route.config["auth"].public],
    ids=lambda r: f"{r.method} {r.path}",
)
def test_a_forged_token_is_refused_by_every_rule(client, route):
    path = route.path
    for name in ("org_id", "meetup_id"):
        path = path.replace(f"<{name}>", str(uuid.uuid4()))
    for name in ("user_id", "platform_user_id", "guest_id", "staff_id", "username", "pass_id", "tag_id"):
        path = path.replace(f"<{name}>", "1")
    client.authorization = ("Bearer", "forged.not-a.token")
    reply = client.request(path, method=route.method, expect_errors=True)
    assert (reply.status_int, reply.json["code"]) == (401, "invalid_token")
