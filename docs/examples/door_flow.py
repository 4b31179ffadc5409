"""A door's evening through a client generated from Door's /openapi.json by openapi-python-client
(docs/clients.md): set up, sign in, an organization and a meetup from the demo platform, a sync, the door
list, a check-in and its undo, the audit log filtered by two types, and its CSV. Typed throughout: it
passes `mypy --strict` with the generated package, and tests/test_clients.py runs it against a Door.

    python door_flow.py http://127.0.0.1:8080 SETUP-CODE
"""

import json
import sys
from typing import TypeVar

from door_api_client import AuthenticatedClient, Client
from door_api_client.api.auth import issue_token
from door_api_client.api.events import export_events, list_events
from door_api_client.api.meetup_guests import check_in_guest, list_meetup_guests, undo_check_in
from door_api_client.api.meetups import create_meetup, sync_meetup
from door_api_client.api.organizations import create_organization
from door_api_client.api.platform import get_platform
from door_api_client.api.setup import create_first_admin
from door_api_client.models import (
    AuditType,
    CheckInGuestBody,
    CreatedMeetup,
    CreateFirstAdminBody,
    CreateMeetupBody,
    CreateOrganizationBody,
    DoorList,
    EventPage,
    IssueTokenBody,
    MeetupGuest,
    Org,
    Platform,
    Problem,
    SyncReport,
    Token,
    UndoCheckInBody,
    User,
)

T = TypeVar("T")
USERNAME, PASSWORD = "ana", "a long enough password"


def answer(result: T | Problem | None, kind: type[T]) -> T:
    """The typed answer, or the problem the server sent instead, raised."""
    if isinstance(result, Problem):
        raise SystemExit(f"{result.status} {result.code}: {result.detail}")
    if not isinstance(result, kind):
        raise SystemExit(f"no {kind.__name__} in the answer")
    return result


def main(base_url: str, setup_code: str) -> dict[str, object]:
    public = Client(base_url=base_url)
    body = CreateFirstAdminBody(code=setup_code, username=USERNAME, password=PASSWORD)
    admin = answer(create_first_admin.sync(client=public, body=body), User)
    token = answer(issue_token.sync(client=public, body=IssueTokenBody(USERNAME, PASSWORD)), Token)
    door = AuthenticatedClient(base_url=base_url, token=token.access_token)

    org = answer(
        create_organization.sync(client=door, body=CreateOrganizationBody("Night Owls", "night-owls")), Org
    )
    event_url = answer(get_platform.sync(client=door), Platform).example_urls[0]
    meetup = answer(create_meetup.sync(org.id, client=door, body=CreateMeetupBody(event_url)), CreatedMeetup)
    synced = answer(sync_meetup.sync(org.id, meetup.id, client=door), SyncReport)

    door_list = answer(list_meetup_guests.sync(org.id, meetup.id, client=door), DoorList)
    guest = next(g.guest for g in door_list.guests if not g.rsvp.has_arrived and not g.guest.is_banned)
    entry = answer(
        check_in_guest.sync(org.id, meetup.id, guest.platform_user_id, client=door, body=CheckInGuestBody()),
        MeetupGuest,
    )
    undone = answer(
        undo_check_in.sync(
            org.id,
            meetup.id,
            guest.platform_user_id,
            client=door,
            body=UndoCheckInBody("Checked in the wrong Ana"),
        ),
        MeetupGuest,
    )

    both = [AuditType.CHECK_IN, AuditType.UNDO_CHECK_IN]
    log = answer(list_events.sync(org.id, client=door, type_=both), EventPage)
    csv = answer(export_events.sync(org.id, client=door, type_=both), str)
    return {
        "admin": admin.username,
        "meetup": meetup.name,
        "synced_when_created": meetup.sync_error is None,
        "synced": synced.total,
        "listed": door_list.total,
        "arrival_order": entry.rsvp.arrival_order,
        "arrived_after_undo": undone.rsvp.has_arrived,
        "events": [(e.event_type.value, e.guest.platform_user_id if e.guest else None) for e in log.events],
        "guest": guest.platform_user_id,
        "csv_lines": csv.lstrip("\ufeff").splitlines()[:1] + [str(len(csv.splitlines()))],
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
