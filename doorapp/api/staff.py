"""/staff/: every account, for site admins: approval, global role, disable/enable, recovery codes."""

import re
import secrets
from dataclasses import dataclass
from typing import Literal, TypedDict

from doorapp import access
from doorapp.access import site_admin
from doorapp.api import endpoint, passes_ended, shapes
from doorapp.api.shapes import MOMENT, user_json, users_json
from doorapp.bodies import text
from doorapp.db import get_or_404, iso, utcnow, write
from doorapp.errors import ApiError, invalid, validation_error
from doorapp.models import DoorPass, Membership, Org, User
from doorapp.models.accounts import RECOVERY_VALIDITY
from doorapp.models.audit import AuditType, record

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


@dataclass
class ApprovalIn:
    is_approved: bool
    org_id: str | None = text(
        pattern=UUID,
        default=None,
        doc="An organization's id: the approval also makes the account a member there.",
    )
    role: Literal["STAFF", "ADMIN"] | None = None  # the role in org_id; STAFF when absent


@dataclass
class RoleIn:
    role: Literal["USER", "SITE_ADMIN"]


@dataclass
class DisableIn:
    reason: str | None = text(max_length=500, default=None)


class StaffList(TypedDict):
    total: int
    users: list[shapes.User]


class RecoveryCode(TypedDict):
    """A recovery code to hand to its user: shown only this once."""

    username: str
    code: str
    expires_at: MOMENT


def _other_user(user_id, caller, action):
    """The target account; 409 when a site admin would do `action` to themselves."""
    target = get_or_404(User, user_id, "user")
    if target.id == caller.user.id:
        raise ApiError(
            409, "cannot_modify_self", f"You cannot {action} your own account; ask another site admin."
        )
    return target


@endpoint("GET", "/staff/", auth=site_admin, answer=StaffList)
def list_staff():
    """All staff accounts, oldest first."""
    users = users_json(User.listed())
    return StaffList(total=len(users), users=users)


@endpoint("GET", "/staff/pending", auth=site_admin, answer=StaffList)
def list_pending_staff():
    """Accounts waiting for approval, oldest first."""
    users = users_json(User.listed(pending_only=True))
    return StaffList(total=len(users), users=users)


@endpoint(
    "PATCH",
    "/staff/<user_id>/approve",
    auth=site_admin,
    body=ApprovalIn,
    answer=shapes.User,
    errors=("already_member", "cannot_modify_self", "not_found"),
)
def approve_staff(user_id, body, caller):
    """Approve an account, and with `org_id` (and `role`, STAFF by default) make it a member of that
    organization in the same step; or revoke its approval ({"is_approved": false})."""
    org = _org_to_join(body)
    target = (
        get_or_404(User, user_id, "user")
        if body.is_approved
        else _other_user(user_id, caller, "revoke approval of")
    )
    target.is_approved = body.is_approved
    target.save()
    if org is not None:  # a 409 here undoes the approval too
        role = body.role or "STAFF"
        Membership.join(org, target, role)
        record(
            AuditType.MEMBER_ADDED, caller, org=org, user_id=target.id, username=target.username, role=role
        )
    return user_json(target)


def _org_to_join(body):
    """The organization an approval adds the account to, or None; 422 for org_id or role out of place."""
    if body.org_id is None:
        if body.role is not None:
            message = "A role needs an org_id to be a role in."
            raise validation_error([invalid(("body", "role"), "invalid", message, rule="role_needs_org_id")])
        return None
    if not body.is_approved:
        raise validation_error(
            [
                invalid(
                    ("body", "org_id"),
                    "invalid",
                    "Only an approval adds an account to an organization.",
                    rule="org_id_needs_approval",
                )
            ]
        )
    return get_or_404(Org, body.org_id, "organization")


@endpoint(
    "PATCH",
    "/staff/<user_id>/role",
    auth=site_admin,
    body=RoleIn,
    answer=shapes.User,
    errors=("cannot_modify_self", "not_found"),
)
def change_staff_role(user_id, body, caller):
    """Change the global role (USER or SITE_ADMIN); it takes effect at the user's next sign-in. A
    demotion ends every session of the account at once (its tokens get 401), as a disable does."""
    target = (
        get_or_404(User, user_id, "user")
        if body.role == "SITE_ADMIN"
        else _other_user(user_id, caller, "demote")
    )
    if target.role == "SITE_ADMIN" and body.role != "SITE_ADMIN":  # the role is in its tokens: end them
        target.sessions_since = User.session_start()
    target.role = body.role
    target.save()
    return user_json(target)


@endpoint(
    "PATCH",
    "/staff/<user_id>/disable",
    auth=site_admin,
    body=DisableIn,
    answer=shapes.User,
    errors=("already_disabled", "cannot_modify_self", "not_found"),
)
def disable_staff(user_id, body, caller):
    """Disable an account (soft delete: its history stays); its sessions end, also if it is enabled again."""
    target = _other_user(user_id, caller, "disable")
    if target.is_disabled:
        raise ApiError(409, "already_disabled", f"{target.username} is already disabled.")
    target.is_disabled, target.disabled_at, target.disabled_reason = True, utcnow(), body.reason
    target.sessions_since = User.session_start()
    target.save()
    passes_ended(caller, DoorPass.revoke_made_by(target.id))  # nobody answers for them now
    return user_json(target)


@endpoint(
    "PATCH",
    "/staff/<user_id>/enable",
    auth=site_admin,
    answer=shapes.User,
    errors=("not_disabled", "not_found"),
)
def enable_staff(user_id):
    """Re-enable a disabled account."""
    target = get_or_404(User, user_id, "user")
    if not target.is_disabled:
        raise ApiError(409, "not_disabled", f"{target.username} is not disabled.")
    target.is_disabled, target.disabled_at, target.disabled_reason = False, None, None
    target.save()
    return user_json(target)


@endpoint(
    "POST",
    "/staff/<user_id>/recovery-code",
    auth=site_admin,
    status=201,
    tx=False,
    answer=RecoveryCode,
    errors=("not_found",),
)
def create_recovery_code(user_id):
    """Generate a 6-digit recovery code, valid 72 hours, shown only here; it replaces any earlier one."""
    code = f"{secrets.randbelow(1_000_000):06d}"
    code_hash = access.hash_secret(code)  # slow on purpose: outside the write lock
    with write():
        target = get_or_404(User, user_id, "user")
        target.recovery_code_hash, target.recovery_code_used = code_hash, False
        target.recovery_code_created_at, target.recovery_code_failures = utcnow(), 0
        target.save()
    return RecoveryCode(
        username=target.username,
        code=code,
        expires_at=iso(target.recovery_code_created_at + RECOVERY_VALIDITY),
    )
