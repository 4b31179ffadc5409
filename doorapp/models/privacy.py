"""What an organization keeps of the people at its door, and forgetting the rest (docs/api.md, "Data
protection"): what retention (doorapp.privacy, at start and hourly) and an erasure take away, the guests
then deleted, and Erasure, which keeps a person an organization erased 404 there.

Forgetting an entry keeps the entry and takes its guest away (MeetupGuest.guest None): the meetup's
counts, its summary's numbers and its arrival numbers stay as they were, and nobody can tell whose it
was. Shredding an audit event keeps its type, time, actor, meetup and numbers, and takes its guest, its
reason and the names and free text of its details (EVENTS' `private`) away."""

import calendar

from peewee import BigIntegerField, DateTimeField, ForeignKeyField, IntegrityError, fn

from doorapp.db import BaseModel, db, iso, utcnow
from doorapp.errors import ApiError
from doorapp.models import changes, tags
from doorapp.models.accounts import IdempotencyKey, Org
from doorapp.models.audit import EVENTS, AuditEvent, AuditType, record
from doorapp.models.guests import Ban, Guest
from doorapp.models.meetup_guests import MeetupGuest
from doorapp.models.meetups import Meetup

BATCH = 100  # rows of each kind forgotten in one transaction: a door's next write waits for one batch
TO_SHRED = "audit_event_to_shred"  # the index of an org's events not shredded yet, by time (m0016)


class Erasure(BaseModel):
    """A person an org erased, by their id alone: 404 in that org (seen_here) until one of its lists has
    them again (a new RSVP, a walk-in)."""

    org = ForeignKeyField(Org, on_delete="CASCADE")
    guest_id = BigIntegerField()
    erased_at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("org", "guest_id"), True),)


def months_before(moment, months):
    """The same day and time `months` calendar months before `moment` (the month's last day where that
    month is shorter: 31 March less one month is 28 or 29 February)."""
    year, month = divmod(moment.year * 12 + moment.month - 1 - months, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def listed_here(org_id, guest_id):
    """The query of the ids of the org's list entries of a guest (`guest_id`: an id, or a column)."""
    return (
        MeetupGuest.select(MeetupGuest.id)
        .join(Meetup)
        .where(MeetupGuest.guest == guest_id, Meetup.org == org_id)
    )


def hidden_here(org_id):
    """The query of the ids of the people the org erased and has not listed again since."""
    return Erasure.select(Erasure.guest_id).where(
        Erasure.org == org_id, ~fn.EXISTS(listed_here(org_id, Erasure.guest_id))
    )


def seen_here(org_id, platform_user_id):
    """The guest as the org sees them (Guest.seen_by), else 404 not_found: also a person the org erased,
    until one of its lists has them again."""
    guest = Guest.seen_by(org_id, platform_user_id)
    if hidden_here(org_id).where(Erasure.guest_id == guest.platform_user_id).exists():
        raise ApiError(404, "not_found", f"No guest has the id {platform_user_id}.")
    return guest


def refuse_forgotten(meetup):
    """409 meetup_forgotten for a meetup older than its org keeps guests: a sync or an import of its list
    would bring back the people retention took off it, and count them twice."""
    months = Org.select(Org.keep_guests_months).where(Org.id == meetup.org_id).scalar()
    if meetup.date < months_before(utcnow(), months):
        raise ApiError(
            409,
            "meetup_forgotten",
            f"This meetup is more than {months} months old: the organization no longer keeps its guests, "
            "so its list cannot be brought in again.",
        )


def forget_entries(org_id, entries):
    """Entries [(id, guest id)] of the org's lists lose their guest and the name a file gave them there
    (noting whether the guest was let in by name, which the summary's local walk-ins count); how many did
    (one another process forgot meanwhile is not counted). Their guests' rows on the org's lists are named
    in the change record first, while they are there: a door's next delta drops those that left its list
    (`removed`), and resends those whose history changed."""
    if not entries:
        return 0
    changes.rows([guest for _, guest in entries], org_id)
    was_local = Guest.select(Guest.is_local).where(Guest.platform_user_id == MeetupGuest.guest)
    ids = [entry_id for entry_id, _ in entries]
    return (
        MeetupGuest.update(guest_was_local=was_local, guest=None, listed_name=None)
        .where(MeetupGuest.id.in_(ids), MeetupGuest.guest.is_null(False))
        .execute()
    )


def shred(events):
    """Events [(id, event_type, guest id, details)] lose their guest, their reason and their private
    details, and say so (shredded); how many did (one another process shredded meanwhile is not
    counted)."""
    plain = [event_id for event_id, kind, _, details in events if not _private(kind, details)]
    shredded = dict(guest=None, reason=None, shredded=True)
    done = 0
    if plain:
        done += AuditEvent.update(**shredded).where(AuditEvent.id.in_(plain), ~AuditEvent.shredded).execute()
    for event_id, kind, _, details in events:
        if private := _private(kind, details):
            kept = {key: value for key, value in details.items() if key not in private}
            query = AuditEvent.update(**shredded, details=kept)
            done += query.where(AuditEvent.id == event_id, ~AuditEvent.shredded).execute()
    return done


def _private(kind, details):
    """The keys of an event's `details` that shredding takes away (every one, for a type Door does not
    know: a newer Door's)."""
    event = EVENTS.get(kind)
    return set(details or {}) & (set(event.private) if event else set(details or {}))


def delete_untied(guest_ids):
    """Delete the guests among `guest_ids` whom nothing ties to anyone any more: no list entry and no ban
    anywhere, and, for a platform guest, no event of any organization about them (a guest let in by name
    belongs to one org, and its events of them lose them). Events that still named them (the platform's
    GUEST_CREATED) name no one. How many were deleted."""
    ids = sorted(guest_id for guest_id in guest_ids if guest_id is not None)
    if not ids:
        return 0
    in_an_org = AuditEvent.select().where(
        AuditEvent.guest == Guest.platform_user_id, AuditEvent.org.is_null(False)
    )
    untied = Guest.select(Guest.platform_user_id).where(
        Guest.platform_user_id.in_(ids),
        ~fn.EXISTS(MeetupGuest.select().where(MeetupGuest.guest == Guest.platform_user_id)),
        ~fn.EXISTS(Ban.select().where(Ban.guest == Guest.platform_user_id)),
        Guest.is_local | ~fn.EXISTS(in_an_org),
    )
    gone = [guest_id for (guest_id,) in untied.tuples()]
    if not gone:
        return 0
    try:
        with db.atomic():  # a savepoint: on PostgreSQL, a list may have taken one of them in meanwhile
            AuditEvent.update(guest=None).where(AuditEvent.guest.in_(gone)).execute()
            return Guest.delete().where(Guest.platform_user_id.in_(gone)).execute()
    except IntegrityError:  # kept this time; the next forgetting of them tries again
        return 0


def forget_answers(org_id, guest_id):
    """The org's door actions' stored answers (Idempotency-Key, kept a day) that name the guest."""
    named = IdempotencyKey.answer.contains(f'"platform_user_id": {guest_id},')
    IdempotencyKey.delete().where(IdempotencyKey.org_id == org_id, named).execute()


def erase(org_id, guest, caller, reason):
    """Everything the org holds of `guest`, now: their entries lose them, their ban ends, its tags and note
    on them go, the org's events about them are shredded, its doors' stored answers naming them go; a guest
    then tied to nobody is deleted, and the org keeps them 404 (Erasure). GUEST_ERASED names no one.
    {entries, bans, events}: how many of each the org held."""
    guest_id = guest.platform_user_id
    entries = forget_entries(
        org_id, listed_here(org_id, guest_id).select(MeetupGuest.id, MeetupGuest.guest).tuples()
    )
    bans = Ban.delete().where(Ban.org == org_id, Ban.guest == guest_id).execute()
    tags.forget(org_id, guest_id)
    events = shred(about(AuditEvent.org == org_id, AuditEvent.guest == guest_id))
    forget_answers(org_id, guest_id)
    now = utcnow()
    Erasure.insert(org=org_id, guest_id=guest_id, erased_at=now).on_conflict(
        conflict_target=[Erasure.org, Erasure.guest_id], update={Erasure.erased_at: now}
    ).execute()
    delete_untied([guest_id])
    counts = {"entries": entries, "bans": bans, "events": events}
    record(AuditType.GUEST_ERASED, caller, org=org_id, reason=reason, **counts)
    return counts


def about(*where, limit=None):
    """[(id, event_type, guest id, details)] of the events that match `where` and are not shredded yet
    (at most `limit`)."""
    query = AuditEvent.select(AuditEvent.id, AuditEvent.event_type, AuditEvent.guest, AuditEvent.details)
    return list(query.where(*where, ~AuditEvent.shredded).limit(limit).tuples())


def forget_some(org, now):
    """One batch of what the org keeps no longer at `now` (call it in a write transaction, again until it
    forgets nothing): entries of meetups dated more than keep_guests_months ago lose their guest, bans
    older than keep_bans_months end (BAN_EXPIRED), events older than keep_audit_details_months are
    shredded, then the guests this leaves tied to nobody are deleted, and the org's tags and notes on those
    it no longer lists or bans go. {entries, guests_deleted, bans, events}."""
    old = Meetup.select(Meetup.id).where(
        Meetup.org == org.id, Meetup.date < months_before(now, org.keep_guests_months)
    )
    entries = list(
        MeetupGuest.select(MeetupGuest.id, MeetupGuest.guest)
        .where(MeetupGuest.meetup.in_(old), MeetupGuest.guest.is_null(False))
        .limit(BATCH)
        .tuples()
    )
    forgotten = forget_entries(org.id, entries)
    bans = []
    if org.keep_bans_months is not None:
        since = months_before(now, org.keep_bans_months)
        bans = list(Ban.select().where(Ban.org == org.id, Ban.banned_at < since).limit(BATCH))
    ended = [ban for ban in bans if Ban.lift(ban)]  # another process's pass may have ended one meanwhile
    for ban in ended:
        record(AuditType.BAN_EXPIRED, None, org=org.id, guest=ban.guest_id, banned_at=iso(ban.banned_at))
    since = months_before(now, org.keep_audit_details_months)
    events = about(AuditEvent.org == org.id, AuditEvent.timestamp < since, limit=BATCH)
    shredded = shred(events)
    touched = [guest for _, guest in entries] + [ban.guest_id for ban in bans] + [e[2] for e in events]
    guests = delete_untied(touched)
    _forget_tags(org.id, touched)
    return {"entries": forgotten, "guests_deleted": guests, "bans": len(ended), "events": shredded}


def _forget_tags(org_id, guest_ids):
    """The org's tags and notes on these guests, where it lists them and bans them no longer."""
    ids = sorted({guest_id for guest_id in guest_ids if guest_id is not None})
    for model in (tags.GuestTag, tags.GuestNote) if ids else ():
        banned = Ban.select().where(Ban.org == org_id, Ban.guest == model.guest)
        model.delete().where(
            model.org == org_id,
            model.guest.in_(ids),
            ~fn.EXISTS(listed_here(org_id, model.guest)),
            ~fn.EXISTS(banned),
        ).execute()
