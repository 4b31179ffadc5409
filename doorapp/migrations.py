"""Schema migrations: ordered, named functions applied at start-up and recorded in a table.

Never edit a migration that has been released; add a new function at the end of MIGRATIONS.
"""

from peewee import BooleanField, CharField, DateTimeField
from playhouse.migrate import SchemaMigrator, migrate as alter

from doorapp.models import MODELS, BaseModel, IdempotencyKey, MeetupGuest, db, utcnow


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


def m0003_door_offline():
    """Door actions retried after a network blip (Idempotency-Key), and guests let in by a typed name."""
    if "is_local" not in {column.name for column in db.get_columns("guest")}:  # m0001 of today has it
        alter(SchemaMigrator.from_database(db).add_column("guest", "is_local", BooleanField(default=False)))
    db.create_tables([IdempotencyKey])


MIGRATIONS = [m0001_initial, m0002_door_list_order, m0003_door_offline]


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
