"""Schema migrations: ordered, named functions applied at start-up and recorded in a table.

Never edit a migration that has been released; add a new function at the end of MIGRATIONS.
"""

import logging
import unicodedata
from copy import copy

from peewee import SQL, CharField, DateTimeField, fn
from playhouse.migrate import SchemaMigrator

from doorapp.db import BaseModel, db, exclusive, utcnow
from doorapp.imports import local_id
from doorapp.imports.formats import ascii_key_lost_letters, fold
from doorapp.models import (
    MODELS,
    AuditEvent,
    Ban,
    DoorChange,
    DoorPass,
    Erasure,
    Guest,
    GuestNote,
    GuestTag,
    IdempotencyKey,
    Meetup,
    MeetupGuest,
    Org,
    SigningKey,
    Tag,
    User,
)
from doorapp.models.accounts import INVISIBLE  # the code points that show as nothing
from doorapp.models.changes import STATE
from doorapp.models.privacy import TO_SHRED

log = logging.getLogger("doorapp")


class Migration(BaseModel):
    name = CharField(primary_key=True)
    applied_at = DateTimeField(default=utcnow)


class NewerDatabase(Exception):
    """The database was migrated by a newer Door than this one."""


def m0001_initial():
    db.create_tables(MODELS)


def m0002_door_list_order():
    """The door list (every door polls it) is in RSVP order per meetup: read it from an index, not a sort."""
    db.execute(MeetupGuest.index(MeetupGuest.meetup, MeetupGuest.rsvp_time).safe(True))


def add_columns(model, *names):
    """Add the model's columns `names` that its table lacks, in place, each NOT NULL one with its default as
    the column's DEFAULT. (playhouse's add_column makes a column NOT NULL by copying the table, which
    SQLite's foreign keys refuse for a table others point at, such as guest.)"""
    migrator, table = SchemaMigrator.from_database(db.obj), model._meta.table_name
    present = {column.name for column in db.get_columns(table)}
    for name in names:
        field = copy(model._meta.fields[name])
        if field.column_name in present:  # m0001 makes tables from today's models
            continue
        if not field.null:
            default = field.default
            if isinstance(default, str):
                value = "'" + default.replace("'", "''") + "'"
            else:
                value = str(default).upper() if isinstance(default, bool) else str(int(default))
            field.constraints = [SQL("DEFAULT " + value)]
        migrator.alter_add_column(table, field.column_name, field, allow_not_null=True).run()


def m0003_door_offline():
    """Door actions retried after a network blip (Idempotency-Key), and guests let in by a typed name."""
    add_columns(Guest, "is_local")
    db.create_tables([IdempotencyKey])


def m0004_attendance():
    """What the summary and guest history need: when an RSVP was cancelled, the platform's waitlist mark and
    guest count, an admin's excuse; and an index to read one guest's meetups (their history)."""
    add_columns(MeetupGuest, "cancelled_at", "waitlisted", "guests_count", "excused_at")
    db.execute(MeetupGuest.index(MeetupGuest.guest, MeetupGuest.meetup).safe(True))


def m0005_sessions():
    """A password reset, a new password and disabling end the account's earlier sessions."""
    add_columns(User, "sessions_since")


def m0006_usernames():
    """Names in the one form Door keeps (NFKC, nothing invisible): an account that registered a look-alike
    (`ro<zero width space>ot`, `ｒｏｏｔ`) is renamed to what it looked like, or that plus `-<id>` when that
    name is taken; it signs in with the new name (its sessions end, as its tokens name the old one)."""
    taken = {u.username for u in User.select(User.username)}
    for user in User.select().order_by(User.id):
        visible = "".join(c for c in user.username if unicodedata.category(c)[0] not in "CZ")
        name = unicodedata.normalize("NFKC", INVISIBLE.sub("", visible)) or "user"
        if name != user.username:
            name = name if name not in taken else f"{name[:50]}-{user.id}"
            User.update(username=name).where(User.id == user.id).execute()
            taken.add(name)


def m0007_door_list_versions():
    """Door lists' versions as counters moved on by each change (exact with several writers and engines)."""
    add_columns(Meetup, "door_list_version")
    add_columns(Org, "door_lists_version")


def m0008_local_guests_org():
    """A guest let in by name belongs to the org whose door let them in: the org of their first list."""
    add_columns(Guest, "org")
    first = (
        MeetupGuest.select(Meetup.org)
        .join(Meetup)
        .where(MeetupGuest.guest == Guest.platform_user_id)
        .order_by(MeetupGuest.id)
        .limit(1)
    )
    Guest.update(org=first).where(Guest.is_local, Guest.org.is_null()).execute()


def m0009_meetups_from_files():
    """A meetup imported from a file may have no platform URL (""): (org, platform_url) stays unique only
    among meetups that have one."""
    db.execute_sql("DROP INDEX IF EXISTS meetup_org_id_platform_url")
    db.execute(
        Meetup.index(Meetup.org, Meetup.platform_url, unique=True, where=SQL("platform_url <> ''")).safe(True)
    )


def m0010_signing_key():
    """The signing key kept by the database, for every machine on it (doorapp.keys; made at start, not
    here: the environment decides which key it is)."""
    db.create_tables([SigningKey])


def m0011_cancelled_meetups():
    """A meetup an admin cancelled (it did not take place): when, and why."""
    add_columns(Meetup, "cancelled_at", "cancel_reason")


def m0012_org_time_zone():
    """An organization's time zone, for the times of files made for people (none: the server's)."""
    add_columns(Org, "time_zone")


def m0013_door_passes():
    """Door passes: phones that work one org's door without an account, and what they did (the check-ins
    and events they made name them)."""
    db.create_tables([DoorPass])
    add_columns(MeetupGuest, "checked_in_pass")
    add_columns(AuditEvent, "actor_pass")
    db.execute(AuditEvent.index(AuditEvent.actor_pass, AuditEvent.event_type).safe(True))


def m0014_guests_brought():
    """How many of an arrival's guests came with them (set at the check-in): arrivals made before it
    counted all their guests, so each keeps its guests_count."""
    add_columns(MeetupGuest, "guests_brought")
    MeetupGuest.update(guests_brought=MeetupGuest.guests_count).where(MeetupGuest.has_arrived).execute()


def m0015_door_list_changes():
    """The door lists' change record (models.changes), so a door is sent what changed since the version it
    holds; each list's version as it stands starts it (a door that holds it is sent what changes next), and
    the org's meetups by date count those of a list's history still to begin."""
    add_columns(Meetup, "door_list_salt")
    db.create_tables([DoorChange])
    db.execute(Meetup.index(Meetup.org, Meetup.date).safe(True))
    now, started = (
        utcnow(),
        Meetup.select(Meetup.id, Meetup.door_list_version).where(Meetup.door_list_version > 0),
    )
    DoorChange.insert_many(
        [(m.id, m.door_list_version, 0, None, STATE, now) for m in started],
        fields=[
            DoorChange.meetup,
            DoorChange.version,
            DoorChange.salt,
            DoorChange.guest_id,
            DoorChange.what,
            DoorChange.at,
        ],
    ).execute()


def m0016_privacy():
    """What an organization keeps of guests, and forgetting the rest (doorapp.privacy): its privacy settings
    and notice (bans kept 24 months where the org had no setting); a list entry may lose its guest (noting
    one let in by name, whom the summary counts); an audit event may be shredded, and those still to
    shred are read from an index of their own; an org remembers whom it erased; a door's stored answer
    says which org's door it was."""
    add_columns(Org, "keep_guests_months", "keep_bans_months", "keep_audit_details_months", "privacy_notice")
    Org.update(keep_bans_months=24).where(Org.keep_bans_months.is_null()).execute()
    if not next(c.null for c in db.get_columns("meetup_guest") if c.name == "guest_id"):
        SchemaMigrator.from_database(db.obj).drop_not_null("meetup_guest", "guest_id").run()
    add_columns(MeetupGuest, "guest_was_local")
    add_columns(AuditEvent, "shredded")
    db.execute(
        AuditEvent.index(
            AuditEvent.org, AuditEvent.timestamp, where=~AuditEvent.shredded, name=TO_SHRED
        ).safe(True)
    )
    add_columns(IdempotencyKey, "org_id")
    db.create_tables([Erasure])


def m0017_people_in_the_room():
    """Who is inside (an arrival who stepped out, the people inside a meetup, its capacity and peak), and
    the tags and notes an org keeps on its guests. Before it nobody could step out: a meetup's arrivals
    and their guests are inside while it is open, its peak is all of them, reached at its last arrival,
    and finalizing had sent them out."""
    add_columns(MeetupGuest, "exited_at")
    add_columns(Meetup, "capacity", "inside", "peak_inside", "peak_at")
    db.create_tables([Tag, GuestTag, GuestNote])
    arrivals = MeetupGuest.select().where(MeetupGuest.meetup == Meetup.id, MeetupGuest.has_arrived)
    people = arrivals.select(fn.COALESCE(fn.SUM(1 + fn.COALESCE(MeetupGuest.guests_brought, 0)), 0))
    Meetup.update(peak_inside=people, peak_at=arrivals.select(fn.MAX(MeetupGuest.arrival_time))).execute()
    Meetup.update(inside=Meetup.peak_inside).where(Meetup.still_open()).execute()
    finalized = Meetup.select(Meetup.finalized_at).where(Meetup.id == MeetupGuest.meetup, Meetup.is_finalized)
    MeetupGuest.update(exited_at=finalized).where(MeetupGuest.has_arrived).execute()


def m0018_files_and_names():
    """A file's names: a platform member's on the list of its meetup only (listed_name, their profile the
    platform's), what tells a guest read from a file apart from namesakes (hint); and the guests a file
    may have read as one (names_in_every_script)."""
    add_columns(MeetupGuest, "listed_name")
    add_columns(Guest, "hint")
    names_in_every_script()


def names_in_every_script():
    """Until now a file's rows without an id or e-mail were told apart by their names' ASCII letters only,
    so people whose names are in another script (田中 花子, Иван Петров, مريم حسن: no ASCII letter at all)
    were read as one guest of their org, renamed by every file. Files read from now on tell them apart
    (imports.formats.name_key); those already read as one cannot be: the rows a file left out as "the same
    guest" were never stored, and which person each list meant is not known. So each such guest is
    reported here, in the log of the upgrade, with their org, lists and ban, for an admin to check: the
    next file of each of those meetups lists its people anew, each their own guest, and the merged guest
    keeps the history (and the ban) it had. Nothing is changed."""
    for guest in Guest.select().where(Guest.is_local, Guest.org.is_null(False)):
        name = guest.displayname
        if not ascii_key_lost_letters(name) or guest.platform_user_id != local_id(
            guest.org_id, f"name:{fold(name)}|"
        ):
            continue  # every letter was in the key, or not read from a file's name alone
        lists = MeetupGuest.select().where(MeetupGuest.guest == guest.platform_user_id).count()
        ban = Ban.get_or_none(Ban.guest == guest.platform_user_id)
        log.warning(
            "Upgrade: guest %d %r of organization %r may be several people whose names a file read as one"
            " (on %d meetup lists%s). Files read from now on keep them apart; check this guest's history.",
            guest.platform_user_id,
            name,
            Org.get_by_id(guest.org_id).name,
            lists,
            f"; banned: {ban.reason!r}" if ban else "",
        )


MIGRATIONS = [
    m0001_initial,
    m0002_door_list_order,
    m0003_door_offline,
    m0004_attendance,
    m0005_sessions,
    m0006_usernames,
    m0007_door_list_versions,
    m0008_local_guests_org,
    m0009_meetups_from_files,
    m0010_signing_key,
    m0011_cancelled_meetups,
    m0012_org_time_zone,
    m0013_door_passes,
    m0014_guests_brought,
    m0015_door_list_changes,
    m0016_privacy,
    m0017_people_in_the_room,
    m0018_files_and_names,
]


def pending():
    """Names of the migrations this database still needs; NewerDatabase if it has ones we do not know."""
    db.create_tables([Migration])
    applied = {m.name for m in Migration.select()}
    unknown = applied - {m.__name__ for m in MIGRATIONS}
    if unknown:
        raise NewerDatabase(
            f"This data folder was upgraded by a newer version of Door (it has migration "
            f"{', '.join(sorted(unknown))}). Run that version or newer; nothing was changed."
        )
    return [m for m in MIGRATIONS if m.__name__ not in applied]


def migrate(before_upgrade=None):
    """Apply every pending migration, each in its own transaction. `before_upgrade()` runs first when an
    existing database (one with migrations already applied) is about to change: the backup hook."""
    with exclusive():
        todo = pending()
        existing = Migration.select().exists()
    if todo and existing and before_upgrade:
        before_upgrade()
    for migration in todo:
        with exclusive():
            if not Migration.select().where(Migration.name == migration.__name__).exists():
                migration()
                Migration.create(name=migration.__name__)
    return [m.__name__ for m in todo]
