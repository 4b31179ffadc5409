"""/organizations/<org_id>/passes: door passes, a phone's way in to the org's door without an account
(made, listed and revoked by the org's admins), and .../meetups/<meetup_id>/passes, ending all of a
meetup's at once. The phone exchanges the pairing code at POST /auth/pass (api/auth.py)."""

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypedDict

from doorapp.access import org_admin
from doorapp.api import (
    Pass,
    endpoint,
    pass_json,
    pass_of,
    passes_ended,
    phone_urls,
    phones_address,
    qr_code,
)
from doorapp.api.shapes import MOMENT, OpenToLan
from doorapp.bodies import moment, text
from doorapp.db import get_or_404, iso, utcnow
from doorapp.errors import invalid, validation_error
from doorapp.models import AuditType, DoorPass, Meetup, Org, audit
from doorapp.models.audit import door_passes
from doorapp.models.passes import LONGEST

PASSES = "/organizations/<org_id>/passes"


class Pairing(TypedDict):
    """How a phone joins with a new pass: the one-time code, the address with it to open (`url`), a QR
    code of that address (an SVG data: URI) and when the code stops working. While only this computer
    can open Door no phone can use the address: `qr_svg` is null, and `open_to_lan` says how to let phones
    in (as GET /phones does)."""

    code: str
    url: str
    expires_at: MOMENT
    qr_svg: str | None
    open_to_lan: OpenToLan | None


class NewPass(Pass):
    """A door pass just made, with its pairing (shown only here)."""

    pairing: Pairing


class PassList(TypedDict):
    total: int
    passes: list[Pass]


class Revoked(TypedDict):
    """How many door passes a revoke ended."""

    revoked: int


@dataclass
class PassIn:
    label: str = text(max_length=64, doc="What the pass is called in lists and the audit log: Maria's phone.")
    meetup_id: uuid.UUID | None = None  # the meetup it is for; none: every open meetup of the org
    ends_at: datetime | None = moment(
        "When the pass ends (ISO 8601; no offset reads as UTC): at most 24 hours from now. Default: the end "
        "of the meetup's day (UTC), or of today for every meetup, and never more than 24 hours away."
    )


def pass_end(meetup, asked):
    """When a new pass ends: `asked` (422 unless within the next 24 hours), or the end of the meetup's day
    (today's, for every meetup) when that is within them, else 24 hours from now."""
    now = utcnow()
    if asked is not None:
        if not now < asked <= now + LONGEST:
            message = "Must be in the next 24 hours."
            raise validation_error([invalid(("body", "ends_at"), "invalid", message, rule="pass_end")])
        return asked
    day = (meetup.date if meetup else now).replace(hour=0, minute=0, second=0, microsecond=0)
    end = day + timedelta(days=1) if day < datetime.max - timedelta(days=1) else datetime.max  # 9999-12-31
    return end if now < end <= now + LONGEST else now + LONGEST


def one_pass(org_id, pass_id):
    """The org's pass as Pass; 404 not_found when the org has none of that id."""
    found = pass_of(org_id, pass_id)
    if found is None:
        get_or_404(Org, org_id, "organization")
        get_or_404(DoorPass, pass_id, "door pass", org=org_id)
    return found


@endpoint(
    "POST",
    PASSES,
    auth=org_admin,
    body=PassIn,
    status=201,
    answer=NewPass,
    errors=("meetup_cancelled", "meetup_finalized", "not_found"),
)
def create_pass(org_id, body, caller):
    """Make a door pass: a phone that opens its pairing address (`pairing.url`, also as a QR code in
    `pairing.qr_svg`) works this organization's door, for the meetup (or every open meetup), until
    `ends_at`, with no account. The pairing code works once and for 10 minutes; it is shown only here."""
    get_or_404(Org, org_id, "organization")
    meetup = Meetup.open(org_id, body.meetup_id) if body.meetup_id else None
    made, code = DoorPass.make(
        org_id, meetup and meetup.id, body.label, caller.user, pass_end(meetup, body.ends_at)
    )
    audit.record(
        AuditType.PASS_CREATED,
        caller,
        org=org_id,
        meetup=meetup and meetup.id,
        pass_id=made.id,
        label=made.label,
        ends_at=iso(made.ends_at),
    )
    access = phone_urls()
    url = f"{phones_address().rstrip('/')}/#/pass/{code}"
    qr = qr_code(url) if access["urls"] else None  # never a code that no phone can open
    expires = iso(made.code_expires_at)
    pairing = Pairing(code=code, url=url, expires_at=expires, qr_svg=qr, open_to_lan=access["open_to_lan"])
    return NewPass(**one_pass(org_id, made.id), pairing=pairing)


@endpoint("GET", PASSES, auth=org_admin, answer=PassList, errors=("not_found",))
def list_passes(org_id):
    """The organization's door passes, newest first: what each is for, who made it, whether a phone paired
    with it, when it was last used, how many check-ins it made, and whether it was revoked."""
    get_or_404(Org, org_id, "organization")
    passes = [pass_json(p) for p in door_passes(org_id)]
    return PassList(total=len(passes), passes=passes)


@endpoint("DELETE", PASSES + "/<pass_id>", auth=org_admin, status=204, errors=("not_found",))
def revoke_pass(org_id, pass_id, caller):
    """Revoke a door pass: its phone's next request is refused (401 pass_ended), in every process. What it
    did stays in the audit log. Revoking a revoked pass changes nothing."""
    one_pass(org_id, pass_id)
    passes_ended(caller, DoorPass.revoke(org_id, pass_id=pass_id))


@endpoint(
    "DELETE",
    "/organizations/<org_id>/meetups/<meetup_id>/passes",
    auth=org_admin,
    answer=Revoked,
    errors=("not_found",),
)
def revoke_meetup_passes(org_id, meetup_id, caller):
    """Revoke every door pass made for this meetup (those for every meetup stay): `{revoked: N}`."""
    get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    passes = DoorPass.revoke(org_id, meetup_id=meetup_id)
    passes_ended(caller, passes)
    return Revoked(revoked=len(passes))
