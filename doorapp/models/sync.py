"""A meetup's list brought in line with a list of RSVPs from outside: a platform's (POST .../sync) or a
file's (an import). The same semantics for both: new RSVPs added, guests created or renamed, RSVPs gone
marked cancelled (walk-ins never are, nor guests who have arrived, and a sync never cancels a guest who is
not the platform's: one let in by name, a file's row of another source), a returning RSVP un-cancelled,
waitlist marks and guest counts updated, check-in state never touched.

Both compare before the write lock is taken: stored() reads the list with its guests' names in one query
(and the names of the newcomers, in chunks), compare() works out what differs and builds the statements
that write only that; apply(), inside the write transaction, runs them. A list in which nothing changed
writes nothing but the meetup's sync time. When another sync or import of the meetup committed between the
reading and the lock (the meetup's last_synced_at moved), apply() reads and compares again inside it, so
two of them one after the other end as the second says (on PostgreSQL, where writers run side by side,
take_turn() makes them one after the other). Every UPDATE names the state it changes, so a
walk-in added meanwhile is never cancelled."""

from dataclasses import dataclass, field
from heapq import nsmallest
from typing import NamedTuple

from doorapp.db import db, in_chunks, queue_on, run_prepared, utcnow
from doorapp.models import changes
from doorapp.models.audit import AuditEvent, AuditType
from doorapp.models.guests import Guest
from doorapp.models.meetup_guests import MeetupGuest
from doorapp.models.meetups import Meetup


class State(NamedTuple):
    """An entry of the list as stored() read it."""

    cancelled: bool
    walkin: bool
    waitlisted: bool
    guests: int
    local: bool
    listed: str | None  # the name its file gave a platform member on this list
    arrived: bool


@dataclass
class Stored:
    stamp: object  # the meetup's last_synced_at when the list was read
    entries: dict  # {guest id: State} of the meetup's list
    names: dict  # {guest id: (username, displayname, hint)} of the known guests among those read


def stored(meetup, ids):
    """What is stored of `meetup`'s list (a Meetup as read, or one not created yet) and of the guests
    `ids`: the list with its guests' names in one query, then the names of those of `ids` not on it."""
    rows = db.execute_sql(*_states(meetup.id).sql()).fetchall()
    entries = {row[0]: State(*row[1:8]) for row in rows}
    names = {row[0]: tuple(row[8:11]) for row in rows}
    newcomers = sorted(set(ids) - entries.keys())
    for sql, params in _each(Guest.names_of, newcomers):
        names.update((row[0], tuple(row[1:])) for row in db.execute_sql(sql, params))
    return Stored(meetup.last_synced_at, entries, names)


@dataclass
class Plan:
    """What compare() found (its counts, and who), and the statements that write it."""

    rsvps: tuple  # what was compared, to compare again (current)
    profiles: dict
    known: Stored  # what it was compared with
    platform: bool  # compare()'s
    counts: dict  # listed (entries when read), skipped, added, updated, gone, kept, arrivals
    renamed: list  # known guests whose names change
    who: dict  # {added, updated, cancelled, kept: [guest id]}
    statements: dict = field(default_factory=dict)  # what: [(sql, params)]
    arrivals: list = field(default_factory=list)  # [(guest id, when, guests)] that arrive (apply's `caller`)


def compare(meetup, known, rsvps, profiles, platform=False):
    """The Plan that brings the list `known` (stored()) in line with `rsvps` [(guest id, rsvp time or
    None, waitlisted, guests, listed name or None, arrived at or None)] and their `profiles` {guest id:
    (username, displayname, is_local, org id, hint)}. An RSVP without a profile is skipped: neither added nor
    cancelled. A username, displayname or hint None keeps the stored one ("" for a guest not known yet): a
    file says nothing of a username, and never changes a platform member's profile (its name for them is
    the entry's listed name); is_local and the org count only for a guest not known yet. When the RSVPs
    are the `platform`'s (a sync), only its guests can be gone: local guests are never cancelled (a
    file's, by contrast, covers the whole list). A guest who has arrived is never cancelled: those the
    RSVPs no longer list are `kept`. An RSVP that arrived (a file's own door checked them in) and is not
    in here yet arrives then, with all its guests, unless a door undid their check-in here (the door
    knows better than a file read again)."""
    now, entries = utcnow(), known.entries
    guests, renamed = _profiles(known.names, profiles, now)
    meetup_id, adds, back, details, listed = Meetup.id.db_value(meetup.id), [], [], {}, {}
    skipped, arrivals = 0, []
    for i, joined_at, waitlisted, count, name, came in rsvps:
        state, profiled = entries.get(i), i in profiles
        skipped += not profiled
        if came and profiled and not (state and state.arrived):
            arrivals.append((i, came, count))
        if state is None:
            if profiled:
                adds.append((meetup_id, i, joined_at or now, waitlisted, count, name, *NEW))
            continue
        if state.cancelled and not state.walkin and profiled:  # a cancelled RSVP (not a walk-in) is back
            back.append(i)
        if (state.waitlisted, state.guests) != (waitlisted, count):  # listed already: its details
            details.setdefault((waitlisted, count), []).append(i)
        if state.listed != name and profiled:
            listed.setdefault(name, []).append(i)
    if arrivals:
        undone = _undone(meetup)
        arrivals = [arrival for arrival in arrivals if arrival[0] not in undone]
    sent = {r[0] for r in rsvps}
    left = [
        i
        for i, state in entries.items()
        if not state.cancelled and not state.walkin and i not in sent and not (platform and state.local)
    ]
    gone, kept = [i for i in left if not entries[i].arrived], [i for i in left if entries[i].arrived]
    changed = [i for ids in (*details.values(), *listed.values()) for i in ids]
    updated = {*back, *(i for i in renamed if i in entries), *changed}
    statements = {
        "guests": in_chunks(Guest.upsert, guests),
        "rsvps": in_chunks(_add_rsvps, adds),
        "back": _each(lambda ids: _set_cancelled(meetup_id, ids, False), back),
        "gone": _each(lambda ids: _set_cancelled(meetup_id, ids, True), gone),
        "details": [
            statement
            for (waitlisted, count), ids in details.items()
            for statement in _each(
                lambda ids, w=waitlisted, c=count: _set_rsvp_details(meetup_id, ids, w, c), ids
            )
        ],
        "listed": [
            statement
            for name, ids in listed.items()
            for statement in _each(lambda ids, n=name: _set_listed_name(meetup_id, ids, n), ids)
        ],
    }
    counts = {"listed": len(entries), "skipped": skipped, "added": len(adds)}
    counts.update(updated=len(updated), gone=len(gone), kept=len(kept), arrivals=len(arrivals))
    who = {"added": [row[1] for row in adds], "updated": [*updated], "cancelled": gone, "kept": kept}
    return Plan(rsvps, profiles, known, platform, counts, renamed, who, statements, arrivals)


def _profiles(names, profiles, now):
    """(the guest rows to upsert, the known guests among them renamed) for `profiles` (compare())."""
    guests, renamed, orgs = [], [], {None: None}  # orgs: {org id: as sent}
    for i, (username, displayname, local, org, hint) in profiles.items():
        was = names.get(i)
        new = tuple(
            given if given is not None else (was[k] if was else "")
            for k, given in enumerate((username, displayname, hint))
        )
        if was == new:
            continue
        if was is not None:
            renamed.append(i)
        org = orgs[org] if org in orgs else orgs.setdefault(org, Guest.org.db_value(org))
        guests.append((i, *new, local, org, now))
    guests.sort()  # one order of row locks for every sync: two sharing guests wait, not deadlock
    return guests, renamed


def named(plan, limit):
    """{added, updated, cancelled, kept}: the names of those the plan adds, updates (by their new name),
    cancels and keeps (arrived, no longer listed), at most `limit` of each, in alphabetical order."""
    listed = {r[0]: r[4] for r in plan.rsvps if r[4]}

    def name(i):
        given = plan.profiles.get(i) or (None, None)
        was = plan.known.names.get(i) or ("", "")
        return listed.get(i) or given[1] or was[1] or given[0] or was[0] or ""

    return {what: nsmallest(limit, map(name, ids), key=str.casefold) for what, ids in plan.who.items()}


NEW = (False, False, False)  # a new entry's cancelled_rsvp, is_walkin, has_arrived (_add_rsvps)


# The statements of a list's entries that only a sync or an import makes (the door's: MeetupGuest).


def _states(meetup_id):
    """The query of (platform_user_id, cancelled_rsvp, is_walkin, waitlisted, guests_count, is_local,
    listed_name, has_arrived, username, displayname, hint) of everyone on the meetup's list."""
    entry = MeetupGuest
    return (
        entry.select(
            entry.guest,
            entry.cancelled_rsvp,
            entry.is_walkin,
            entry.waitlisted,
            entry.guests_count,
            Guest.is_local,
            entry.listed_name,
            entry.has_arrived,
            Guest.username,
            Guest.displayname,
            Guest.hint,
        )
        .join(Guest)
        .where(entry.meetup == meetup_id)
    )


def _add_rsvps(rows):
    """The insert of RSVPs [(meetup_id, platform_user_id, rsvp_time, waitlisted, guests_count,
    listed_name, cancelled_rsvp, is_walkin, has_arrived)] leaving guests already on the list alone."""
    entry = MeetupGuest
    fields = [entry.meetup, entry.guest, entry.rsvp_time, entry.waitlisted, entry.guests_count]
    fields += [entry.listed_name, entry.cancelled_rsvp, entry.is_walkin, entry.has_arrived]
    return entry.insert_many(rows, fields=fields).on_conflict_ignore()


def _set_cancelled(meetup_id, guest_ids, cancelled):
    """The update that marks these guests' RSVPs (not walk-ins, nor anyone who has arrived) cancelled, and
    when, or back; only those not so already, so its count is of the RSVPs it changed."""
    entry = MeetupGuest
    which = [entry.meetup == meetup_id, entry.guest.in_(guest_ids), ~entry.is_walkin]
    which += [entry.cancelled_rsvp != cancelled, *([~entry.has_arrived] if cancelled else [])]
    return entry.update(cancelled_rsvp=cancelled, cancelled_at=utcnow() if cancelled else None).where(*which)


def _set_rsvp_details(meetup_id, guest_ids, waitlisted, guests_count):
    """The update that sets these guests' waitlist mark and guest count."""
    return MeetupGuest.update(waitlisted=waitlisted, guests_count=guests_count).where(
        MeetupGuest.meetup == meetup_id, MeetupGuest.guest.in_(guest_ids)
    )


def _set_listed_name(meetup_id, guest_ids, name):
    """The update that sets the name a file gives these guests on the list (None: their own)."""
    return MeetupGuest.update(listed_name=name).where(
        MeetupGuest.meetup == meetup_id, MeetupGuest.guest.in_(guest_ids)
    )


def _undone(meetup):
    """The guests whose check-in at the meetup a door undid (an index's range: org, event type)."""
    undone = AuditEvent.select(AuditEvent.guest).where(
        AuditEvent.org == meetup.org_id,
        AuditEvent.event_type == AuditType.UNDO_CHECK_IN,
        AuditEvent.meetup_id == meetup.id,
    )
    return {guest for (guest,) in undone.tuples()}


def _each(build, ids):
    """in_chunks() of a statement over a list of guest ids."""
    return in_chunks(lambda rows: build([i for (i,) in rows]), [(i,) for i in ids])


def take_turn(meetup):
    """Inside the write transaction, before the meetup is read again in it: wait until any other sync or
    import of it has committed (PostgreSQL; SQLite's writers take turns anyway), so that apply() sees its
    sync time and compares again. Check-ins do not wait for it."""
    queue_on(f"meetup list {meetup.id}")


def current(meetup, plan):
    """The plan, compared again when another sync or import of the meetup committed since it was made (its
    last_synced_at moved); inside the write transaction, `meetup` read again in it."""
    if meetup.last_synced_at == plan.known.stamp:
        return plan
    return compare(meetup, stored(meetup, plan.profiles), plan.rsvps, plan.profiles, plan.platform)


def apply(meetup, plan, caller=None):
    """Run the plan's writes inside the caller's write transaction, `meetup` read again in it (current()
    first), and record what they changed on the door lists (models.changes): the rows of the guests it
    renamed, on every list they are on in any org; those of the guests it added, changed, cancelled or
    checked in here (and on the org's later lists, whose history they are); the sync's time. The counts.
    Its arrivals are checked in by `caller` (a doorapp.caller.Caller)."""
    plan = current(meetup, plan)
    run_prepared(plan.statements["guests"])
    changes.rows(plan.renamed)
    inserted = run_prepared(plan.statements["rsvps"])
    run_prepared(plan.statements["back"])
    cancelled = run_prepared(plan.statements["gone"])
    run_prepared(plan.statements["details"])
    run_prepared(plan.statements["listed"])
    checked_in = sum(_arrive(meetup.id, i, came, count, caller) for i, came, count in plan.arrivals)
    arrived = [i for i, _, _ in plan.arrivals]
    changes.rows([*(i for ids in plan.who.values() for i in ids), *arrived], meetup.org_id, meetup.id)
    changes.state(meetup.id, last_synced_at=utcnow())  # the meetup's sync time, with its list's version
    return {
        "inserted": inserted,
        "updated": plan.counts["updated"],
        "cancelled": cancelled,
        "kept": plan.counts["kept"],
        "checked_in": checked_in,
        "skipped": plan.counts["skipped"],
        "total": MeetupGuest.select().where(MeetupGuest.meetup == meetup).count(),
    }


def _arrive(meetup_id, guest_id, at, brought, caller):
    """Check the guest in `at` (a file's own door did) by `caller` (None: Door itself, the command line),
    with the meetup's next number and all `brought`, counted into the room (its capacity does not refuse
    people already let in); False when already in (the UPDATE decides)."""
    entry = MeetupGuest.get_or_none(MeetupGuest.meetup == meetup_id, MeetupGuest.guest == guest_id)
    number = entry and not entry.has_arrived and Meetup.next_arrival_order(meetup_id)
    if not number:
        return False
    user_id, pass_id = caller.actor if caller else (None, None)
    arrival = {"arrival_time": at, "arrival_order": number, "guests_brought": brought, "excused_at": None}
    arrival.update(has_arrived=True, checked_in_by=user_id, checked_in_pass=pass_id)
    if MeetupGuest.update(**arrival).where(MeetupGuest.id == entry.id, ~MeetupGuest.has_arrived).execute():
        Meetup.admit(meetup_id, 1 + (brought or 0), force=True)
        return True
    return False


def foreseen(plan):
    """The counts apply() would give, from the plan alone: a preview's, which writes nothing."""
    counts = plan.counts
    return {
        "inserted": counts["added"],
        "updated": counts["updated"],
        "cancelled": counts["gone"],
        "kept": counts["kept"],
        "checked_in": counts["arrivals"],
        "skipped": counts["skipped"],
        "total": counts["listed"] + counts["added"],
    }
