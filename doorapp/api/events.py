"""The audit log: an org's full log for its admins; meetup-, guest- and staff-scoped lists for members."""

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from doorapp.access import org_admin, org_member
from doorapp.actors import actor_words
from doorapp.api import endpoint, page, shapes
from doorapp.api.shapes import event_json
from doorapp.bodies import moment, number
from doorapp.db import get_or_404, iso
from doorapp.export import CSV, csv_file
from doorapp.models import AuditEvent, AuditType, Meetup, Org, User
from doorapp.models.privacy import seen_here
from doorapp.spreadsheet import ExportQuery, People


@dataclass
class EventQuery:
    type: list[AuditType] | None = field(default=None)  # comma-separated in the query
    since: datetime | None = moment("ISO 8601 (UTC if no offset); events at or after it; a date: its start.")
    until: datetime | None = moment(
        "ISO 8601 (UTC if no offset); events at or before it; a date: its end.", end_of_day=True
    )
    guest_id: int | None = number(default=None)
    meetup_id: uuid.UUID | None = None
    actor_id: int | None = number(default=None)
    limit: int = number(1, 200, default=50)
    offset: int = number(0, default=0)


class EventPage(shapes.Paged):
    events: list[shapes.AuditEvent]


def filtered_events(org_id, query, orgless=False, **scope):
    """The org's log narrowed by the query's filters and the path's `scope` (guest, meetup or actor)."""
    return AuditEvent.log(
        org_id,
        orgless=orgless,
        types=query.type or (),
        since=query.since,
        until=query.until,
        guest_id=query.guest_id,
        meetup_id=query.meetup_id,
        actor_id=query.actor_id,
        **scope,
    )


def events_page(org_id, query, orgless=False, **scope):
    """One page of filtered_events()."""
    events = filtered_events(org_id, query, orgless, **scope)
    return EventPage(
        **page(AuditEvent.with_people(events), query.limit, query.offset, "events", event_json, events)
    )


@endpoint(
    "GET",
    "/organizations/<org_id>/events/",
    auth=org_admin,
    query=EventQuery,
    answer=EventPage,
    errors=("not_found",),
)
def list_events(org_id, query):
    """The organization's full audit log, newest first, with optional filters; paged."""
    get_or_404(Org, org_id, "organization")
    return events_page(org_id, query)


@endpoint(
    "GET",
    "/organizations/<org_id>/events/meetups/<meetup_id>",
    auth=org_member,
    query=EventQuery,
    answer=EventPage,
    errors=("not_found",),
)
def list_meetup_events(org_id, meetup_id, query):
    """Events of one meetup of the organization, newest first; paged."""
    get_or_404(Meetup, meetup_id, "meetup", org=org_id)
    return events_page(org_id, query, meetup=meetup_id)


@endpoint(
    "GET",
    "/organizations/<org_id>/events/guests/<guest_id>",
    auth=org_member,
    query=EventQuery,
    answer=EventPage,
    errors=("not_found",),
)
def list_guest_events(org_id, guest_id, query):
    """Events about one guest in the organization, plus the guest's registration; newest first, paged."""
    get_or_404(Org, org_id, "organization")
    seen_here(org_id, guest_id)
    return events_page(org_id, query, orgless=True, guest=guest_id)


@endpoint(
    "GET",
    "/organizations/<org_id>/events/staff/<staff_id>",
    auth=org_member,
    query=EventQuery,
    answer=EventPage,
    errors=("not_found",),
)
def list_staff_events(org_id, staff_id, query):
    """Events one staff member performed in the organization, newest first; paged."""
    get_or_404(Org, org_id, "organization")
    get_or_404(User, staff_id, "user")
    return events_page(org_id, query, actor=staff_id)


EXPORT_MAX = 100_000  # events in one export, newest first: narrow the filters for older ones
EXPORT_COLUMNS = (
    "id",
    "timestamp",
    "event_type",
    "actor",
    "guest_id",
    "guest_username",
    "guest_displayname",
    "meetup_id",
    "meetup",
    "reason",
    "details",
)


@dataclass
class EventExportQuery(EventQuery, ExportQuery):
    """The list's filters, and whom the file is for (spreadsheet.ExportQuery)."""


# For people: the name, not the ids; the time local; the type, details in the chosen language
PEOPLE_COLUMNS = (
    "timestamp",
    "event_type",
    "actor",
    "displayname",
    "username",
    "meetup",
    "reason",
    "details",
)


def event_line(event, meetup_names, people):
    """An event as a line of PEOPLE_COLUMNS, from a row of AuditEvent.with_people()."""
    details = "; ".join(f"{people.detail(key)}: {value}" for key, value in (event["details"] or {}).items())
    return (
        people.when(event["timestamp"]),
        people.words.get(f"event.{event['event_type']}", event["event_type"]),
        people.actor(event),
        event["guest_displayname"],
        event["guest_username"],
        meetup_names.get(event["meetup_id"]),
        event["reason"],
        details or None,
    )


def event_row(event, meetup_names):
    """An event as a line of EXPORT_COLUMNS, from a row of AuditEvent.with_people()."""
    meetup_id, details = event["meetup_id"], event["details"]
    return (
        event["id"],
        iso(event["timestamp"]),
        event["event_type"],
        actor_words(event),
        event["guest"],
        event["guest_username"],
        event["guest_displayname"],
        meetup_id and str(meetup_id),
        meetup_names.get(meetup_id),
        event["reason"],
        json.dumps(details, ensure_ascii=False) if details else None,
    )


@endpoint(
    "GET",
    "/organizations/<org_id>/events/export",
    auth=org_admin,
    query=EventExportQuery,
    produces=CSV,
    errors=("not_found",),
)
def export_events(org_id, query):
    """The organization's audit log with the same filters as the list, as CSV (UTF-8 with a byte-order
    mark), newest first; at most 100,000 events (limit and offset are ignored).

    `style`, `lang` and `sep` as for a meetup's export: `style=people` gives local times, the event types
    and detail names in `lang`, and names rather than ids."""
    org = get_or_404(Org, org_id, "organization")
    names = dict(Meetup.select(Meetup.id, Meetup.name).where(Meetup.org == org_id).tuples())
    events = AuditEvent.with_people(filtered_events(org_id, query)).limit(EXPORT_MAX)
    if query.style == "data":
        return csv_file(f"{org.slug} audit log", EXPORT_COLUMNS, [event_row(e, names) for e in events])
    people = People(query, org.time_zone)
    rows = [event_line(e, names, people) for e in events]
    return csv_file(f"{org.slug} audit log", people.header(PEOPLE_COLUMNS), rows, people.separator)
