"""A meetup's list brought in line with a list of RSVPs from outside: a platform's (POST .../sync) or a
file's (an import). The same semantics for both: new RSVPs added, guests created or renamed, RSVPs gone
marked cancelled (walk-ins never are), a returning RSVP un-cancelled, waitlist marks and guest counts
updated, check-in state never touched."""

from peewee import chunked

from doorapp.db import run_prepared, utcnow
from doorapp.models.guests import Guest
from doorapp.models.meetup_guests import MeetupGuest, guests_renamed
from doorapp.models.meetups import Meetup


def prepare_sync(meetup, event, profiles):
    """The sync's bulk inserts as [(sql, params)], built before the write lock is taken (building them is
    most of the work of a large sync). Chunks of 500 rows stay under the databases' parameter limits."""
    now = utcnow()
    # One order of row locks for every sync: two syncs sharing guests wait for each other, not deadlock.
    guests = sorted(
        (
            p.platform_user_id,
            p.username,
            p.displayname,
            getattr(p, "is_local", False),
            getattr(p, "org_id", None),
        )
        for p in profiles.values()
    )
    rsvps = [
        (r.platform_user_id, r.joined_at or now, r.waitlisted, r.guests)
        for r in event.rsvps
        if r.platform_user_id in profiles
    ]
    return (
        [Guest.upsert(rows).sql() for rows in chunked(guests, 500)],
        [MeetupGuest.add_rsvps(meetup.id, rows).sql() for rows in chunked(rsvps, 500)],
    )


def apply_sync(meetup, event, profiles, prepared):
    """Bring the meetup's list in line with the platform's RSVPs, inside the caller's write transaction, in
    a few queries (one more per distinct waitlist mark and guest count that changed). An RSVP whose profile
    the platform left out is skipped: neither added nor cancelled."""
    known, entries = Guest.profiles_of(list(profiles)), MeetupGuest.rsvp_states(meetup)
    changed = {i for i, names in known.items() if names != (profiles[i].username, profiles[i].displayname)}
    run_prepared(prepared[0])
    guests_renamed(changed)  # their names change on other meetups' lists too, in any org
    inserted = run_prepared(prepared[1])
    listed = [r.platform_user_id for r in event.rsvps if r.platform_user_id in profiles]
    back = [i for i in listed if entries.get(i, ())[:2] == (True, False)]  # a cancelled RSVP, not a walk-in
    on_platform = {r.platform_user_id for r in event.rsvps}
    gone = [i for i, state in entries.items() if state[:2] == (False, False) and i not in on_platform]
    MeetupGuest.set_cancelled(meetup, back, False)
    cancelled = MeetupGuest.set_cancelled(meetup, gone, True)
    details = {}  # (waitlisted, guests) -> the guests already listed whose RSVP now says so
    for r in event.rsvps:
        if r.platform_user_id in entries and entries[r.platform_user_id][2:] != (r.waitlisted, r.guests):
            details.setdefault((r.waitlisted, r.guests), []).append(r.platform_user_id)
    for (waitlisted, guests), ids in details.items():
        MeetupGuest.set_rsvp_details(meetup, ids, waitlisted, guests)
    Meetup.synced(meetup.id)
    updated = set(back) | (changed & set(entries)) | {i for ids in details.values() for i in ids}
    return {
        "inserted": inserted,
        "updated": len(updated),
        "cancelled": cancelled,
        "skipped": len(event.rsvps) - len(listed),
        "total": MeetupGuest.select().where(MeetupGuest.meetup == meetup).count(),
    }
