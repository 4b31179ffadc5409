"""People in the room: an arrival who steps out and comes back in, keeping their number and time.

Who is inside is kept twice, each where it is decided: a guest's entry says whether they are out
(`exited_at`), and the meetup's row counts the people inside (Meetup.inside, with its capacity and peak),
which the conditional UPDATEs of models.meetups move. Each change here first changes the entry's row (its
UPDATE decides whether the guest was in, or out), then the meetup's count, in the same transaction."""

from doorapp.db import Prepared, utcnow
from doorapp.models import changes
from doorapp.models.meetup_guests import MeetupGuest
from doorapp.models.meetups import Meetup


def heads(entry):
    """The people an arrival stands for at the door: the guest and those they brought."""
    return 1 + (entry.guests_brought or 0)


def inside(entry):
    """Whether the entry's guest is inside now: arrived, and not stepped out."""
    return entry.has_arrived and entry.exited_at is None


def step_out(entry, at):
    """The arrived guest (and those they brought) stepped out `at`; False when they were not inside (the
    UPDATE decides: of two doors stepping one guest out, one does)."""
    if _STEP_OUT.count(at, entry.id) != 1:
        return False
    Meetup.release(entry.meetup_id, heads(entry))
    entry.exited_at = at
    return True


def step_in(entry):
    """The guest who stepped out is back (their number and arrival time unchanged); False when they were
    not outside. The caller counts their people in (Meetup.admit), or rolls back when the room is full."""
    if _STEP_IN.count(entry.id) != 1:
        return False
    entry.exited_at = None
    return True


def everyone_out(org_id, meetup_id):
    """Everyone inside the meetup steps out now (it is finalized): their rows change on its door list
    (models.changes)."""
    inside = MeetupGuest.has_arrived & MeetupGuest.exited_at.is_null()
    out = [
        guest
        for (guest,) in MeetupGuest.select(MeetupGuest.guest)
        .where(MeetupGuest.meetup == meetup_id, inside)
        .tuples()
    ]
    MeetupGuest.update(exited_at=utcnow()).where(MeetupGuest.meetup == meetup_id, inside).execute()
    changes.rows(out, org_id, meetup_id)


# Door actions: SQL text built once (see Prepared).
_STEP_OUT = Prepared(
    ("datetime", "int"),
    lambda at, entry_id: MeetupGuest.update(exited_at=at).where(
        MeetupGuest.id == entry_id, MeetupGuest.has_arrived, MeetupGuest.exited_at.is_null()
    ),
)
_STEP_IN = Prepared(
    ("int",),
    lambda entry_id: MeetupGuest.update(exited_at=None).where(
        MeetupGuest.id == entry_id, MeetupGuest.has_arrived, MeetupGuest.exited_at.is_null(False)
    ),
)
