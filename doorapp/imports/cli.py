"""`doorapp import FILE --org SLUG (--meetup ID | --name NAME --date DATE | --platform-url URL) [--preview]`:
an import from a terminal, with the API's semantics and report (the audit log names no actor: it was the
command line)."""

import uuid
from datetime import UTC, datetime
from pathlib import Path

from doorapp.errors import ApiError
from doorapp.imports import Unreadable, read
from doorapp.imports.decode import MAX_BODY_FILE
from doorapp.imports.store import store, to_create
from doorapp.models import Org

COUNTS = ("rows", "added", "updated", "cancelled", "unchanged", "expected", "waitlisted", "not_expected")


def add_arguments(command):
    command.add_argument("file", help="the guest list: Meetup's .xls or .csv, Luma's CSV, a .csv or .xlsx")
    command.add_argument("--org", required=True, metavar="SLUG", help="the organization's slug")
    command.add_argument("--meetup", metavar="ID", help="update this meetup from a newer file")
    command.add_argument("--name", help="create a meetup of this name (with --date)")
    command.add_argument("--date", help="the new meetup's start, ISO 8601 (2026-11-21T19:00:00+01:00)")
    command.add_argument(
        "--platform-url",
        metavar="URL",
        help="the new meetup's event page; on the configured platform it gives the name and date",
    )
    command.add_argument(
        "--columns", help="the name column's header, or first and last name's, comma-separated"
    )
    command.add_argument("--preview", action="store_true", help="print the report and store nothing")


def run(config, args, platform):
    """Read, store (or preview), print the report; SystemExit with a sentence when it cannot. `platform`:
    the configured adapter."""
    path = Path(args.file)
    if not path.is_file():
        raise SystemExit(f"No file at {path}.")
    if path.stat().st_size > MAX_BODY_FILE:
        raise SystemExit(
            f"{path.name} is larger than {MAX_BODY_FILE // 1024 // 1024} MiB; a guest list is smaller."
        )
    org = Org.get_or_none(Org.slug == args.org)
    if org is None:
        raise SystemExit(f"No organization has the slug {args.org!r}.")
    if args.meetup and not _is_uuid(args.meetup):
        raise SystemExit(f"--meetup {args.meetup!r} is not a meetup id (a UUID, as the meetup's page shows).")
    if args.meetup and (args.name or args.date or args.platform_url):
        raise SystemExit("--meetup updates a meetup; --name, --date and --platform-url make a new one.")
    columns = [c for c in args.columns.split(",") if c.strip()] if args.columns else None
    meetup_ids = platform.name == "meetup"
    try:
        create = None if args.meetup else _create(args, platform)
        sheet = read(path.read_bytes(), columns)
        meetup, report = store(
            org.id,
            sheet,
            None,
            path.name,
            meetup_ids,
            meetup_id=args.meetup,
            create=create,
            preview=args.preview,
        )
    except (Unreadable, ApiError) as error:
        raise SystemExit(f"{path.name}: {getattr(error, 'detail', None) or error.args[0]}") from None
    print(describe(report, meetup))
    return 0


def _is_uuid(text):
    try:
        return bool(uuid.UUID(text))
    except ValueError:
        return False


def _create(args, platform):
    """{name, date, platform_url} of the meetup to make, as the API's create makes it (store.to_create())."""
    date = _date(args.date) if args.date else None
    found, refused = to_create(platform, args.name, date, args.platform_url)
    if found["name"] is None or found["date"] is None:
        why = f" (--platform-url: {refused[0]['msg']})" if refused else ""
        raise SystemExit(
            "A new meetup needs --name and --date (ISO 8601, such as 2026-11-21T19:00:00+01:00), unless "
            f"--platform-url names an event of the configured platform, which gives them{why}."
        )
    return {**found, "platform_url": found["platform_url"] or ""}


def _date(text):
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise SystemExit(f"--date {text!r} is not ISO 8601 (such as 2026-11-21T19:00:00+01:00).") from None
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def describe(report, meetup):
    """The report as lines for a terminal."""
    lines = [f"format: {report['format']}", f"name column: {', '.join(report['columns']['name'])}"]
    lines += [f"{name.replace('_', ' ')}: {report[name]}{_who(report, name)}" for name in COUNTS]
    lines += [f"row {p['row'] or '...'}: {p['message']}" for p in report["problems"]]
    if meetup is None:
        lines.append("preview: nothing was stored")
    else:
        lines.append(f"meetup: {meetup.id} {meetup.name} ({report['total']} on the list)")
    return "\n".join(lines)


def _who(report, count):
    """' (Ana García, Wei Zhang)' for the counts that name people (the report's first 50 of each, '…' when
    there are more); a character that would drive the terminal rather than show is written as '?'."""
    names = report["names"].get(count)
    if not names:
        return ""
    shown = ["".join(c if c.isprintable() else "?" for c in name) for name in names]
    return f" ({', '.join(shown)}{', …' if report[count] > len(names) else ''})"
