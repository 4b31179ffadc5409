"""The route table: endpoint() declares a route with its Rule; create_app registers ROUTES in order.

Each module of this package serves one URL prefix and imports, of its siblings, only this one (what
routes of several prefixes share) and shapes (the JSON of each object)."""

import re
import uuid
from dataclasses import dataclass

from doorapp import access
from doorapp.access import Rule
from doorapp.bodies import text
from doorapp.models.accounts import new_username

# Path ids are typed here, once; a wrong type is 422 with loc ["path", name].
PATH_PARAMS = {
    "org_id": uuid.UUID,
    "meetup_id": uuid.UUID,
    "user_id": int,
    "platform_user_id": int,
    "guest_id": int,
    "staff_id": int,
    "username": str,
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
    (doorapp.idempotency)."""
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
