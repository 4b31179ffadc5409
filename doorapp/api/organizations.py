"""/organizations/: organizations, and their members (/organizations/<org_id>/members)."""

import re
from dataclasses import dataclass
from typing import Literal, TypedDict

from doorapp.access import org_admin, org_member, site_admin
from doorapp.api import endpoint, passes_ended, shapes
from doorapp.api.shapes import member_json, org_json
from doorapp.bodies import text
from doorapp.db import get_or_404
from doorapp.errors import ApiError
from doorapp.models import DoorPass, Membership, Org, User
from doorapp.models.audit import AuditType, record
from doorapp.spreadsheet import ZONES

SLUG = re.compile(r"^[a-z0-9-]{2,64}$")  # anchored: a client that searches with it checks the whole slug


def known_zone(name):
    """The IANA time zone `name` as kept; ValueError for a name Door does not know."""
    if name and name not in ZONES:
        raise ValueError("Must be an IANA time zone.", "time_zone")
    return name


# The zones as a pattern, which a client generating bodies from the schema follows (an enum would do, but
# typed clients make a name of each value, and GMT+0, GMT-0 and GMT0 make the same one); empty: none.
ZONE = re.compile("^(?:|" + "|".join(name.replace("+", r"\+") for name in sorted(ZONES)) + ")$")

ZONE_DOC = "An IANA time zone (Europe/Madrid) for the times of files made for people; empty: the server's."


@dataclass
class OrgIn:
    name: str = text(min_length=2, max_length=128)
    slug: str = text(max_length=64, pattern=SLUG, doc="2-64 characters: a-z, 0-9 and -.")
    time_zone: str | None = text(
        max_length=64,
        min_length=0,
        default=None,
        doc=ZONE_DOC + " The browser app sends its own.",
        normalize=known_zone,
        pattern=ZONE,
    )


@dataclass
class OrgChange:
    name: str | None = text(min_length=2, max_length=128, default=None)
    slug: str | None = text(max_length=64, pattern=SLUG, doc="2-64 characters: a-z, 0-9 and -.", default=None)


@dataclass
class OrgSettings:
    time_zone: str = text(max_length=64, min_length=0, doc=ZONE_DOC, normalize=known_zone, pattern=ZONE)


@dataclass
class MemberIn:
    role: Literal["STAFF", "ADMIN"]


class OrgList(TypedDict):
    total: int
    organizations: list[shapes.Org]


class MemberList(TypedDict):
    total: int
    members: list[shapes.Member]


def _check_unique(name=None, slug=None, org_id=None):
    if name is not None and Org.taken("name", name, org_id):
        raise ApiError(409, "org_name_taken", f"An organization is already called {name}.")
    if slug is not None and Org.taken("slug", slug, org_id):
        raise ApiError(409, "org_slug_taken", f"The slug {slug} is taken; choose another.")


def _membership(org_id, user_id):
    get_or_404(Org, org_id, "organization")
    membership = Membership.of_org(org_id, user_id)
    if membership is None:
        raise ApiError(404, "not_found", f"User {user_id} is not a member of this organization.")
    return membership


def _not_self(membership, caller, action):
    if membership.user.id == caller.user.id and not caller.site_admin:
        raise ApiError(409, "cannot_modify_self", f"You cannot {action} yourself; ask another admin.")


@endpoint("GET", "/organizations/", auth=site_admin, answer=OrgList)
def list_organizations():
    """All organizations, by name."""
    orgs = [org_json(o) for o in Org.select().order_by(Org.name)]
    return OrgList(total=len(orgs), organizations=orgs)


@endpoint(
    "POST",
    "/organizations/",
    auth=site_admin,
    body=OrgIn,
    status=201,
    answer=shapes.Org,
    errors=("org_name_taken", "org_slug_taken"),
)
def create_organization(body):
    """Create an organization, in the time zone given (the browser app gives the one it runs in)."""
    _check_unique(body.name, body.slug)
    return org_json(Org.create(name=body.name, slug=body.slug, time_zone=body.time_zone or None))


@endpoint("GET", "/organizations/<org_id>", auth=org_member, answer=shapes.Org, errors=("not_found",))
def get_organization(org_id):
    """One organization."""
    return org_json(get_or_404(Org, org_id, "organization"))


@endpoint(
    "PATCH",
    "/organizations/<org_id>",
    auth=site_admin,
    body=OrgChange,
    answer=shapes.Org,
    errors=("not_found", "org_name_taken", "org_slug_taken"),
)
def update_organization(org_id, body, caller):
    """Rename an organization or change its slug."""
    org = get_or_404(Org, org_id, "organization")
    _check_unique(body.name, body.slug, org.id)
    changes = {
        k: {"old": getattr(org, k), "new": v}
        for k, v in vars(body).items()
        if v is not None and v != getattr(org, k)
    }
    if changes:
        for key, change in changes.items():
            setattr(org, key, change["new"])
        org.save()
        record(AuditType.ORG_UPDATED, caller, org=org, changes=changes)
    return org_json(org)


@endpoint(
    "PATCH",
    "/organizations/<org_id>/settings",
    auth=org_admin,
    body=OrgSettings,
    answer=shapes.Org,
    errors=("not_found",),
)
def update_organization_settings(org_id, body, caller):
    """Change what the organization's admins decide themselves: its time zone."""
    org = get_or_404(Org, org_id, "organization")
    new = body.time_zone or None
    if new != org.time_zone:
        changes = {"time_zone": {"old": org.time_zone, "new": new}}
        Org.update(time_zone=new).where(Org.id == org.id).execute()
        record(AuditType.ORG_UPDATED, caller, org=org, changes=changes)
        org.time_zone = new
    return org_json(org)


@endpoint("GET", "/organizations/<org_id>/members", auth=org_admin, answer=MemberList, errors=("not_found",))
def list_members(org_id):
    """Members of the organization with their roles, by username."""
    get_or_404(Org, org_id, "organization")
    members = [member_json(m) for m in Membership.of_org(org_id)]
    return MemberList(total=len(members), members=members)


@endpoint(
    "POST",
    "/organizations/<org_id>/members/<user_id>",
    auth=org_admin,
    body=MemberIn,
    status=201,
    answer=shapes.Member,
    errors=("already_member", "not_found"),
)
def add_member(org_id, user_id, body, caller):
    """Add a user to the organization as STAFF or ADMIN."""
    org, member = get_or_404(Org, org_id, "organization"), get_or_404(User, user_id, "user")
    membership = Membership.join(org, member, body.role)
    record(
        AuditType.MEMBER_ADDED, caller, org=org, user_id=member.id, username=member.username, role=body.role
    )
    return member_json(membership)


@endpoint(
    "PATCH",
    "/organizations/<org_id>/members/<user_id>",
    auth=org_admin,
    body=MemberIn,
    answer=shapes.Member,
    errors=("cannot_modify_self", "not_found"),
)
def change_member_role(org_id, user_id, body, caller):
    """Change a member's role (STAFF or ADMIN)."""
    membership = _membership(org_id, user_id)
    if body.role != "ADMIN":
        _not_self(membership, caller, "demote")
    old, membership.role = membership.role, body.role
    membership.save()
    if old != body.role:
        record(
            AuditType.MEMBER_ROLE_CHANGED,
            caller,
            org=org_id,
            user_id=user_id,
            username=membership.user.username,
            old=old,
            new=body.role,
        )
    if old == "ADMIN" != body.role:  # the door passes they made here answer to nobody now
        passes_ended(caller, DoorPass.revoke_made_by(user_id, org_id))
    return member_json(membership)


@endpoint(
    "DELETE",
    "/organizations/<org_id>/members/<user_id>",
    auth=org_admin,
    status=204,
    errors=("cannot_modify_self", "not_found"),
)
def remove_member(org_id, user_id, caller):
    """Remove a user from the organization."""
    membership = _membership(org_id, user_id)
    _not_self(membership, caller, "remove")
    if not membership.delete_instance():  # another admin removed them meanwhile (the DELETE waited for it)
        _membership(org_id, user_id)  # 404 as after it
    record(
        AuditType.MEMBER_REMOVED,
        caller,
        org=org_id,
        user_id=user_id,
        username=membership.user.username,
        role=membership.role,
    )
    passes_ended(caller, DoorPass.revoke_made_by(user_id, org_id))
