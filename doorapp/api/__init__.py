"""The route table: endpoint() declares a route with its Rule; create_app registers ROUTES in order.

Each module of this package serves one URL prefix and imports, of its siblings, only this one (what
routes of several prefixes share) and shapes (the JSON of each object)."""

import inspect
import ipaddress
import re
import socket
import uuid
from dataclasses import dataclass
from typing import TypedDict

import segno

from doorapp import access
from doorapp.access import Rule
from doorapp.actors import Person, person_json
from doorapp.api.shapes import MOMENT, UUID
from doorapp.bodies import text
from doorapp.db import iso
from doorapp.errors import invalid, validation_error
from doorapp.models.accounts import new_username
from doorapp.models.audit import AuditType, door_passes, record
from doorapp.paths import PROG

# Path ids are typed here, once; a wrong type is 422 with loc ["path", name].
PATH_PARAMS = {
    "org_id": uuid.UUID,
    "meetup_id": uuid.UUID,
    "user_id": int,
    "platform_user_id": int,
    "guest_id": int,
    "staff_id": int,
    "username": str,
    "pass_id": int,
    "tag_id": int,
}


@dataclass
class Route:
    method: str
    path: str
    handler: object
    config: dict


ROUTES = []


def endpoint(
    method,
    path,
    *,
    auth,
    body=None,
    query=None,
    status=200,
    media="json",
    tx=True,
    errors=(),
    idempotent=False,
    produces="application/json",
    answer=None,
    also=(),
    conditional=False,
):
    """Declare an API route. `auth` is a Rule; `body` and `query` dataclasses (the handler gets them as
    `body` and `query`); `answer` the shape (doorapp.api.shapes) of a success, none for no content;
    `also` other statuses the handler answers with that shape, as (status, description) pairs;
    `conditional=True` for a route that answers 304 to a current If-None-Match; `produces` the media type
    of a success (a handler of another type than JSON returns its body as text or bytes; OpenAPI
    documents it); `tx=False` for handlers that call the
    platform or that open their own transactions (db.write(), db.atomic()); `errors` the problem codes
    the handler and what it calls raise (those of the Rule, path, body and query come with them; a test
    walks the handler to keep the list true); `idempotent=True` honours an Idempotency-Key header
    (doorapp.idempotency). A handler that needs to know who is calling takes `caller` (doorapp.caller)."""
    if not isinstance(auth, Rule):
        raise TypeError(f"{method} {path}: auth= must be a Rule from doorapp.access")
    names = re.findall(r"<(\w+)>", path)
    for name in names:
        if name not in PATH_PARAMS:
            raise TypeError(f"{method} {path}: <{name}> has no type in PATH_PARAMS")
    for name in auth.needs:
        if name not in names:
            raise TypeError(f"{method} {path}: rule {auth.name} needs <{name}> in the path")
    if (answer is None) != (status == 204 or method == "HEAD" or produces != "application/json"):
        raise TypeError(f"{method} {path}: a JSON answer needs its shape (answer=), and only it has one")

    def register(handler):
        if not (handler.__doc__ or "").strip():
            raise TypeError(f"{handler.__name__} needs a docstring: it is the API summary")
        if "user" in inspect.signature(handler).parameters:
            raise TypeError(
                f"{handler.__name__}: take `caller` (doorapp.caller.Caller; its account is caller.user)"
            )
        ROUTES.append(
            Route(
                method,
                path,
                handler,
                {
                    "auth": auth,
                    "body": body,
                    "query": query,
                    "status": status,
                    "media": media,
                    "tx": tx,
                    "errors": tuple(errors),
                    "idempotent": idempotent,
                    "produces": produces,
                    "answer": answer,
                    "also": tuple(also),
                    "conditional": conditional,
                },
            )
        )
        return handler

    return register


def page(query, limit, offset, plural, render, total=None):
    """A paged list: {total, limit, offset, <plural>}. `total` is a cheaper query to count, when the page's
    query joins tables only to render its rows (counting a million joined rows reads a million rows)."""
    return {
        "total": (query if total is None else total).count(),
        "limit": limit,
        "offset": offset,
        plural: [render(row) for row in query.limit(limit).offset(offset)],
    }


def settings():
    """The running app's Config."""
    from bottle import request

    return request.app.config["door.config"]


def adapter():
    """The running app's platform adapter."""
    from bottle import request

    return request.app.config["door.platform"]


def signing_keys():
    """The running app's signing key (doorapp.keys.Keys)."""
    from bottle import request

    return request.app.config["door.keys"]


def client_address():
    """The caller's address, behind the trusted proxies of the configuration."""
    return access.client_address(access.trusted_networks(settings().trusted_proxies))


# --- Door passes: their shape, shared by /auth/ (a phone's token, its userinfo) and their routes ----------


class Pass(TypedDict):
    """A door pass: a phone's way in to one organization's door (its meetup, or every open meetup when
    `meetup_id` is null) until `ends_at`, with no account; `check_ins`: the check-ins it made."""

    id: int
    label: str
    org_id: UUID
    meetup_id: UUID | None
    ends_at: MOMENT
    created_at: MOMENT
    created_by: Person
    paired_at: MOMENT | None
    last_seen_at: MOMENT | None
    revoked_at: MOMENT | None
    check_ins: int


# `pass` is a Python keyword: the shape is declared as a call
PassHolder = TypedDict("PassHolder", {"pass": Pass})
PassHolder.__doc__ = "Who a door pass's token is: the pass (GET /auth/userinfo)."


def pass_json(door_pass):
    """Pass, from a row of audit.door_passes() (its maker and `check_ins` joined)."""
    return Pass(
        id=door_pass.id,
        label=door_pass.label,
        org_id=str(door_pass.org_id),
        meetup_id=door_pass.meetup_id and str(door_pass.meetup_id),
        ends_at=iso(door_pass.ends_at),
        created_at=iso(door_pass.created_at),
        created_by=person_json(door_pass.created_by),
        paired_at=iso(door_pass.paired_at),
        last_seen_at=iso(door_pass.last_seen_at),
        revoked_at=iso(door_pass.revoked_at),
        check_ins=door_pass.check_ins,
    )


def pass_of(org_id, pass_id):
    """Pass of the org's door pass `pass_id`, or None."""
    found = door_passes(org_id, pass_id).first()
    return found and pass_json(found)


# --- How phones on the venue network reach Door (the Phones screen, door passes' pairing addresses) ------

EVERY_ADDRESS = ("0.0.0.0", "::", "")
# A documentation address (RFC 5737, TEST-NET-2) that no network uses: connecting a UDP socket to it only
# asks this computer which of its addresses its default route would send from. Nothing is sent.
NOWHERE = ("198.51.100.1", 9)


def lan_address():
    """This computer's address on its default network (the venue's Wi-Fi), or None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(NOWHERE)
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address


def only_this_computer(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name


def phone_access(host, port, public_url, command=None):
    """How phones reach a Door listening on host:port: {listening, urls, open_to_lan}. `urls` holds
    DOOR_PUBLIC_URL when set (a reverse proxy's address), else the address Door listens on (for 0.0.0.0:
    this computer's address on its network). It is empty when only this computer can open Door, and then
    `open_to_lan` says how to change that: `command` (lan_command), else the plain one."""
    urls, open_to_lan = [], None
    if public_url:
        urls = [public_url]
    elif only_this_computer(host):
        command = command or f"{PROG} serve --host 0.0.0.0"
        open_to_lan = {"command": command, "setting": "DOOR_HOST=0.0.0.0"}
    else:
        address = lan_address() if host in EVERY_ADDRESS else host
        if address:
            urls = [f"http://{f'[{address}]' if ':' in address else address}:{port}/"]
    return {"listening": {"host": host, "port": port}, "urls": urls, "open_to_lan": open_to_lan}


def qr_code(text):
    """A QR code of `text` as an SVG data: URI, made here with no network: black on white, with the
    four-module quiet zone scanners need (the screen is dark)."""
    return segno.make(text, error="m", micro=False).svg_data_uri(border=4, dark="#000", light="#fff")


def phone_urls():
    """phone_access() of this Door as it listens now (the port really bound: 0 picks one)."""
    from bottle import request

    config = settings()
    port = int(request.environ.get("SERVER_PORT") or config.port)
    return phone_access(config.host, port, config.public_url, request.app.config.get("door.lan_command"))


def phones_address():
    """The address a phone opens Door at: DOOR_PUBLIC_URL, or this computer's on its network, or, when
    only this computer can open Door, the one this request came to."""
    from bottle import request

    urls = phone_urls()["urls"]
    return urls[0] if urls else f"{request.urlparts.scheme}://{request.urlparts.netloc}/"


# --- Body fields of accounts, for /auth/ and /setup -------------------------------------------------------


def username_field():
    return text(
        max_length=64,
        strip=False,
        normalize=new_username,
        doc="1-64 characters (kept in Unicode NFKC form), no spaces or invisible characters.",
    )


def password_field():
    return text(min_length=15, max_length=128, strip=False, doc="15-128 characters.")


@dataclass
class Credentials:
    username: str = username_field()
    password: str = password_field()


# --- a guest at the door, as several prefixes' answers name them and count what they brought --------------


def named(guest):
    """A guest as the door names them: display name and @username (or that they are not on the platform)."""
    handle = "not on the platform" if guest.is_local else f"@{guest.username}"
    return f"{guest.displayname} ({handle})" if guest.displayname else handle


GUESTS_BROUGHT = "How many of the guest's RSVP'd guests (`guests_count`) came with them: 0 to guests_count."


def guests_brought(entry, brought):
    """How many of the entry's guests came: `brought` (all of them when None); 422 too_large past its
    guests_count (a walk-in has none: their companions are walk-ins of their own)."""
    if brought is None:
        return entry.guests_count
    if brought > entry.guests_count:
        where, most = ("body", "guests_brought"), entry.guests_count
        msg = (
            f"{named(entry.guest)} RSVP'd {most} guest{'s' * (most != 1)}: at most {most} can come with them."
        )
        raise validation_error([invalid(where, "too_large", msg, max=most)])
    return brought


def passes_ended(caller, passes):
    """A PASS_REVOKED event, by `caller`, for each of the door passes just ended (DoorPass.revoke and the
    like: rows with their id, org and label)."""
    for door_pass in passes:
        record(
            AuditType.PASS_REVOKED, caller, org=door_pass.org_id, pass_id=door_pass.id, label=door_pass.label
        )
