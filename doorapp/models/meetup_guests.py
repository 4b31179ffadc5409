"""A meetup's list: its entries (RSVPs, walk-ins) and their check-ins (with the guests each arrival brought),
and a guest's history at the org's meetups. (Linking a guest let in by name: models.local_guests; stepping
out and back in: models.room; what a sync or an import writes: models.sync.)"""

from datetime import datetime

from peewee import JOIN, BooleanField, Case, CharField, DateTimeField, ForeignKeyField, IntegerField, fn

from doorapp.db import BaseModel, Prepared, count_where, utcnow
from doorapp.models.accounts import User
from doorapp.models.guests import Ban, Guest
from doorapp.models.meetups import Meetup
from doorapp.models.passes import DoorPass
from doorapp.models.tags import GuestNote

MAKER = User.alias("maker")  # who made the door pass that checked a guest in

RECENT = 5  # the org's last meetups a guest's "repeat no-show" mark looks at
FOREVER = datetime(9999, 12, 31)  # history() before no date: every meetup of the org


class MeetupGuest(BaseModel):
    """A guest on a meetup's list: an RSVP from the platform or a walk-in, and its check-in state."""

    meetup = ForeignKeyField(Meetup, backref="entries", on_delete="CASCADE")
    guest = ForeignKeyField(Guest, null=True)  # None once the org forgot who it was (models.privacy)
    guest_was_local = BooleanField(null=True)  # then: whether they had been let in by name (counted)
    rsvp_time = DateTimeField(default=utcnow)
    cancelled_rsvp = BooleanField(default=False)
    cancelled_at = DateTimeField(null=True)  # when a sync found the RSVP gone
    waitlisted = BooleanField(default=False)  # on the platform's waiting list (not expected at the door)
    guests_count = IntegerField(default=0)  # people the guest brings along ("+2")
    # of those, how many came: set by the check-in (0..guests_count, by default all), null while not arrived
    guests_brought = IntegerField(null=True)
    excused_at = DateTimeField(null=True)  # an admin excused the absence (EXCUSED_ABSENCE)
    is_walkin = BooleanField(default=False)
    has_arrived = BooleanField(default=False)
    arrival_time = DateTimeField(null=True)
    arrival_order = IntegerField(null=True)
    checked_in_by = ForeignKeyField(User, null=True)
    checked_in_pass = ForeignKeyField(DoorPass, null=True, index=False)  # a phone with a door pass did
    exited_at = DateTimeField(null=True)  # an arrival who stepped out, since when (models.room)
    # The name a file gave a platform member on this list: shown here, never written to their profile
    listed_name = CharField(max_length=255, null=True)

    class Meta:
        # (meetup, rsvp_time), for the door list's order, is added by migrations.m0002_door_list_order
        indexes = ((("meetup", "guest"), True), (("meetup", "arrival_order"), True))

    @classmethod
    def counts(cls, meetup_ids, with_total=False):
        """{meetup_id: {rsvps, cancelled, walkins, arrived, waitlisted, people, inside, capacity}} in one
        query (the door list's `counts`): `waitlisted`, those whose outcome is WAITLIST; `people`, arrivals
        and the guests they brought; `inside`, the people inside now, and the meetup's `capacity`;
        `with_total`, `total` too: the entries with a guest (the door list's rows)."""
        total = count_where
        brought = fn.COALESCE(
            fn.SUM(Case(None, [(cls.has_arrived, fn.COALESCE(cls.guests_brought, 0))], 0)), 0
        )
        rows = (
            Meetup.select(
                Meetup.id,
                *([fn.COUNT(cls.guest).alias("total")] if with_total else []),
                total(~cls.is_walkin & ~cls.cancelled_rsvp).alias("rsvps"),
                total(cls.cancelled_rsvp).alias("cancelled"),
                total(cls.is_walkin).alias("walkins"),
                total(cls.has_arrived).alias("arrived"),
                total(cls.waiting()).alias("waitlisted"),
                (total(cls.has_arrived) + brought).alias("people"),
                Meetup.inside,
                Meetup.capacity,
            )
            .join(cls, JOIN.LEFT_OUTER)  # a meetup with nobody on its list yet has its capacity too
            .where(Meetup.id.in_(list(meetup_ids)))
            .group_by(Meetup.id)
            .dicts()
        )
        return {str(row.pop("id")): row for row in rows}

    @classmethod
    def _at_the_door(cls):
        """Entries with what the door shows: meetup, guest, checker (or None), the door pass that checked
        them in with its maker (or None), `ban`, the guest's ban in the meetup's org (or None), and
        `guest_note`, their GuestNote there (or None), joined."""
        query = (
            cls.select(
                cls,
                Meetup.id,
                Meetup.org,
                Meetup.date,
                Meetup.is_finalized,
                Meetup.cancelled_at,
                Meetup.inside,
                Meetup.capacity,
                Guest.platform_user_id,
                Guest.username,
                Guest.displayname,
                Guest.is_local,
                Guest.hint,
                Ban.id,
                Ban.reason,
                User.id,
                User.username,
                GuestNote.note,
            )
            .join(Meetup)
            .switch(cls)
            .join(Guest)
            .switch(cls)
            .join(Ban, JOIN.LEFT_OUTER, attr="ban", on=(Ban.guest == cls.guest) & (Ban.org == Meetup.org))
            .switch(cls)
            .join(User, JOIN.LEFT_OUTER, on=User.id == cls.checked_in_by)
        )
        return _with_pass(GuestNote.joined(query, cls, Meetup.org))

    @classmethod
    def door_list(cls, meetup):
        """The meetup's entries by rsvp_time, with what the door shows, in one query."""
        return cls._at_the_door().where(cls.meetup == meetup.id).order_by(cls.rsvp_time, cls.id)

    @classmethod
    def at_door(cls, org_id, meetup_id, guest_id):
        """The guest's entry on the org's meetup's list, as door_list() gives it, or None."""
        return _AT_DOOR.first(org_id, meetup_id, guest_id)

    @classmethod
    def add_walkin(cls, meetup_id, guest_id, at):
        """Put the guest on the list as a walk-in who came `at`; False when already on it (the unique index
        decides)."""
        return (
            cls.insert(meetup=meetup_id, guest=guest_id, is_walkin=True, rsvp_time=at)
            .on_conflict_ignore()
            .as_rowcount()
            .execute()
            == 1
        )

    @classmethod
    def waiting(cls):
        """The condition of a WAITLIST outcome (see `outcome`), in SQL."""
        return cls.waitlisted & ~cls.has_arrived & ~cls.is_walkin & ~cls.cancelled_rsvp

    @classmethod
    def check_in(cls, entry, caller, at, brought=0, force=False):
        """Mark the entry arrived `at` with the meetup's next number, by `caller` (doorapp.caller.Caller),
        with `brought` of its guests, all of them inside; False when it already was, the meetup is closed
        or its room has no space for them (unless `force`: the UPDATEs decide; a False rolls back the
        request, which returns the number)."""
        number = Meetup.next_arrival_order(entry.meetup_id, 1 + brought, force)
        arrival = {
            "has_arrived": True,
            "arrival_time": at,
            "arrival_order": number,
            "guests_brought": brought,
            "checked_in_by": caller.user,
            "checked_in_pass": caller.door_pass,
            "exited_at": None,
        }
        if number is None or _ARRIVED.count(at, number, brought, *caller.actor, entry.id) != 1:
            return False
        for name, value in arrival.items():  # the instance now shows the row as stored
            setattr(entry, name, value)
        return True

    @classmethod
    def undo_check_in(cls, entry):
        """Clear the check-in (its people inside, if they were, are counted out); its number stays used
        (the counter never goes back). False when not arrived."""
        cleared = {
            "has_arrived": False,
            "arrival_time": None,
            "arrival_order": None,
            "guests_brought": None,
            "checked_in_by": None,
            "checked_in_pass": None,
            "exited_at": None,
        }
        undo = cls.update(**cleared)
        if undo.where(cls.id == entry.id, cls.has_arrived, cls.exited_at.is_null()).execute() == 1:
            Meetup.release(entry.meetup_id, 1 + (entry.guests_brought or 0))
        elif undo.where(cls.id == entry.id, cls.has_arrived).execute() != 1:  # undone while outside
            return False
        for name, value in cleared.items():  # the instance now shows the row as stored
            setattr(entry, name, value)
        return True

    @classmethod
    def set_guests_brought(cls, entry, brought):
        """Correct how many of its guests an arrival brought (inside, the people inside follow); False
        when the entry is not arrived (the UPDATE decides)."""
        correct = cls.update(guests_brought=brought)
        if correct.where(cls.id == entry.id, cls.has_arrived, cls.exited_at.is_null()).execute() == 1:
            more = brought - (entry.guests_brought or 0)
            if more >= 0:  # a correction of who came: the room's capacity does not refuse it
                Meetup.admit(entry.meetup_id, more, force=True)
            else:
                Meetup.release(entry.meetup_id, -more)
            return True
        return correct.where(cls.id == entry.id, cls.has_arrived).execute() == 1

    @property
    def shown_name(self):
        """The name the list shows: the one its file gave a platform member, else the guest's own."""
        return self.listed_name or self.guest.displayname

    @property
    def outcome(self):
        """Meetup's attendance words where they exist (ATTENDED, NO_SHOW, EXCUSED_ABSENCE), Door's own for
        the rest (WALK_IN, CANCELLED, WAITLIST, NOT_CHECKED_IN: a walk-in whose check-in was undone, and,
        for an expected guest who has not come, UPCOMING while the meetup is not over and MEETUP_CANCELLED
        when it was cancelled). The entry's meetup is read with it (with_guests, of_guest, at_door)."""
        if self.has_arrived:
            return "WALK_IN" if self.is_walkin else "ATTENDED"
        if self.is_walkin:
            return "NOT_CHECKED_IN"
        if self.cancelled_rsvp:
            return "CANCELLED"
        if self.waitlisted:
            return "WAITLIST"
        if self.excused_at:
            return "EXCUSED_ABSENCE"
        if self.meetup.cancelled_at is not None:
            return "MEETUP_CANCELLED"
        return "NO_SHOW" if self.meetup.is_over else "UPCOMING"

    @classmethod
    def no_show(cls, now):
        """The condition of a NO_SHOW outcome at `now` (see `outcome`), in SQL, with Meetup joined."""
        return (
            ~cls.has_arrived
            & ~cls.is_walkin
            & ~cls.cancelled_rsvp
            & ~cls.waitlisted
            & cls.excused_at.is_null()
            & Meetup.over(now)
        )

    @classmethod
    def with_guests(cls, meetup_id):
        """The meetup's entries with their guests (None: forgotten, still counted), checkers and GuestNote
        (`guest_note`) joined, arrivals first by when they came (the door's time), then the rest in RSVP
        order."""
        arrived_first = Case(None, [(cls.has_arrived, 0)], 1)
        query = (
            cls.select(cls, Guest, User.id, User.username, Meetup, GuestNote.note)
            .join(Guest, JOIN.LEFT_OUTER)
            .switch(cls)
            .join(User, JOIN.LEFT_OUTER, on=User.id == cls.checked_in_by)
            .switch(cls)
            .join(Meetup)
        )
        return (
            _with_pass(GuestNote.joined(query, cls, Meetup.org))
            .where(cls.meetup == meetup_id)
            .order_by(arrived_first, cls.arrival_time, cls.arrival_order, cls.rsvp_time, cls.id)
        )

    @classmethod
    def history(cls, org_id, guests, before=FOREVER):
        """{platform_user_id: {visits, last_visit, recent_no_shows}} of `guests` (ids or a query of them)
        over the org's meetups dated before `before`, in one query: arrivals, the last one, and no-shows at
        the org's RECENT last meetups that are over (Meetup.over: a meetup yet to come, or cancelled, has
        no no-shows and is not one of them; the guest-ids index reads only these guests' rows)."""
        return _as_history(cls._history_rows(org_id, guests, before, utcnow()))

    @classmethod
    def _history_rows(cls, org_id, guests, before, now):
        recent = (
            Meetup.select(Meetup.id)
            .where(Meetup.org == org_id, Meetup.date < before, Meetup.over(now))
            .order_by(Meetup.date.desc())
            .limit(RECENT)
        )
        return (
            cls.select(
                cls.guest,
                count_where(cls.has_arrived).alias("visits"),
                fn.MAX(cls.arrival_time).alias("last_visit"),
                count_where(cls.no_show(now) & cls.meetup.in_(recent)).alias("recent_no_shows"),
            )
            .join(Meetup)
            .where(cls.guest.in_(guests), Meetup.org == org_id, Meetup.date < before)
            .group_by(cls.guest)
            .tuples()
        )

    @classmethod
    def history_of(cls, org_id, guest_id, before):
        """history() of one guest (a door's answer to a check-in), from SQL text built once."""
        return _as_history(_HISTORY_OF_ONE.rows(org_id, guest_id, before, utcnow()))

    @classmethod
    def guests_of(cls, meetup_id):
        return cls.select(cls.guest).where(cls.meetup == meetup_id, cls.guest.is_null(False))

    @classmethod
    def of_guest(cls, org_id, guest_id):
        """The guest's entries at the org's meetups, newest meetup first, meetups and checkers joined."""
        return (
            _with_pass(
                cls.select(cls, Meetup, User.id, User.username)
                .join(Meetup)
                .switch(cls)
                .join(User, JOIN.LEFT_OUTER, on=User.id == cls.checked_in_by)
            )
            .where(cls.guest == guest_id, Meetup.org == org_id)
            .order_by(Meetup.date.desc())
        )

    @classmethod
    def excuse(cls, entry):
        """Excuse an absence; False when the guest arrived or was already excused (the UPDATE decides)."""
        return (
            cls.update(excused_at=utcnow())
            .where(cls.id == entry.id, ~cls.has_arrived, cls.excused_at.is_null())
            .execute()
            == 1
        )


def _with_pass(query):
    """`query` of entries with the door pass that checked each in, and its maker, selected and joined (or
    None)."""
    return (
        query.select_extend(DoorPass.id, DoorPass.label, MAKER.id, MAKER.username)
        .switch(MeetupGuest)
        .join(
            DoorPass, JOIN.LEFT_OUTER, on=DoorPass.id == MeetupGuest.checked_in_pass, attr="checked_in_pass"
        )
        .join(MAKER, JOIN.LEFT_OUTER, on=MAKER.id == DoorPass.created_by, attr="created_by")
    )


def _as_history(rows):
    return {
        guest: {"visits": visits, "last_visit": last, "recent_no_shows": no_shows}
        for guest, visits, last, no_shows in rows
    }


# A check-in's statements: SQL text built once (see Prepared).
_ARRIVED = Prepared(
    ("datetime", "int", "int", "int", "int", "int"),
    lambda at, number, brought, user_id, pass_id, entry_id: MeetupGuest.update(
        has_arrived=True,
        arrival_time=at,
        arrival_order=number,
        guests_brought=brought,
        checked_in_by=user_id,
        checked_in_pass=pass_id,
        excused_at=None,
        exited_at=None,
    ).where(MeetupGuest.id == entry_id, ~MeetupGuest.has_arrived),
)
_AT_DOOR = Prepared(
    ("uuid", "uuid", "int"),
    lambda org_id, meetup_id, guest_id: MeetupGuest._at_the_door().where(
        Meetup.org == org_id, MeetupGuest.meetup == meetup_id, MeetupGuest.guest == guest_id
    ),
)
_HISTORY_OF_ONE = Prepared(
    ("uuid", "int", "datetime", "datetime"),
    lambda org_id, guest_id, before, now: MeetupGuest._history_rows(org_id, [guest_id], before, now),
)
