"""The Rules that say who may call a route (`endpoint(auth=...)`), each with the problem codes it can refuse
with, which the OpenAPI document lists for every route that declares it."""

from doorapp.caller import ACCOUNT, DOOR
from doorapp.errors import ApiError
from doorapp.models import Meetup, Membership

# What every Rule but `public` can refuse with: the token step's 401s (no token, a bad or ended one, a door
# pass that has ended) and an account that may not act (403).
TOKEN_REFUSALS = ("not_authenticated", "invalid_token", "pass_ended")
ACCOUNT_REFUSALS = ("account_pending", "account_disabled")


def account_refusal(user):
    """403 for an account that may not act (checked at login and on every request)."""
    if user.is_disabled:
        return ApiError(403, "account_disabled", "This account has been disabled; ask a site admin.")
    if not user.is_approved:
        return ApiError(403, "account_pending", "This account is waiting for a site admin's approval.")
    return None


class Rule:
    """Who may call a route, judged by enforce(caller, args) in docs/api.md's order.

    `admits`: the scopes of callers it lets in (doorapp.caller: ACCOUNT, DOOR); another caller is 403
    pass_not_allowed, as is one bound to another org or meetup than the path's, or to every open meetup
    of the org when the path's is finalized or cancelled. A caller with an account
    must be approved and enabled, then pass `check(caller, args)` (None or an ApiError) unless it is a site
    admin. `refuses`: the codes this Rule's own judgement can answer (pass_not_allowed, its check's);
    `refusals` adds those of the token step and the account, which every Rule but `public` can answer.
    tests/test_authorization.py holds them to what its callers really get. `needs`: the path parameters
    the check reads (endpoint() asserts the path has them)."""

    def __init__(
        self, name, check=None, *, public=False, needs=(), admits=(ACCOUNT,), refuses=(), description=""
    ):
        self.name, self.check, self.public, self.needs = name, check, public, needs
        self.admits, self.refuses, self.description = frozenset(admits), tuple(refuses), description

    @property
    def passes(self):
        """Whether a door pass may call the route."""
        return DOOR in self.admits

    @property
    def refusals(self):
        """Every problem code this Rule can answer (none for a public route)."""
        if self.public:
            return frozenset()
        return frozenset((*TOKEN_REFUSALS, *ACCOUNT_REFUSALS, *self.refuses))

    def enforce(self, caller, args):
        if self.public:
            return
        refusal = self._outside(caller, args)
        if refusal is None and caller.user is not None:
            refusal = account_refusal(caller.user)
            if refusal is None and self.check and not caller.site_admin:
                refusal = self.check(caller, args)
        if refusal:
            raise refusal

    def _outside(self, caller, args):
        """403 pass_not_allowed for a caller this Rule does not admit (a door pass outside the door), or one
        bound to another org or meetup than the path's."""
        if not self.admits & caller.scopes:
            return pass_not_allowed(
                f"A {caller.name} may only work the door; sign in with an account for this."
            )
        if caller.org_id and "org_id" in args and args["org_id"] != caller.org_id:
            return pass_not_allowed(f"This {caller.name} is for another organization.")
        if caller.meetup_id and "meetup_id" in args and args["meetup_id"] != caller.meetup_id:
            return pass_not_allowed(f"This {caller.name} is for another meetup.")
        if caller.org_id and not caller.meetup_id and "meetup_id" in args:  # bound to every open meetup
            meetup = Meetup.get_or_none(Meetup.id == args["meetup_id"], Meetup.org == caller.org_id)
            if meetup is not None and not caller.may_work(meetup):  # finalized or cancelled: not its list
                return pass_not_allowed(f"This {caller.name} works the open meetups only.")
        return None

    def __repr__(self):
        return f"Rule({self.name})"


def pass_not_allowed(message):
    return ApiError(403, "pass_not_allowed", message)


def _site_admin(caller, args):
    return ApiError(403, "site_admin_required", "Only a site admin may do this.")


def _org_role(needed):
    def check(caller, args):
        role = caller.user.org_role
        if role is None:
            return ApiError(403, "not_org_member", "You are not a member of this organization.")
        if needed == "ADMIN" and role != "ADMIN":
            return ApiError(403, "org_admin_required", "Only an admin of this organization may do this.")
        return None

    return check


def _admin_anywhere(caller, args):
    if Membership.administers_any(caller.user.id):
        return None
    return ApiError(403, "org_admin_required", "Only an organization admin or a site admin may do this.")


public = Rule("public", public=True, description="No authentication.")
signed_in = Rule("signed_in", refuses=("pass_not_allowed",), description="Any approved, enabled user.")
site_admin = Rule(
    "site_admin",
    _site_admin,
    refuses=("pass_not_allowed", "site_admin_required"),
    description="A SITE_ADMIN (role in the token).",
)
org_member = Rule(
    "org_member",
    _org_role("STAFF"),
    needs=("org_id",),
    refuses=("pass_not_allowed", "not_org_member"),
    description="A member of the organization (STAFF or ADMIN), or a SITE_ADMIN.",
)
org_admin = Rule(
    "org_admin",
    _org_role("ADMIN"),
    needs=("org_id",),
    refuses=("pass_not_allowed", "not_org_member", "org_admin_required"),
    description="An ADMIN of the organization, or a SITE_ADMIN.",
)
door = Rule(
    "door",
    _org_role("STAFF"),
    needs=("org_id",),
    admits=(ACCOUNT, DOOR),
    refuses=("pass_not_allowed", "not_org_member"),  # a door pass of another org or meetup
    description="A member of the organization (STAFF or ADMIN), a SITE_ADMIN, or a door pass of the "
    "organization (for its meetup, when it has one).",
)
signed_in_or_pass = Rule(
    "signed_in_or_pass",
    admits=(ACCOUNT, DOOR),
    description="Any approved, enabled user, or a door pass (the door needs it).",
)
any_org_admin = Rule(
    "any_org_admin",
    _admin_anywhere,
    refuses=("pass_not_allowed", "org_admin_required"),
    description="An ADMIN of any organization, or a SITE_ADMIN.",
)
