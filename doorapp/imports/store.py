"""An import stored: a meetup created or updated from a Sheet with a sync's semantics (models.sync), its
MEETUP_IMPORTED event, and the report. The file is compared with what is stored before the write lock is
taken; the writes are one write transaction, so nothing is stored unless the whole file was read. A
preview compares the same way and writes nothing: its counts are those an import would give then."""

import uuid

from doorapp.db import write
from doorapp.errors import ApiError
from doorapp.export import formula_like
from doorapp.imports import as_rsvps, tally
from doorapp.models import AuditType, Meetup, audit
from doorapp.models.sync import apply, compare, current, foreseen, named, stored, take_turn

MAX_PROBLEMS = 200  # listed in a report; past them, one line says how many more
SAMPLE = 10  # the first rows a preview shows
NAMED = 50  # the names a report gives of those added, of those updated and of those cancelled


def store(org_id, sheet, caller, filename, meetup_ids, meetup_id=None, create=None, preview=False):
    """(the meetup, or None for a preview; the report). `create` {name, date, platform_url} makes a new
    meetup; else the org's meetup `meetup_id` is updated (404 not_found, 409 meetup_finalized)."""
    if create is None:
        target = Meetup.open(org_id, meetup_id)
    else:
        _refuse_duplicate(org_id, create.get("platform_url"))
        target = Meetup(id=uuid.uuid4())
    rsvps, profiles = as_rsvps(sheet, meetup_ids, org_id)
    plan = compare(target, stored(target, profiles), rsvps, profiles)  # before the write lock is taken
    if preview:
        return None, report_of(sheet, foreseen(plan), named(plan, NAMED))
    with write():
        if create:
            meetup = _created(org_id, target.id, create, caller)
        else:
            take_turn(target)
            meetup = Meetup.open(org_id, meetup_id)
        plan = current(meetup, plan)
        report = report_of(sheet, apply(meetup, plan, caller), named(plan, NAMED))
        counts = {k: report[k] for k in ("format", "rows", "added", "updated", "cancelled", "unchanged")}
        counts["checked_in"] = report["checked_in"]
        details = {**counts, "problems": len(sheet.problems)}
        audit.record(AuditType.MEETUP_IMPORTED, caller, org=org_id, meetup=meetup, file=filename, **details)
    return Meetup.get_by_id(meetup.id), report


def to_create(platform, name, date, url):
    """({name, date, platform_url} of a meetup to make from a file, None where still unknown; the errors
    of a URL the `platform` adapter refused). An event URL of the platform is kept normalised, and a
    missing name or date is read from its event (call it with no transaction open); any other URL is kept
    as typed and fills nothing in."""
    refused = []
    if url:
        try:
            url = platform.event_url(url)
        except ApiError as error:
            if error.code != "validation_error":
                raise
            refused = error.extensions["errors"]
    found = {"name": name, "date": date, "platform_url": url}
    if url and not refused and (name is None or date is None):
        event = platform.event(url)
        found["name"], found["date"] = name or event.title[:255], date or event.date
    return found, refused


def _refuse_duplicate(org_id, url):
    if url and Meetup.select().where(Meetup.org == org_id, Meetup.platform_url == url).exists():
        raise ApiError(409, "duplicate_meetup", f"This organization already has a meetup for {url}.")


def _created(org_id, meetup_id, create, caller):
    url = create.get("platform_url") or ""
    _refuse_duplicate(org_id, url)
    meetup = Meetup.create(
        id=meetup_id, org=org_id, platform_url=url, name=create["name"], date=create["date"]
    )
    audit.record(AuditType.MEETUP_CREATED, caller, org=org_id, meetup=meetup, platform_url=url or None)
    return meetup


def report_of(sheet, counts, names):
    """The import's report (docs/api.md, "Guest lists from files"): its counts and `names` (named()), with
    what a preview shows besides: the columns used (and the other name columns there were), how many rows
    are expected, waitlisted and not expected, the first rows."""
    added, updated, cancelled = counts["inserted"], counts["updated"], counts["cancelled"]
    problems = sheet.problems[:MAX_PROBLEMS]
    if len(sheet.problems) > MAX_PROBLEMS:
        more = len(sheet.problems) - MAX_PROBLEMS
        problems = [*problems, {"row": None, "message": f"And {more} more rows with problems."}]
    return {
        "format": sheet.format,
        "rows": len(sheet.entries) + len(sheet.problems),
        "added": added,
        "updated": updated,
        "cancelled": cancelled,
        "kept": counts["kept"],
        "checked_in": counts["checked_in"],
        "names": names,
        "unchanged": max(0, len(sheet.entries) - added - updated - cancelled),
        "problems": problems,
        "columns": sheet.columns,
        "other_name_columns": sheet.choices,
        **tally(sheet),
        "total": counts["total"],
        "first_rows": [
            {"row": e.row, "name": e.name, "status": e.status, "guests": e.guests}
            for e in sheet.entries[:SAMPLE]
        ],
        "formulas": [{"row": e.row, "name": e.name} for e in sheet.entries if formula_like(e.name)][
            :MAX_PROBLEMS
        ],
    }
