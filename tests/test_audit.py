"""The audit types' table (models/audit.EVENTS): every type says which door-list version it moves and its
detail keys, and writing each one moves exactly the version it says."""

import pytest

from doorapp.db import write
from doorapp.models import AuditEvent, AuditType, Meetup
from doorapp.models.audit import EVENTS, Moves, record


def versions(org, meetup):
    """(the meetup's door-list counter, its org's counter)."""
    return Meetup.list_version(org.id, meetup.id)


def test_every_audit_type_is_in_exactly_one_version_bucket():
    assert list(EVENTS) == list(AuditType)
    assert all(isinstance(event.moves, Moves) for event in EVENTS.values())


@pytest.mark.parametrize("event_type", list(AuditType))
def test_writing_each_audit_type_moves_the_version_its_row_names(event_type, org, meetup, guest):
    """IN_CHANGE types are moved by their change's own UPDATE (a check-in's number, a sync), not by the
    event: record() leaves both counters alone for them, as for NOTHING."""
    before = versions(org, meetup)
    details = {key: 1 for key in EVENTS[event_type].details}
    with write():
        record(event_type, None, org=org, meetup=meetup, guest=guest, **details)
    moved = tuple(after - earlier for after, earlier in zip(versions(org, meetup), before, strict=True))
    expected = {Moves.MEETUP: (1, 0), Moves.ORG: (0, 1)}.get(EVENTS[event_type].moves, (0, 0))
    assert moved == expected
    assert AuditEvent.get().details == details


def test_a_detail_the_type_does_not_declare_is_refused(org):
    with pytest.raises(AssertionError, match="declares no detail"), write():
        record(AuditType.BAN, None, org=org, surprise=1)


def test_the_changes_that_move_a_version_in_their_own_update_do_so(door, org, meetup, guest):
    """CHECK_IN (the arrival counter's UPDATE) and MEETUP_SYNCED (Meetup.synced) move the meetup's list."""
    before = versions(org, meetup)
    door.post_json(f"/organizations/{org.id}/meetups/{meetup.id}/guests/{guest.platform_user_id}/checkin", {})
    assert versions(org, meetup)[0] == before[0] + 1
    with write():
        Meetup.synced(meetup.id)
    assert versions(org, meetup)[0] == before[0] + 2
