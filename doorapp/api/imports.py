"""/organizations/<org_id>/meetups/.../import: a meetup's guest list from a file the organizer downloaded
(Meetup's attendee list, Luma's guests, a spreadsheet), created or updated with a sync's semantics, or
previewed (`?preview=true`: the same work, rolled back). The reading is doorapp.imports'."""

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, NotRequired, TypedDict

from bottle import response

from doorapp import platforms
from doorapp.access import org_member
from doorapp.api import adapter, endpoint, shapes
from doorapp.api.shapes import meetup_json
from doorapp.bodies import moment, text
from doorapp.db import get_or_404, iso, utcnow
from doorapp.errors import ApiError, invalid, validation_error
from doorapp.imports import Unreadable, read
from doorapp.imports.formats import PROBLEMS
from doorapp.imports.store import store, to_create
from doorapp.models import Meetup, Org
from doorapp.models.privacy import refuse_forgotten

COLUMNS_DOC = (
    "The header of the name column to use, or of the first-name and last-name columns separated by a "
    "comma, when the preview picked others (its `other_name_columns`)."
)


class RowProblem(TypedDict):
    """A row that was not read (`row` null: the line that says how many more there were): why in English,
    and in one word (`kind`) with its details, for clients that say it in another language."""

    row: int | None
    message: str
    kind: NotRequired[Literal[PROBLEMS]]
    max: NotRequired[int]
    value: NotRequired[str]
    same_as: NotRequired[int]


class FirstRow(TypedDict):
    row: int
    name: str
    status: Literal["expected", "waitlisted", "not_expected"]
    guests: int


class FormulaRow(TypedDict):
    """A row whose name a spreadsheet would run as a formula (=HYPERLINK(...)): kept as text, flagged."""

    row: int
    name: str


class ImportNames(TypedDict):
    """Who an import adds, updates (by the name it gives them), cancels and keeps (guests who have arrived,
    whom the file no longer lists: never cancelled): at most 50 names of each, in alphabetical order (the
    report's counts say how many in all)."""

    added: list[str]
    updated: list[str]
    cancelled: list[str]
    kept: list[str]


class ImportReport(TypedDict):
    """What an import did (or, previewed, would do) to the meetup's list (docs/api.md)."""

    format: Literal["meetup", "luma", "table"]
    rows: int
    added: int
    updated: int
    cancelled: int
    kept: int
    checked_in: int
    names: ImportNames
    unchanged: int
    problems: list[RowProblem]
    columns: dict[str, str | list[str]]
    other_name_columns: list[list[str]]
    expected: int
    waitlisted: int
    not_expected: int
    total: int
    first_rows: list[FirstRow]
    formulas: list[FormulaRow]


class ImportEvent(TypedDict):
    """The meetup a create's preview would make; null where neither the form nor the platform gave it."""

    name: str | None
    date: shapes.MOMENT | None
    platform_url: str | None


# "import" is a keyword: the functional form of TypedDict names it
ImportAnswer = TypedDict(
    "ImportAnswer",
    {"meetup": NotRequired[shapes.Meetup], "import": ImportReport, "event": NotRequired[ImportEvent]},
)
PREVIEWED = ((200, "A preview: the report of what the file would do; nothing was stored."),)


@dataclass
class ImportQuery:
    preview: bool = False


@dataclass
class NewImportForm:
    name: str | None = text(
        max_length=255,
        default=None,
        doc="The meetup's name; absent takes the title of `platform_url`'s event.",
    )
    date: datetime | None = moment(
        "When the meetup starts (ISO 8601); absent takes `platform_url`'s event's."
    )
    platform_url: str | None = text(
        max_length=1024,
        default=None,
        doc="The event's page, if it has one: where the configured platform can read it, the meetup "
        "takes its name and date from there when they are not given.",
    )
    columns: str | None = text(max_length=1024, default=None, doc=COLUMNS_DOC)


@dataclass
class ImportForm:
    columns: str | None = text(max_length=1024, default=None, doc=COLUMNS_DOC)


def sheet_of(upload, columns):
    """The upload read as a guest list, one upload at a time in this process (reading a workbook may take
    a few seconds and 100 MB: several at once must not add up); 422 unreadable_file, saying what was found,
    when it is not one; 503 when another upload was being read for READING_WAIT seconds."""
    if not _reading.acquire(timeout=READING_WAIT):
        raise ApiError(
            503,
            "service_unavailable",
            "Door is reading other files; try again in a moment.",
            {"Retry-After": "5"},
        )
    try:
        return read(upload.data, [c for c in columns.split(",") if c.strip()] if columns else None)
    except Unreadable as error:
        raise ApiError(
            422, "unreadable_file", error.args[0], file=upload.filename, found=error.found
        ) from None
    finally:
        _reading.release()


_reading = threading.Lock()
READING_WAIT = 60


def answer(meetup, report, **extra):
    """ImportAnswer: the report, with the meetup unless it was a preview, and `extra` (a preview's event)."""
    found = {"import": ImportReport(**report), **extra}
    return ImportAnswer(**found) if meetup is None else ImportAnswer(meetup=meetup_json(meetup), **found)


def meetup_ids():
    """Whether a Meetup member in a file is the running adapter's guest of the same id."""
    return adapter().name == "meetup"


def new_meetup(body, preview):
    """{name, date, platform_url} of the meetup to create (store.to_create() with the running adapter).
    A create needs a name and a date (422 naming each missing one, and a URL that could have given them);
    a preview does not."""
    found, refused = to_create(adapter(), body.name, body.date, body.platform_url)
    missing = [f for f in ("name", "date") if found[f] is None]
    if missing and not preview:
        required = [invalid(("body", f), "missing", "Required without an event URL.") for f in missing]
        raise validation_error([*refused, *required])
    return found


@endpoint(
    "POST",
    "/organizations/<org_id>/meetups/import",
    auth=org_member,
    body=NewImportForm,
    query=ImportQuery,
    media="multipart",
    status=201,
    tx=False,
    answer=ImportAnswer,
    also=PREVIEWED,
    errors=(
        *platforms.ERRORS,
        "duplicate_meetup",
        "meetup_cancelled",
        "meetup_finalized",
        "not_found",
        "unreadable_file",
    ),
)
def import_meetup(org_id, body, query, upload, caller):
    """Create a meetup from a guest list file (Meetup's attendee export, Luma's guest CSV, a spreadsheet).

    `?preview=true` answers the report, and `event`: the name, date and platform URL the meetup would get
    (null where neither the form nor the platform gave one: a preview needs none), and stores nothing."""
    get_or_404(Org, org_id, "organization")
    found = new_meetup(body, query.preview)
    sheet = sheet_of(upload, body.columns)
    create = {**found, "name": found["name"] or "", "date": found["date"] or utcnow()}
    meetup, report = store(
        org_id, sheet, caller, upload.filename, meetup_ids(), create=create, preview=query.preview
    )
    if not query.preview:
        return answer(meetup, report)
    response.status = 200  # nothing was created
    event = ImportEvent(name=found["name"], date=iso(found["date"]), platform_url=found["platform_url"])
    return answer(None, report, event=event)


@endpoint(
    "POST",
    "/organizations/<org_id>/meetups/<meetup_id>/import",
    auth=org_member,
    body=ImportForm,
    query=ImportQuery,
    media="multipart",
    tx=False,
    answer=ImportAnswer,
    errors=(
        "duplicate_meetup",
        "meetup_cancelled",
        "meetup_finalized",
        "meetup_forgotten",
        "not_found",
        "unreadable_file",
    ),
)
def import_meetup_update(org_id, meetup_id, body, query, upload, caller):
    """Update a meetup's list from a newer file of the same event, as a sync would.

    Check-ins are never touched, and nothing is stored unless the whole file reads; `?preview=true` answers
    the report and stores nothing. A meetup older than the organization keeps its guests is 409
    meetup_forgotten: the file would bring back the people retention took off its list."""
    refuse_forgotten(Meetup.open(org_id, meetup_id))
    sheet = sheet_of(upload, body.columns)
    meetup, report = store(
        org_id, sheet, caller, upload.filename, meetup_ids(), meetup_id=meetup_id, preview=query.preview
    )
    return answer(meetup, report)
