"""create_app(config): the only place that wires Door together."""

import contextlib
import logging
import re
import uuid
from dataclasses import replace
from urllib.parse import quote

from bottle import Bottle, request, response
from peewee import OperationalError

from doorapp import keys, pages, platforms
from doorapp.api import (  # noqa: F401 (importing a module registers its routes, in this order)
    ROUTES,
    auth,
    events,
    guest_lines,
    guests,
    health,
    imports,
    meetup_guests,
    meetups,
    openapi,
    org_guests,
    organizations,
    passes,
    phones,
    platform,
    privacy,
    room,
    setup,
    staff,
    summary,
    tags,
    users,
)
from doorapp.db import connect, database_for, db, drop_if_cut
from doorapp.errors import LOGGED_SAFE, ApiError, render_problem
from doorapp.migrations import migrate
from doorapp.paths import private_dir, private_file
from doorapp.plugin import ApiPlugin

log = logging.getLogger("doorapp")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
API_TYPES = ("application/json", "application/problem+json", "text/csv")  # answers no cache may keep
PUBLIC_URL = re.compile(r"https?://[^\s/?#]+(/\S*)?")


def create_app(config, before_upgrade=None):
    """A Bottle app for `config`, with its database bound and migrated."""
    prepare(config, before_upgrade)
    signing = keys.Keys(config)
    config = replace(config, secret_key=signing.secret)  # the key at start (tests sign with it)

    app = Bottle()
    app.uninstall("json")  # the ApiPlugin writes the JSON itself (plugin.serialize)
    app.config["door.config"] = config
    app.config["door.keys"] = signing
    app.config["door.platform"] = platforms.load(config)
    app.default_error_handler = render_problem
    app.install(ApiPlugin(config, signing))
    for route in ROUTES:
        app.route(route.path, route.method, route.handler, **route.config)
    pages.add_routes(app)

    @app.hook("before_request")
    def start_request():
        readable_headers(request.environ)
        sent = request.get_header("X-Request-ID", "")
        request.environ["door.request_id"] = sent if _REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex
        path = request.environ.get("bottle.raw_path", "").encode(
            "latin-1", "replace"
        )  # PEP 3333's bytes-as-str
        request.environ["door.raw_path"] = quote(path, safe=LOGGED_SAFE)
        if not utf8(path):  # Bottle would drop the bytes: /organizations/%FF would be /organizations/
            raise ApiError(
                400, "bad_request", "The path is not UTF-8 text (an invalid percent-escape)."
            ).response()
        drop_if_cut()
        with contextlib.suppress(OperationalError):  # answered per route: /health says so, others answer 503
            db.connect(reuse_if_open=True)

    @app.hook("after_request")
    def finish_request():
        request_id = request.environ.get("door.request_id", "-")
        response.set_header("X-Request-ID", request_id)
        response.set_header("X-Content-Type-Options", "nosniff")
        kind = response.content_type.split(";")[0]
        if kind in API_TYPES and "Cache-Control" not in response.headers:  # tokens, codes, names
            response.set_header("Cache-Control", "no-store")
        # the path as sent (percent-encoded): a decoded %0a would start a forged log line
        log.info(
            "%s %s %s %s",
            request_id,
            request.method,
            request.environ.get("door.raw_path", "-"),
            response.status_code,
        )

    return app


def prepare(config, before_upgrade=None):
    """The data folder, settings and database checked, the database bound and migrated (what every
    command needs before it acts)."""
    private_dir(config.data_dir)  # recovery-code hashes and the signing key: the owner's alone
    keys.given(config)
    if config.public_url and not PUBLIC_URL.fullmatch(config.public_url):
        raise SystemExit(
            f"DOOR_PUBLIC_URL must be an http:// or https:// address, not {config.public_url!r}."
        )
    open_database(config)
    migrate(before_upgrade)


def utf8(data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def readable_headers(environ):
    """Headers whose bytes are no UTF-8 made readable, once for every reader: Bottle decodes a header as
    UTF-8 when it is read and would fail the request with a 500; each byte that is not becomes U+FFFD,
    which no header Door reads accepts (a bad token, a key or address of the wrong form)."""
    for name, value in environ.items():
        if name.startswith("HTTP_") and isinstance(value, str):
            data = value.encode("latin-1", "replace")  # PEP 3333: the header's bytes as Latin-1 text
            if not utf8(data):
                environ[name] = data.decode("utf-8", "replace").encode().decode("latin-1")


def open_database(config):
    """Bind the models to the configured database: PostgreSQL, or a SQLite file (<data dir>/door.db)."""
    path = config.database_path
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        for part in (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm"))):
            if part == path or part.exists():
                private_file(part)
    connect(database_for(config.database_url, path))
