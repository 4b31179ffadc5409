"""The door lists' change record: which version of a meetup's door list changed which guest's row, so that
a door holding the list at one version is sent only what changed since (doorlist.py reads it).

Each change of a door list takes that list's next version with an UPDATE of the meetup's row in the
writing transaction (Meetup.door_list_version, with a random `door_list_salt`), and writes one DoorChange
per guest whose row it changed (ROW), or one that says only the list's counts or the meetup's state
changed (STATE), or that the list must be read whole again (LIST). The UPDATE holds the meetup row's lock
until the commit, so a meetup's versions commit in their order, on SQLite (one writer at a time anyway) as
on PostgreSQL with any number of processes: a reader whose snapshot holds version N holds every change up
to N and none after it, and a change numbered before another commits before it. A delta since version V is
then the index range (meetup, version > V) of this table, read in the same snapshot as the rows it names.

What a door row shows that a change can touch, and where it is recorded:
- the guest's entry and ban, their name: rows() on the lists they are on (audit Moves.GUEST; a sync);
- their history (visits, no-shows) on the org's lists dated after a meetup whose entries changed: rows()
  with that meetup marks those lists too; a meetup that starts or stops counting (created, deleted,
  cancelled, reopened) makes them LIST (later_lists()); a meetup that becomes over as its date passes moves
  the `pending` part of the version (Meetup.with_list_version), which no row records.

A version's text (text()) is `<number>.<salt>.<pending>`; the salt makes a number from another meetup, or
from before a backup was restored, a version this list never had."""

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from peewee import BigIntegerField, CharField, DateTimeField, ForeignKeyField, IntegerField

from doorapp.db import BaseModel, Prepared, db, in_chunks, utcnow
from doorapp.models.meetup_guests import MeetupGuest
from doorapp.models.meetups import Meetup

ROW, STATE, LIST = "row", "state", "list"  # what a DoorChange says changed
MAX_ROWS = 1000  # a change of more rows than this on one list makes it LIST: the whole list is cheaper
KEEP_CHANGES = 10_000  # versions kept per meetup, and at least...
KEEP_FOR = timedelta(minutes=15)  # ...this long, so a phone back from minutes offline catches up
PRUNE_EVERY = 500  # a list's older changes are pruned when its version reaches a multiple of this
VERSION = re.compile(r"^(\d{1,15})\.([0-9a-f]{1,8})\.(\d{1,9})$")


class DoorChange(BaseModel):
    """One change of one meetup's door list: its version, and the guest whose row it changed (ROW)."""

    meetup = ForeignKeyField(Meetup, on_delete="CASCADE", index=False)  # indexed below, with version
    version = IntegerField()
    salt = IntegerField()  # the meetup's door_list_salt at this version
    guest_id = BigIntegerField(null=True)  # ROW: whose row; no foreign key, the row may be gone (`removed`)
    what = CharField(max_length=5)
    at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("meetup", "version"), False),)


@dataclass(frozen=True)
class Version:
    """A door list's version: its change number and salt, and how many of the org's meetups dated before the
    list's own have yet to begin (each one that begins changes the history marks)."""

    number: int
    salt: int
    pending: int

    def text(self, meetup_id):
        """The version as doors see it (the ETag's content); the salt is mixed with the meetup's id."""
        return f"{self.number}.{self.salt ^ _key(meetup_id):x}.{self.pending}"

    @classmethod
    def read(cls, text, meetup_id):
        """The Version `text` names for this meetup, or None when it is no version's text."""
        found = VERSION.fullmatch(text or "")
        if found is None:
            return None
        number, salt, pending = found.groups()
        return cls(int(number), int(salt, 16) ^ _key(meetup_id), int(pending))


def _key(meetup_id):
    return int(str(meetup_id).replace("-", "")[:8], 16) & 0x7FFFFFFF


def _salt():
    return secrets.randbelow(2**31)


# --- recording changes (inside the change's write transaction) -----------------------------------------


def rows(guest_ids, org_id=None, meetup_id=None, also=()):
    """The rows of these guests changed: on `meetup_id`'s list and, their history being of the meetups
    before it, on the org's lists dated after it; with no meetup, on every list of the org (of any org
    without `org_id`: a name). Call it while they are on those lists. `also`: guests whose rows changed on
    the same lists, who are on them no longer (a guest let in by name, once linked): the deltas list them
    in `removed`."""
    guest_ids = sorted({int(i) for i in guest_ids if i is not None})
    also = sorted({int(i) for i in also if i is not None} - set(guest_ids))
    if len(guest_ids) == 1 and not also:  # a door action's: two statements, their SQL built once
        scope = [value for value in (org_id, meetup_id) if value is not None]
        bumped = _BUMP_ONE[org_id is not None, meetup_id is not None].rows(_salt(), guest_ids[0], *scope)
        _write([(m, n, s, guest_ids[0], ROW) for m, n, s in bumped])
        return
    lists = {}  # meetup id -> the guests whose rows changed on its list
    for sql, params in in_chunks(lambda ids: _lists_of(ids, org_id, meetup_id), [(i,) for i in guest_ids]):
        for meetup, guest in db.execute_sql(sql, params):
            lists.setdefault(Meetup.id.python_value(meetup), list(also)).append(guest)
    changed = []
    for m, n, s in _bump(lists) if lists else []:
        many = len(lists[m]) > MAX_ROWS
        changed += [(m, n, s, None, LIST)] if many else [(m, n, s, guest, ROW) for guest in lists[m]]
    _write(changed)


def state(meetup_id, **fields):
    """The meetup's list changed only in its counts or in the meetup's state (finalized, synced): doors
    take those from any answer. `fields`: the meetup's that change with it, set in the same UPDATE."""
    _write([(m, n, s, None, STATE) for m, n, s in _bump([meetup_id], **fields)])


def whole(meetup_ids):
    """These lists changed so that they are to be read whole again (LIST): a delta since before is full."""
    if meetup_ids:
        _write([(m, n, s, None, LIST) for m, n, s in _bump(meetup_ids)])


def later_lists(org_id, meetup_id):
    """The meetup started or stopped counting in the history of the org's lists dated after it (created,
    cancelled, reopened, deleted: the no-shows and the last meetups a mark looks at change, for any of
    their guests): those lists are read whole again, and the meetup's own state changed. Call it while the
    meetup's row is there. With no meetup: every list of the org is read whole again."""
    if meetup_id is None:
        whole([m for (m,) in Meetup.select(Meetup.id).where(Meetup.org == org_id).tuples()])
        return
    meetup = Meetup.get_or_none(Meetup.id == meetup_id)
    if meetup is None:
        return
    later = Meetup.select(Meetup.id).where(
        Meetup.org == org_id, Meetup.date > meetup.date, Meetup.id != meetup.id
    )
    whole([m for (m,) in later.tuples()])
    state(meetup.id)


def _lists_of(guest_ids, org_id, meetup_id):
    """(meetup id, guest id) of the lists of rows()."""
    query = MeetupGuest.select(MeetupGuest.meetup, MeetupGuest.guest).join(Meetup)
    query = query.where(MeetupGuest.guest.in_(guest_ids))
    if org_id is not None:
        query = query.where(Meetup.org == org_id)
    if meetup_id is not None:
        date = Meetup.select(Meetup.date).where(Meetup.id == meetup_id)
        query = query.where((Meetup.id == meetup_id) | (Meetup.date > date))
    return query.tuples()


def _bump(meetup_ids, **fields):
    """Take the next version of each of these lists (and set these `fields` of theirs): [(meetup id,
    number, salt)]; the rows stay locked to the commit (see the module's docstring). One salt serves the
    statement: Version.text mixes each meetup's id into it."""
    salt = _salt()
    bumped = (
        Meetup.update(door_list_version=Meetup.door_list_version + 1, door_list_salt=salt, **fields)
        .where(Meetup.id.in_(sorted(str(m) for m in meetup_ids)))
        .returning(Meetup.id, Meetup.door_list_version)
        .tuples()
        .execute()
    )
    return [(m, n, salt) for m, n in bumped]


def _write(changes):
    """Insert [(meetup id, number, salt, guest id or None, what)]; prune a list's old changes now and then."""
    now = utcnow()
    values = [(Meetup.id.db_value(m), n, s, guest, what, now) for m, n, s, guest, what in changes]
    if not values:
        return
    if len(values) == 1:
        _INSERT.count(*values[0])
    else:
        for sql, params in in_chunks(lambda chunk: DoorChange.insert_many(chunk, fields=FIELDS), values):
            db.execute_sql(sql, params)
    for m, n in {(m, n) for m, n, *_ in changes}:
        if n % PRUNE_EVERY == 0:
            DoorChange.delete().where(
                DoorChange.meetup == m, DoorChange.version < n - KEEP_CHANGES, DoorChange.at < now - KEEP_FOR
            ).execute()


FIELDS = [
    DoorChange.meetup,
    DoorChange.version,
    DoorChange.salt,
    DoorChange.guest_id,
    DoorChange.what,
    DoorChange.at,
]


# --- reading them ---------------------------------------------------------------------------------------


def since(meetup_id, version, now):
    """What changed on the meetup's list after `version` up to `now` (both Versions, `now` read in the same
    snapshot): the ids of the guests whose rows changed, or None when the list is to be sent whole (a
    version this list never had or no longer keeps, a LIST change, a meetup that began meanwhile)."""
    if version.pending != now.pending or version.number > now.number:
        return None
    if version.number == now.number:
        return set() if version.salt == now.salt else None
    found = (
        DoorChange.select(DoorChange.version, DoorChange.salt, DoorChange.guest_id, DoorChange.what)
        .where(DoorChange.meetup == meetup_id, DoorChange.version.between(version.number, now.number))
        .order_by(DoorChange.version)
        .tuples()
    )
    first, changed = None, set()
    begun = (version.number, version.salt) == (0, 0)  # the list as it began, before its first change
    for number, salt, guest, what in found:
        if first is None:  # the list had `version`: its own change is there, or it is the list's start
            first = (number, salt)
            if first != (version.number, version.salt) and not (begun and number == 1):
                return None
        if number == version.number:
            continue
        if what == LIST:
            return None
        if what == ROW:
            changed.add(guest)
    return changed if first is not None else None


# The statements of a door action (a check-in, an undo): SQL text built once (see Prepared).
def _bump_one(org, meetup):
    def build(salt, guest_id, *scope):
        org_id = scope[0] if org else None
        meetup_id = scope[-1] if meetup else None
        lists = _lists_of([guest_id], org_id, meetup_id).select(MeetupGuest.meetup)
        return (
            Meetup.update(door_list_version=Meetup.door_list_version + 1, door_list_salt=salt)
            .where(Meetup.id.in_(lists))
            .returning(Meetup.id, Meetup.door_list_version, Meetup.door_list_salt)
            .tuples()
        )

    return Prepared(("int", "int", *(["uuid"] if org else []), *(["uuid"] if meetup else [])), build)


_BUMP_ONE = {(org, meetup): _bump_one(org, meetup) for org in (True, False) for meetup in (True, False)}
_INSERT = Prepared(
    ("uuid", "int", "int", "int", "str", "datetime"),
    lambda *values: DoorChange.insert(dict(zip(FIELDS, values, strict=True))),
)
