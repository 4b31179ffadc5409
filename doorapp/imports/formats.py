"""Which export a table is, recognised from its header row (never the file's name), and its rows as guest
entries: Meetup's attendee exports, Luma's guest CSV, or any sheet with a name column ("table").

A row that cannot be used is a problem (its 1-based row number and why), never a refusal of the file."""

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

HEADER_SEARCH = 20  # rows above the header: a title, a date, blank rows
MAX_NAME = 255
MAX_GUESTS = 99
HINT = 4  # characters of an e-mail or id a guest's hint shows
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
NOT_TEXT = re.compile(r"[\ufffd\ud800-\udfff]")  # what decoding could not read, a lone surrogate
MEETUP_MEMBER = re.compile(r"(?:^user\s+|/members/)(\d{1,19})/?$")

# Header words (compared folded: lower case, no accents, single spaces) of each role in a "table".
FULL_NAME = ("name", "full name", "nombre completo", "nombre y apellidos", "guest", "attendee", "invitado")
FIRST_NAME = ("first name", "firstname", "given name", "first", "nombre", "nombres")
LAST_NAME = ("last name", "lastname", "surname", "family name", "last", "apellidos", "apellido")
ID = ("id", "user id", "member id", "guest id", "api_id", "guest_id", "identificador", "socio", "dni")
EMAIL = ("email", "e-mail", "email address", "correo", "correo electronico", "mail")
STATUS = ("status", "rsvp", "approval_status", "estado", "asistencia", "response", "respuesta")
GUESTS = ("guests", "plus ones", "+1", "invitados", "acompanantes", "acompanante")

FORMATS = ("meetup", "luma", "table")
EXPECTED, WAITLISTED, NOT_EXPECTED = "expected", "waitlisted", "not_expected"
STATUSES = {
    EXPECTED: ("", "yes", "si", "approved", "going", "attending", "confirmed", "confirmado", "y", "1"),
    WAITLISTED: ("waitlist", "waitlisted", "waiting", "lista de espera", "en espera", "espera"),
    NOT_EXPECTED: (
        "no",
        "n",
        "0",
        "declined",
        "invited",
        "not going",
        "cancelled",
        "canceled",
        "cancelado",
        "rechazado",
    ),
}
STATUS_OF = {word: status for status, words in STATUSES.items() for word in words}


@dataclass(slots=True)
class Entry:
    row: int
    key: str  # who this is: "<format>:<id in the file>", or "name:<name>|<e-mail>" without an id
    name: str
    status: str = EXPECTED
    guests: int = 0
    rsvp_time: datetime | None = None
    checked_in_at: datetime | None = None  # Luma's: when its own door let them in
    member_id: int | None = None  # a Meetup member's id (the `meetup` adapter's guest id)
    hint: str = ""  # what tells namesakes apart at the door (Guest.hint): "email:lena", "id:7919"


@dataclass
class Sheet:
    format: str
    columns: dict  # role -> the header text used for it (name: a list of one or two)
    entries: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # [{row, message}]
    choices: list = field(default_factory=list)  # other name columns the person may pick instead


PROBLEMS = ("no_name", "not_text", "control_characters", "too_long", "unknown_status", "guests", "duplicate")
PROBLEMS += ("far_time", "awaiting_approval")
PROBLEMS += ("unreadable",)  # any other reason a row cannot be read


class NoHeader(Exception):
    """No row near the top names the guests' column."""


class Problem(ValueError):
    """A row that cannot be used: args[0] says why in English, `kind` in one word (PROBLEMS) and its
    `details`, for clients that say it in another language."""

    def __init__(self, message, kind, **details):
        assert kind in PROBLEMS, kind
        super().__init__(message)
        self.kind, self.details = kind, details


def fold(text):
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return " ".join(text.lower().split())


def name_key(name):
    """Who a name is, for telling a file's people apart: folded as header words are (lower case, no
    accents, single spaces: José Núñez is jose nunez, the key such names have always had) when that keeps
    every letter; else in full, cased alike (田中 花子, Иван Петров, Søren Ørsted), so a name in any script
    stays its own person. (fold() alone kept the ASCII letters only, and made every non-Latin name one.)"""
    decomposed = unicodedata.normalize("NFKD", name)
    if all(c.isascii() or unicodedata.category(c).startswith("M") for c in decomposed):
        return fold(name)
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def ascii_key_lost_letters(name):
    """Whether the key names had before name_key() (fold()) dropped letters of `name`: rows of several
    people with such names may have been read as one guest (migrations.m0018 reports them)."""
    return name_key(name) != fold(name)


def header_row(rows):
    """(index of the header row, its folded cells): the first of the top rows with a name column."""
    for index, row in enumerate(rows[:HEADER_SEARCH]):
        cells = [fold(c) for c in row]
        if any(c in FULL_NAME or c in FIRST_NAME for c in cells):
            return index, cells
    raise NoHeader


def recognise(rows, name_columns=None):
    """The Sheet of `rows`. `name_columns`, when given, are the header texts of the name column (or of the
    first-name and last-name columns) chosen by the person instead of the guessed ones."""
    index, cells = header_row(rows)
    if "user id" in cells and "rsvp" in cells and "name" in cells:
        kind = "meetup"
    elif "api_id" in cells and "approval_status" in cells and "name" in cells:
        kind = "luma"
    else:
        kind = "table"
    roles, choices = roles_of(kind, rows[index], cells, name_columns)
    sheet = Sheet(kind, {r: _header(rows[index], c) for r, c in roles.items()}, choices=choices)
    seen = {}
    for number, row in enumerate(rows[index + 1 :], start=index + 2):
        if not any(cell.strip() for cell in row):
            continue
        try:
            entry = read_row(kind, roles, row, number)
        except ValueError as problem:
            kind, details = getattr(problem, "kind", "unreadable"), getattr(problem, "details", {})
            sheet.problems.append({"row": number, "message": problem.args[0], "kind": kind, **details})
            continue
        if entry.key in seen:
            message = f"The same guest as row {seen[entry.key]}; this row was left out."
            sheet.problems.append(
                {"row": number, "message": message, "kind": "duplicate", "same_as": seen[entry.key]}
            )
            continue
        seen[entry.key] = number
        sheet.entries.append(entry)
    return sheet


def _header(row, columns):
    return [row[c] for c in columns] if isinstance(columns, tuple) else row[columns]


def roles_of(kind, row, cells, chosen):
    """{role: column index (name: a tuple of one or two)} and the other name columns there were."""
    find = {c: i for i, c in reversed(list(enumerate(cells))) if c}

    def pick(words):
        return next((find[w] for w in words if w in find), None)

    options = name_options(kind, find, pick, chosen)
    roles = {"name": options[0]}
    for role, words in (("id", ID), ("email", EMAIL), ("status", STATUS), ("guests", GUESTS)):
        column = pick(("user id",) if kind == "meetup" and role == "id" else words)
        if column is not None:
            roles[role] = column
    extra = {"meetup": (("profile", "url of member profile"), ("rsvp_time", "rsvped on"))}
    extra["luma"] = (("rsvp_time", "created_at"), ("checked_in", "checked_in_at"))
    for role, header in extra.get(kind, ()):
        if header in find:
            roles[role] = find[header]
    return roles, [[row[c] for c in option] for option in options[1:]]


def name_options(kind, find, pick, chosen):
    """The ways to read a name, best first: (full name,), (first, last); the person's choice leads."""
    full, first, last = pick(FULL_NAME), pick(FIRST_NAME), pick(LAST_NAME)
    if kind == "luma":
        full = find["name"]
    options = [(full,)] if full is not None else []
    if first is not None and last is not None and first != full:
        options.append((first, last))
    elif first is not None and full is None:
        options.append((first,))
    if chosen:
        by_text = tuple(find.get(fold(c)) for c in chosen)
        if None in by_text:
            raise NoHeader(f"The file has no column named {', '.join(chosen)}.")
        options.insert(0, by_text)
    elif kind == "table" and len(options) == 2 and len(options[1]) == 2:
        options.reverse()  # "Nombre" and "Apellidos" beside a "Name" of something else: the pair is surer
    return options


def _cell(row, column):
    return row[column].strip() if column is not None and column < len(row) else ""


def read_row(kind, roles, row, number):
    """The Entry of one data row; ValueError(message) when it cannot be one."""
    name = " ".join(filter(None, [_cell(row, c) for c in roles["name"]]))
    if not name:
        raise Problem("No name in this row; it was left out.", "no_name")
    if CONTROL.search(name):
        raise Problem("The name holds control characters; this row was left out.", "control_characters")
    if NOT_TEXT.search(name):
        raise Problem("The name holds bytes that are not text; this row was left out.", "not_text")
    if len(name) > MAX_NAME:
        message = f"The name is longer than {MAX_NAME} characters; this row was left out."
        raise Problem(message, "too_long", max=MAX_NAME)
    raw_status = _folded(_cell(row, roles.get("status")))
    if raw_status == "pending_approval":
        raise Problem("Awaiting approval on Luma; left out until it is approved.", "awaiting_approval")
    if raw_status not in STATUS_OF:
        value = _cell(row, roles["status"])[:40]
        raise Problem(f"Unknown status {value!r}; this row was left out.", "unknown_status", value=value)
    entry = Entry(number, "", name, STATUS_OF[raw_status], _guests(_cell(row, roles.get("guests"))))
    entry.rsvp_time, entry.checked_in_at = (_when(row, roles, role) for role in ("rsvp_time", "checked_in"))
    entry.key = _key(kind, roles, row, entry)
    return entry


def _key(kind, roles, row, entry):
    email = _cell(row, roles.get("email")).lower()
    own = _cell(row, roles.get("id"))
    entry.hint = _hint(email, own)
    if kind == "meetup":
        for role in ("id", "profile"):
            found = MEETUP_MEMBER.search(_cell(row, roles.get(role)))
            if found and int(found.group(1)) < 2**63:
                entry.member_id = int(found.group(1))
                entry.hint = entry.hint or f"id:{str(entry.member_id)[-HINT:]}"
                return f"meetup:{entry.member_id}"
    if own and kind != "meetup":
        return f"{kind}:{own[:200]}"
    return f"name:{name_key(entry.name)}|{email[:200]}"


def _hint(email, own):
    """What tells a guest apart from namesakes at the door without showing who they are: the first
    letters of their e-mail, else the last characters of their id in the file."""
    local = email.partition("@")[0]
    if local and not CONTROL.search(local):
        return f"email:{local[:HINT]}"
    own = own.removeprefix("user ").strip()
    return f"id:{own[-HINT:]}" if own and not CONTROL.search(own) else ""


def _when(row, roles, role):
    """The moment in the row's `role` column (None without one); a Problem when it is past the calendar."""
    moment = _moment(_cell(row, roles.get(role)))
    if moment is FAR:
        value = _cell(row, roles[role])[:40]
        message = f"The time {value!r} is not of these centuries; this row was left out."
        raise Problem(message, "far_time", value=value)
    return moment


def _guests(text):
    if not text:
        return 0
    # "²" is a digit to isdigit() but not to int(); a million digits are past int()'s own limit
    if not (text.isascii() and text.isdigit()) or len(text) > 4 or int(text) > MAX_GUESTS:
        message = f"Guests must be a number from 0 to {MAX_GUESTS}; this row was left out."
        raise Problem(message, "guests", max=MAX_GUESTS)
    return int(text)


@lru_cache(maxsize=256)
def _folded(text):
    return fold(text)


FAR = datetime.min  # a moment outside YEARS: a row is left out for it
YEARS = range(1900, 3000)  # an RSVP's: every time zone's local time and a day's end stay in the calendar


@lru_cache(maxsize=1024)  # an export's rows share a few hundred dates at most
def _moment(text):
    """Meetup's MM/DD/YYYY, or an ISO 8601 timestamp (Luma's), as naive UTC; None for anything else, FAR
    for a moment outside YEARS."""
    moment = None
    for pattern in ("%m/%d/%Y", "%m/%d/%Y %H:%M", "%Y-%m-%d %H:%M:%S"):
        try:
            moment = datetime.strptime(text, pattern)
            break
        except ValueError:
            pass
    if moment is None:
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
    if moment.year not in YEARS:  # before the offset is applied: year 1 less an hour is no datetime
        return FAR
    return moment.replace(tzinfo=None) - (moment.utcoffset() or timedelta(0))
