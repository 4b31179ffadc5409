"""What several test modules share: constants, URL and audit-log helpers, counting queries, starting
`doorapp` in a process of its own, checking answers against /openapi.json, guest list files in each format
an import reads. The one module tests import besides the fakes (conftest holds the fixtures; no test module
imports another)."""

import csv
import gzip
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bottle import HTTPError
from openapi_schema_validator import OAS31Validator, oas31_format_checker
from openpyxl import Workbook
from webtest import TestApp

from doorapp import access, openapi
from doorapp.app import create_app
from doorapp.config import Config
from doorapp.db import db, utcnow
from doorapp.models import AuditEvent, Guest, Meetup, MeetupGuest, Org, User

# `pytestmark = ENGINES` runs a module's tests on SQLite and on the session's PostgreSQL server.
ENGINES = pytest.mark.parametrize("engine", ["sqlite", "postgresql"], indirect=True)
PASSWORD = "correct horse battery staple"
# The day a module's fixed dates were written for (the fixture `on_the_day` sets the clock to it): the meetup
# fixture's night is a week later, 2026-12-05, and RSVPs came in on 2026-11-20.
THE_DAY = datetime(2026, 11, 28, 12, tzinfo=UTC)


def next_week():
    """20:00 UTC a week from today: a night still to come, whatever the day."""
    return (utcnow() + timedelta(days=7)).replace(hour=20, minute=0, second=0, microsecond=0)


SECRET = "test-signing-key-that-is-long-enough-for-hs256"


def events(*types):
    """The audit log so far, oldest first (of these types, when given)."""
    query = AuditEvent.select().order_by(AuditEvent.id)
    return list(query.where(AuditEvent.event_type.in_(types)) if types else query)


def add_guest(platform_user_id, username, meetup=None, **entry_fields):
    """A guest, on the meetup's list when one is given (with these entry fields)."""
    guest = Guest.create(platform_user_id=platform_user_id, username=username, displayname=username.title())
    if meetup is not None:
        MeetupGuest.create(meetup=meetup, guest=guest, **entry_fields)
    return guest


def add_guests(meetup, ids):
    """Guests `ids` (guest<id>), on the meetup's list."""
    Guest.insert_many([{"platform_user_id": i, "username": f"guest{i}"} for i in ids]).execute()
    MeetupGuest.insert_many(
        [{"meetup": meetup.id, "guest": i, "rsvp_time": datetime(2026, 11, 1)} for i in ids]
    ).execute()


def prepared_database(data_dir, database_url, guests):
    """A database (for a Door started on it later) with an org, a staff member and a meetup whose list
    holds `guests`; the meetup and the staff's headers."""
    create_app(Config(data_dir=data_dir, secret_key=SECRET, database_url=database_url))
    org = Org.create(name="Night Owls", slug="night-owls")
    user = User.create(username="sam", password_hash="x", is_approved=True, role="SITE_ADMIN")
    meetup = Meetup.create(org=org, name="Storm", date=next_week(), platform_url="https://x/y/storm")
    add_guests(meetup, guests)
    db.close()
    return meetup, auth(user)


def base(meetup):
    """A meetup's URL."""
    return f"/organizations/{meetup.org_id}/meetups/{meetup.id}"


def entry(meetup, guest):
    """The URL of a guest on a meetup's list."""
    return f"{base(meetup)}/guests/{guest.platform_user_id}"


def auth(user):
    """The Authorization header of a token for `user`."""
    return {"Authorization": f"Bearer {access.issue_token(SECRET, user, 60)}"}


def read_csv(reply, delimiter=","):
    """The rows of a CSV answer, which starts with the byte-order mark spreadsheets read UTF-8 by."""
    assert reply.body.startswith("\ufeff".encode())
    return list(csv.reader(io.StringIO(reply.body.decode("utf-8-sig"), newline=""), delimiter=delimiter))


PASS_LABEL = "Maria's phone"


def make_pass(boss, meetup, **fields):
    """A new door pass of the meetup (its answer, with its pairing code), made by `boss` (an org admin's
    client)."""
    reply = boss.post_json(
        f"/organizations/{meetup.org_id}/passes", {"label": PASS_LABEL, "meetup_id": str(meetup.id), **fields}
    )
    assert reply.status_int == 201
    return reply.json


def phone_of(client, made):
    """A client of the same app with the token of the door pass `made` (its pairing code used now)."""
    phone = TestApp(client.app)
    token = client.post_json("/auth/pass", {"code": made["pairing"]["code"]}).json["access_token"]
    phone.authorization = ("Bearer", token)
    return phone


def at_once(count, call):
    """`call(i)` from `count` threads released together; their results in thread order."""
    barrier = threading.Barrier(count)

    def run(i):
        barrier.wait()
        return call(i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


@contextmanager
def assert_query_count(expected):
    """Fail unless exactly `expected` SQL statements run inside the block (in any thread), as peewee's
    test helper of the same name does; BEGIN and COMMIT are not counted. Yields the list of statements."""
    statements, database = [], db.obj
    run = database.execute_sql

    def counting(sql, params=None, **options):
        statements.append(sql)
        return run(sql, params, **options)

    database.execute_sql = counting
    try:
        yield statements
    finally:
        del database.execute_sql  # the class's method again
    assert len(statements) == expected, f"{len(statements)} statements, not {expected}:\n" + "\n".join(
        statements
    )


def follow(held, answer):
    """The door list a door holds once it applies a door-list answer as the API says a door does (replace
    entries by platform_user_id, drop `removed`, take `total`, `counts` and `meetup` as given; a `full` one
    replaces it all): {version, total, counts, meetup, guests: {platform_user_id: entry}}. `held`: what it
    held before (None: nothing yet)."""
    guests = {} if held is None or answer["full"] else dict(held["guests"])
    guests.update((entry["guest"]["platform_user_id"], entry) for entry in answer["guests"])
    for gone in answer["removed"]:
        guests.pop(gone, None)
    kept = ("version", "total", "counts", "meetup")
    return {**{key: answer[key] for key in kept}, "guests": guests}


def create_meetup(client, org, url, status=201):
    """POST /organizations/{org}/meetups/ from the event at `url`; the WebTest response."""
    return client.post_json(f"/organizations/{org.id}/meetups/", {"platform_url": url}, status=status)


# --- real processes: `doorapp serve` and the one-file executable -----------------------------------------

DOORAPP = str(Path(sys.executable).parent / "doorapp")  # the console script of the venv running the tests
_NOT_INHERITED = ("DOOR_", "DATABASE_URL", "PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")  # no browser in tests


def door_env(**settings):
    """This environment without Door's settings or a desktop, plus `settings`."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED)}, **settings}


class Served:
    """A server process that printed its URL (the last line `serve` prints when it starts)."""

    def __init__(self, command, env, **popen):
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            **popen,
        )
        self.lines, self.log = [], []
        threading.Thread(target=lambda: self.log.extend(self.process.stderr), daemon=True).start()
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            found = re.search(r"Door is running at (http://\S+?)/? ", line)
            if found:
                self.url = found.group(1)
                break
        else:
            raise AssertionError(
                f"{command} exited with {self.process.wait()} before printing its URL:\n" + "".join(self.log)
            )
        threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True).start()

    @property
    def setup_code(self):
        """The setup code it printed, or None."""
        codes = [line.removeprefix("Setup code: ") for line in self.lines if line.startswith("Setup code: ")]
        return codes[0] if codes else None

    def stop(self, signum=signal.SIGTERM):
        """Send `signum` and return the exit status (TimeoutExpired after 10 s)."""
        self.process.send_signal(signum)
        return self.process.wait(timeout=10)


def children(pid):
    """The ids of the processes whose parent is `pid` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return found


@contextmanager
def served(*command, env=None):
    """Start `command` (DOORAPP, "serve", ...) in a clean environment; killed at the end if still running."""
    server = Served([str(part) for part in command], door_env(**(env or {})))
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


# --- guest list files as organizers download them (invented people; real column names and value shapes) ---

MEETUP_XLS_HEADER = [
    "Name", "User ID", "Title", "Event Host", "RSVP", "Guests", "RSVPed on", "Joined Group on",
    "URL of Member Profile", "Notes",
]  # fmt: skip
LUMA_HEADER = [
    "api_id", "name", "first_name", "last_name", "email", "phone_number", "created_at", "approval_status",
    "checked_in_at", "ticket_name", "What do you hope to learn?",
]  # fmt: skip
PEOPLE = [  # (name, member id, RSVP, guests)
    ("Ana García", 12537919, "Yes", 1),
    ("Tomás O'Neill, Jr.", 20000002, "Yes", 0),
    ('=HYPERLINK("http://x")', 20000003, "Waitlist", 0),
    ("Wei Zhang", 20000004, "No", 0),
    ("Priya Raman", 20000005, "Yes", 2),
]


def meetup_xls(people=PEOPLE, bom=True):
    """Meetup's older export: tab-separated text named .xls."""
    lines = ["\t".join(MEETUP_XLS_HEADER)]
    for name, member, rsvp, guests in people:
        url = f"https://www.meetup.com/members/{member}/"
        lines.append(f"{name}\tuser {member}\t\tNo\t{rsvp}\t{guests}\t11/20/2026\t03/14/2024\t{url}\t")
    return (("\ufeff" if bom else "") + "\r\n".join(lines) + "\r\n").encode("utf-8")


def meetup_csv(people=PEOPLE):
    """Meetup's newer CSV: quoted names with commas, an event question whose answers span lines."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Name", "User ID", "RSVP", "Guests", "RSVPed on", "What brings you here?"])
    for name, member, rsvp, guests in people:
        writer.writerow([name, f"user {member}", rsvp, guests, "11/19/2026", "Line one\nline two, too"])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


LUMA_PEOPLE = [  # (first name, last name, approval_status)
    ("Lena", "Fischer", "approved"), ("Omar", "Haddad", "waitlist"), ("Jo", "Kim", "declined"),
    ("Ravi", "Shah", "pending_approval"), ("Mia", "Rossi", "invited"), ("Sam", "Lee", "approved"),
]  # fmt: skip


def luma_csv(people=LUMA_PEOPLE):
    """Luma's guest CSV: one api_id per guest (the same in a newer export), a registration question."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(LUMA_HEADER)
    for first, last, status in people:
        writer.writerow(
            [f"gst-{first}{last}aBcD", f"{first} {last}", first, last, f"{first.lower()}@example.org", "",
             "2026-11-18T09:30:00.000Z", status, "", "Standard", "Rust"]
        )  # fmt: skip
    return out.getvalue().encode("utf-8")


def xlsx(rows):
    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def spanish_excel(
    people=(("José", "Núñez", "Sí"), ("María", "Peña Ibáñez", ""), ("Álvaro", "Gómez", "lista de espera")),
):
    """A list saved by Spanish Excel: Windows-1252, semicolons, Spanish headers and statuses."""
    lines = ["Nombre;Apellidos;Correo electrónico;Estado"]
    lines += [f"{first};{last};{first.lower()}@example.es;{status}" for first, last, status in people]
    return ("\r\n".join(lines) + "\r\n").encode("cp1252")


# --- every answer as /openapi.json declares it --------------------------------------------------------------


PROBLEM_ONLY = {"content": {"application/problem+json": {"schema": openapi.PROBLEM_REF}}}  # the router's


class Conformance:
    """Watches an app's answers (conftest's `app` does, for every test): each must have a status its
    operation declares, with the declared media type and a body its schema validates (successes and
    problems alike), or no body where none is declared. A drift is kept in `failures` (conftest fails the
    test with them) and, for WebTest, fails the request that shows it at once; a served request (a
    browser's) still gets its answer, so the test's own steps go on."""

    def __init__(self, app):
        self.app, self.wsgi, self.failures = app, app.wsgi, []
        self.document, self.validators = None, {}
        app.wsgi = self  # Bottle.__call__ calls self.wsgi: every client of the app comes through here

    def __call__(self, environ, start_response):
        sent = {}

        def start(status, headers, exc_info=None):
            sent.update(status=status, headers=headers, exc_info=exc_info)
            return lambda data: None

        answer = self.wsgi(environ, start)
        try:
            body = b"".join(answer)
        finally:
            getattr(answer, "close", lambda: None)()
        failure = self.check(environ, int(sent["status"][:3]), dict(sent["headers"]), body)
        if failure:
            self.failures.append(failure)
            if environ.get("paste.testing"):  # WebTest: in the test's own thread
                raise AssertionError(failure)
        start_response(sent["status"], sent["headers"], sent["exc_info"])
        return [body]

    def check(self, environ, status, headers, body):
        """Why this answer breaks the document, or None."""
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        try:
            route = self.app.router.match({"PATH_INFO": path, "REQUEST_METHOD": method})[0]
        except HTTPError:  # no route: the router's own 404 or 405, a problem
            route = None
        if route is not None and "auth" not in route.config:
            return None  # a page or a static file
        if self.document is None:
            self.document = openapi.build(self.app)
        where = f"{method} {path} answered {status}"
        declared = (
            PROBLEM_ONLY if route is None else self.responses(route).get(str(status), {"undeclared": 1})
        )
        media = headers.get("Content-Type", "").split(";")[0].strip()
        if "undeclared" in declared:
            return f"{where}, which its operation does not declare: {body[:300]!r}"
        if "content" not in declared or method == "HEAD":
            return f"{where} with a body where none is declared: {body[:300]!r}" if body else None
        if media not in declared["content"]:
            return f"{where} as {media!r}, not as {sorted(declared['content'])}"
        if not media.endswith("json"):
            return None
        body = gzip.decompress(body) if headers.get("Content-Encoding") == "gzip" else body
        errors = list(self.validator(declared["content"][media]["schema"]).iter_errors(json.loads(body)))
        wrong = "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
        return f"{where} with a body its schema refuses: {wrong}" if errors else None

    def responses(self, route):
        """The responses the document declares for the route."""
        template = re.sub(r"<(\w+)>", r"{\1}", route.rule)
        return self.document["paths"][template][route.method.lower()]["responses"]

    def validator(self, schema):
        key = json.dumps(schema, sort_keys=True)
        if key not in self.validators:  # the schema's $refs point into the document's components
            root = {**schema, "components": self.document["components"]}
            self.validators[key] = OAS31Validator(root, format_checker=oas31_format_checker)
        return self.validators[key]
