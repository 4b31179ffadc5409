"""Schema migrations: ordered, named functions applied at start-up and recorded in a table.

Never edit a migration that has been released; add a new function at the end of MIGRATIONS.
"""

from peewee import CharField, DateTimeField
from playhouse.migrate import SchemaMigrator
from playhouse.migrate import migrate as migrate_schema

from doorapp.models import MODELS, BaseModel, MeetupGuest, db, utcnow


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


def m0003_attendance():
    """What the summary and guest history need: when an RSVP was cancelled, the platform's waitlist mark and
    guest count, an admin's excuse; and an index to read one guest's meetups (their history)."""
    present = {column.name for column in db.get_columns(MeetupGuest._meta.table_name)}
    migrator = SchemaMigrator.from_database(db)
    fields = {"cancelled_at": MeetupGuest.cancelled_at, "waitlisted": MeetupGuest.waitlisted,
              "guests_count": MeetupGuest.guests_count, "excused_at": MeetupGuest.excused_at}
    migrate_schema(*[migrator.add_column(MeetupGuest._meta.table_name, name, field)
                     for name, field in fields.items() if name not in present])
    db.execute(MeetupGuest.index(MeetupGuest.guest, MeetupGuest.meetup).safe(True))


MIGRATIONS = [m0001_initial, m0002_door_list_order, m0003_attendance]


def pending():
    """Names of the migrations this database still needs; NewerDatabase if it has ones we do not know."""
    db.create_tables([Migration])
    applied = {m.name for m in Migration.select()}
    unknown = applied - {m.__name__ for m in MIGRATIONS}
    if unknown:
        raise NewerDatabase(
            f"This data folder was upgraded by a newer version of Door (it has migration "
            f"{', '.join(sorted(unknown))}). Run that version or newer; nothing was changed.")
    return [m for m in MIGRATIONS if m.__name__ not in applied]


def migrate(before_upgrade=None):
    """Apply every pending migration, each in its own transaction. `before_upgrade()` runs first when an
    existing database (one with migrations already applied) is about to change: the backup hook."""
    with db.atomic("IMMEDIATE"):
        todo = pending()
        existing = Migration.select().exists()
    if todo and existing and before_upgrade:
        before_upgrade()
    for migration in todo:
        with db.atomic("IMMEDIATE"):
            if not Migration.select().where(Migration.name == migration.__name__).exists():
                migration()
                Migration.create(name=migration.__name__)
    return [m.__name__ for m in todo]
