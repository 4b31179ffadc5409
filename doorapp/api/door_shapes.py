"""The JSON shapes of the door and of a meetup's guests (declared as doorapp.api.shapes says): a row of
the door list and the list itself, a guest's history in the organization, and a guest's line of the
summary and its CSV."""

from typing import TypedDict

from doorapp import models
from doorapp.actors import PassActor, Person, checker_json, checker_pass, checker_words
from doorapp.api.shapes import MOMENT, OUTCOME, Counts, Tag, tag_json
from doorapp.db import iso
from doorapp.models.meetup_guests import RECENT
from doorapp.models.tags import GuestNote, tagged, tags_of

REPEAT_NO_SHOWS = 2  # no-shows at the org's RECENT last meetups that mark a guest as a repeat no-show


class History(TypedDict):
    """A guest's past in the organization: visits, the last one, no-shows at its `recent` last meetups."""

    visits: int
    last_visit: MOMENT | None
    recent_no_shows: int
    recent: int
    repeat_no_show: bool


class WalkinMatch(TypedDict):
    """A guest Door knows, with their ban in this organization (none: is_banned false): a platform guest,
    or (`is_local`) one let in by name at this organization's door or read from its files, who has no
    username. What the walk-in dialog offers; on a list, the door sees them with their history too."""

    platform_user_id: int
    username: str
    displayname: str
    is_local: bool
    is_banned: bool
    ban_reason: str | None


class GuestAtDoor(WalkinMatch):
    """The guest as this list shows them: `displayname` is the name a file gave a platform member on this
    list, or their own; `hint`, for a guest read from a file, what tells them apart from namesakes:
    "email:" and the first letters of their e-mail, or "id:" and the end of their id in the file ("" for
    others)."""

    history: History
    hint: str
    tags: list[Tag]  # the organization's tags on the guest, by label
    note: str | None  # the organization's short note on the guest


class Rsvp(TypedDict):
    rsvp_time: MOMENT
    cancelled_rsvp: bool
    waitlisted: bool
    guests_count: int
    is_walkin: bool
    has_arrived: bool
    arrival_time: MOMENT | None
    arrival_order: int | None
    guests_brought: int | None  # of guests_count, how many came with them (null while not arrived)
    checked_in_by: Person | PassActor | None
    inside: bool  # arrived, and not stepped out
    exited_at: MOMENT | None  # stepped out, since then (null while inside, or not arrived)


class MeetupGuest(TypedDict):
    """A row of the door list: the guest and their RSVP."""

    guest: GuestAtDoor
    rsvp: Rsvp


class GuestOutcome(TypedDict):
    """One guest's line of a meetup's summary and of its CSV (the CSV's columns, in this order)."""

    platform_user_id: int
    username: str
    displayname: str
    outcome: OUTCOME
    guests_count: int
    guests_brought: int | None  # of guests_count, how many came with them (null while not arrived)
    rsvp_time: MOMENT | None
    cancelled_at: MOMENT | None
    arrival_order: int | None
    arrival_time: MOMENT | None
    checked_in_by: str | None  # a username, or a door pass as "Maria's phone (pass, made by alice)"
    checked_in_pass_label: str | None  # when a door pass let them in: its label, for a reader to word
    checked_in_pass_made_by: str | None  # ... and the username of who made it
    excused_at: MOMENT | None
    ban_overridden: bool  # a check-in of theirs overrode their ban
    undone_check_ins: int
    tags: list[Tag]  # the organization's tags on the guest (in a CSV: their labels)
    note: str | None  # the organization's short note on the guest


class ListState(TypedDict):
    """The meetup's state, as the door list shows it."""

    is_finalized: bool
    finalized_at: MOMENT | None
    cancelled_at: MOMENT | None
    cancel_reason: str | None
    last_synced_at: MOMENT | None


class DoorList(TypedDict):
    """A meetup's door list at one `version`: its guests, its counts and its state.

    `version` is opaque (the answer's ETag is `W/"<version>"`). `full` true: `guests` is every guest on
    the list, in RSVP order, and `removed` is empty. `full` false (an answer to `?since=<version>`):
    `guests` holds only the entries that changed since that version and `removed` the `platform_user_id`s
    that left the list since (a guest let in by name and then linked, say); replace entries by
    `platform_user_id` and drop the removed ones, and the list is the whole list at `version`. `total`,
    `counts` and `meetup` are always the whole list's."""

    version: str
    full: bool
    total: int
    counts: Counts
    meetup: ListState
    guests: list[MeetupGuest]
    removed: list[int]


OUTCOME_COLUMNS = tuple(GuestOutcome.__annotations__)


def history_json(history):
    """History from one value of MeetupGuest.history() (None: never on a list here)."""
    history = history or {"visits": 0, "last_visit": None, "recent_no_shows": 0}
    return History(
        visits=history["visits"],
        last_visit=iso(history["last_visit"]),
        recent_no_shows=history["recent_no_shows"],
        recent=RECENT,
        repeat_no_show=history["recent_no_shows"] >= REPEAT_NO_SHOWS,
    )


class GuestTags(TypedDict):
    """The tags and the note an organization keeps on a guest."""

    tags: list[Tag]
    note: str | None


def guest_tags_json(org_id, guest_id):
    """GuestTags: the org's tags and note on one guest."""
    note = GuestNote.get_or_none(GuestNote.org == org_id, GuestNote.guest == guest_id)
    tags = tags_of(org_id, [guest_id]).get(guest_id, [])
    return GuestTags(tags=[tag_json(tag) for tag in tags], note=(note and note.note) or None)


def guest_tags(org_id, entries):
    """{guest id: [Tag, ...]} of the entries' guests who have tags in the org (entries joined with their
    GuestNote: only those with one are looked up, and none is no query)."""
    return {
        guest: [tag_json(tag) for tag in tags] for guest, tags in tags_of(org_id, tagged(entries)).items()
    }


def note_of(entry):
    """The org's note on the entry's guest (joined with its GuestNote), or None."""
    note = getattr(entry, "guest_note", None)
    return (note and note.note) or None


def meetup_guest_json(entry, history=None, tags=None):
    """MeetupGuest (a row of the door list) from an entry of MeetupGuest.door_list() or .at_door(), with
    the guest's `history` in the org before this meetup and their `tags` (guest_tags(); both given by the
    door list for all its guests at once, else read here)."""
    guest, ban, meetup = entry.guest, entry.ban, entry.meetup
    if history is None:
        history = models.MeetupGuest.history_of(meetup.org_id, guest.platform_user_id, meetup.date)
    if tags is None:
        tags = guest_tags(meetup.org_id, [entry])
    return MeetupGuest(
        guest=GuestAtDoor(
            platform_user_id=guest.platform_user_id,
            username=guest.username,
            displayname=entry.shown_name,
            is_local=guest.is_local,
            is_banned=ban is not None,
            ban_reason=ban and ban.reason,
            history=history_json(history.get(guest.platform_user_id)),
            hint=guest.hint,
            tags=tags.get(guest.platform_user_id, []),
            note=note_of(entry),
        ),
        rsvp=rsvp_json(entry),
    )


def rsvp_json(entry):
    """Rsvp: an entry's RSVP and arrival (an entry with its checker and door pass joined)."""
    return Rsvp(
        rsvp_time=iso(entry.rsvp_time),
        cancelled_rsvp=entry.cancelled_rsvp,
        waitlisted=entry.waitlisted,
        guests_count=entry.guests_count,
        is_walkin=entry.is_walkin,
        has_arrived=entry.has_arrived,
        arrival_time=iso(entry.arrival_time),
        arrival_order=entry.arrival_order,
        guests_brought=entry.guests_brought,
        checked_in_by=checker_json(entry),
        inside=entry.has_arrived and entry.exited_at is None,
        exited_at=iso(entry.exited_at),
    )


def outcome_json(entry, record, tags=None):
    """GuestOutcome: who, and how their evening went. `entry` comes from MeetupGuest.with_guests(),
    `record` from audit.check_in_record(), `tags` from guest_tags() (else read here)."""
    if tags is None:
        tags = guest_tags(entry.meetup.org_id, [entry])
    guest = entry.guest
    forced, undone = record.get(guest.platform_user_id, (False, 0))
    pass_label, pass_maker = checker_pass(entry)
    return GuestOutcome(
        platform_user_id=guest.platform_user_id,
        username=guest.username,
        displayname=entry.shown_name,
        outcome=entry.outcome,
        guests_count=entry.guests_count,
        guests_brought=entry.guests_brought,
        rsvp_time=None if entry.is_walkin else iso(entry.rsvp_time),
        cancelled_at=iso(entry.cancelled_at),
        arrival_order=entry.arrival_order,
        arrival_time=iso(entry.arrival_time),
        checked_in_by=checker_words(entry),
        checked_in_pass_label=pass_label,
        checked_in_pass_made_by=pass_maker,
        excused_at=iso(entry.excused_at),
        ban_overridden=forced,
        undone_check_ins=undone,
        tags=tags.get(guest.platform_user_id, []),
        note=note_of(entry),
    )
