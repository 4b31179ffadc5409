"""Who may do what, by concept: `passwords` (argon2id hashing, one at a time), `tokens` (JWTs and the token
step, which makes the request's Caller), `rules` (the Rules routes declare), `limits` (rate limits and the
client's address). Import what you need from here: `from doorapp.access import org_admin`,
`access.hash_secret(...)`."""

from doorapp.access.limits import (
    MAX_SIGN_INS,
    WINDOW,
    client_address,
    forgive,
    reserve_attempt,
    trusted_networks,
    verified,
)
from doorapp.access.passwords import hash_secret, newcomer, rehashed
from doorapp.access.rules import (
    Rule,
    account_refusal,
    any_org_admin,
    door,
    org_admin,
    org_member,
    pass_not_allowed,
    public,
    signed_in,
    signed_in_or_pass,
    site_admin,
)
from doorapp.access.tokens import account_caller, caller, issue_pass_token, issue_token

__all__ = [
    "MAX_SIGN_INS",
    "WINDOW",
    "Rule",
    "account_caller",
    "account_refusal",
    "any_org_admin",
    "caller",
    "client_address",
    "door",
    "forgive",
    "hash_secret",
    "issue_pass_token",
    "issue_token",
    "newcomer",
    "org_admin",
    "org_member",
    "pass_not_allowed",
    "public",
    "rehashed",
    "reserve_attempt",
    "signed_in",
    "signed_in_or_pass",
    "site_admin",
    "trusted_networks",
    "verified",
]
