"""The audit types' table (models/audit.EVENTS): every type says what of the door lists its change changes
and its detail keys, and writing each one records exactly that in the door lists' change record."""

from datetime import datetime, timedelta

import pytest

from doorapp.db import write
from doorapp.models import AuditEvent, AuditType, DoorChange, Meetup, MeetupGuest
from doorapp.models.audit import EVENTS, Moves, record


def test_every_audit_type_is_in_exactly_one_version_bucket():
    assert list(EVENTS) == list(AuditType)
    assert all(isinstance(event.moves, Moves) for event in EVENTS.values())
    assert all(set(event.rows_of) <= set(event.details) for event in EVENTS.values())


@pytest.fixture
def lists(org, meetup, guest):
    """(earlier, meetup, later, elsewhere): meetups of the org dated before and after `meetup`, and one
    of another date with the guest on none; the guest is on the first three."""

    def made(name, days, with_guest):
        made = Meetup.create(
            org=org,
            name=name,
            date=meetup.date + timedelta(days=days),
            platform_url=f"https://x.invalid/{name}",
        )
        if with_guest:
            MeetupGuest.create(meetup=made, guest=guest, rsvp_time=datetime(2026, 11, 1))
        return made

    return made("earlier", -7, True), meetup, made("later", 7, True), made("elsewhere", 14, False)


def recorded():
    """{(meetup name, what, guest id)} of the change record."""
    rows = DoorChange.select(DoorChange, Meetup.name).join(Meetup)
    return {(row.meetup.name, row.what, row.guest_id) for row in rows}


@pytest.mark.parametrize("event_type", list(AuditType))
def test_writing_each_audit_type_records_what_its_row_names(event_type, org, lists, guest):
    earlier, meetup, later, elsewhere = lists
    details = {key: 1 for key in EVENTS[event_type].details}
    with write():
        record(event_type, None, org=org, meetup=meetup, guest=guest, **details)
    named = [guest.platform_user_id, *(details[key] for key in EVENTS[event_type].rows_of)]
    expected = {
        Moves.NOTHING: set(),
        Moves.IN_CHANGE: set(),
        # this list and the later one, whose history this meetup is in; not the earlier one
        Moves.GUEST: {(m.name, "row", who) for m in (meetup, later) for who in named},
        Moves.STATE: {(meetup.name, "state", None)},
        Moves.LIST: {(meetup.name, "list", None)},
        Moves.ORG: {(meetup.name, "state", None), (later.name, "list", None), (elsewhere.name, "list", None)},
    }[EVENTS[event_type].moves]
    assert recorded() == expected
    assert AuditEvent.get().details == details
    moved = {row.meetup_id for row in DoorChange.select()}
    for each in lists:  # each change took its list's next version
        assert Meetup.get_by_id(each.id).door_list_version == (1 if each.id in moved else 0)


def test_an_event_without_a_meetup_changes_the_guests_rows_on_every_list_of_the_org(org, lists, guest):
    """A ban: the guest's row on every list they are on, earlier ones too (their ban shows there)."""
    with write():
        record(AuditType.BAN, None, org=org, guest=guest, reason="Rude")
    assert recorded() == {(m.name, "row", guest.platform_user_id) for m in lists[:3]}


def test_the_guests_an_event_names_in_its_details_change_too(org, lists, guest):
    """GUEST_LINKED: the local guest, who left the lists, is named on those the platform guest is on."""
    with write():
        record(AuditType.GUEST_LINKED, None, org=org, guest=guest, local_id=-5, entries=3, bans=0)
    me = guest.platform_user_id
    assert recorded() == {(m.name, "row", who) for m in lists[:3] for who in (me, -5)}
