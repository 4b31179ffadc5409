"""An import stored: a meetup created or updated from a Sheet with a sync's semantics (models.sync), its
MEETUP_IMPORTED event, and the report. Everything is one write transaction, so nothing is stored unless
the whole file was read; a preview runs the same transaction and rolls it back, so its counts are exact."""

import uuid

from doorapp.db import write
from doorapp.errors import ApiError
from doorapp.imports import as_rsvps, ids_of, tally
from doorapp.models import AuditType, Guest, Meetup, audit
from doorapp.models.sync import apply_sync, prepare_sync
from doorapp.platforms import Event

MAX_PROBLEMS = 200  # listed in a report; past them, one line says how many more
SAMPLE = 10  # the first rows a preview shows


class _Preview(Exception):
    """Rolls a preview's transaction back, carrying its report."""


def store(org_id, sheet, user, filename, meetup_ids, meetup_id=None, create=None, preview=False):
    """(the meetup, or None for a preview; the report). `create` {name, date, platform_url} makes a new
    meetup; else the org's meetup `meetup_id` is updated (404 not_found, 409 meetup_finalized)."""
    if create is None:
        Meetup.open(org_id, meetup_id)
    target = Meetup(id=meetup_id or uuid.uuid4())
    known = Guest.profiles_of(ids_of(sheet, meetup_ids, org_id))
    rsvps, profiles = as_rsvps(sheet, meetup_ids, known, org_id)
    event = Event("", None, rsvps)
    prepared = prepare_sync(target, event, profiles)  # built before the write lock is taken
    try:
        with write():
            meetup = _created(org_id, target.id, create, user) if create else Meetup.open(org_id, meetup_id)
            report = report_of(sheet, apply_sync(meetup, event, profiles, prepared))
            counts = {k: report[k] for k in ("format", "rows", "added", "updated", "cancelled", "unchanged")}
            details = {**counts, "problems": len(sheet.problems)}
            audit.record(AuditType.MEETUP_IMPORTED, user, org=org_id, meetup=meetup, file=filename, **details)
            if preview:
                raise _Preview(report)
    except _Preview as rolled_back:
        return None, rolled_back.args[0]
    return Meetup.get_by_id(meetup.id), report


def _created(org_id, meetup_id, create, user):
    url = create.get("platform_url") or ""
    if url and Meetup.select().where(Meetup.org == org_id, Meetup.platform_url == url).exists():
        raise ApiError(409, "duplicate_meetup", f"This organization already has a meetup for {url}.")
    meetup = Meetup.create(
        id=meetup_id, org=org_id, platform_url=url, name=create["name"], date=create["date"]
    )
    audit.record(AuditType.MEETUP_CREATED, user, org=org_id, meetup=meetup, platform_url=url or None)
    return meetup


def report_of(sheet, counts):
    """The import's report (docs/api.md, "Guest lists from files"), with what a preview shows besides: the
    columns used (and the other name columns there were), how many rows are expected, waitlisted and not
    expected, the first rows."""
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
    }
