"""Upgrades: a newer Door backs up an older data folder and migrates it; an older Door refuses a newer one."""

import hashlib
import sqlite3
import subprocess
import uuid

import requests
from helpers import DOORAPP, ENGINES, PASSWORD, door_env, served
from playhouse.migrate import SchemaMigrator

from doorapp import access
from doorapp.app import create_app, open_database
from doorapp.config import Config
from doorapp.db import db, utcnow, write
from doorapp.imports import local_id
from doorapp.migrations import MIGRATIONS, Migration, m0001_initial, migrate
from doorapp.models import Ban, Erasure, Guest, Meetup, MeetupGuest, Org, User, changes
from doorapp.models.changes import Version


def m0001_data_folder(data_dir):
    """A data folder as Door left it when m0001_initial was its newest migration, with an admin and an org."""
    open_database(Config(data_dir=data_dir))
    db.create_tables([Migration])
    m0001_initial()
    Migration.create(name="m0001_initial")
    User.create(
        username="olga", password_hash=access.hash_secret(PASSWORD), role="SITE_ADMIN", is_approved=True
    )
    Org.create(name="Night Owls", slug="night-owls")
    db.close()


def drop_m0017_counts(connection):
    """A meetup table without m0017's counts (NOT NULL: a row inserted as an older Door did lacks them)."""
    for column in ("inside", "peak_inside"):
        connection.execute(f"ALTER TABLE meetup DROP COLUMN {column}")


def applied(path):
    with sqlite3.connect(path) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM migration ORDER BY name")]
        indexes = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    connection.close()
    return names, "meetup_guest_meetup_id_rsvp_time" in indexes


def snapshot(folder):
    return {
        p.relative_to(folder): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_a_new_database_gets_every_migration_once_and_no_backup(config):
    create_app(config)
    assert [m.name for m in Migration.select().order_by(Migration.name)] == [m.__name__ for m in MIGRATIONS]
    assert migrate() == []
    assert not (config.data_dir / "backups").exists()


def test_migrations_are_named_in_the_order_they_run():
    names = [m.__name__ for m in MIGRATIONS]
    assert names == sorted(set(names)) and names[0] == "m0001_initial"


def test_a_newer_door_backs_up_an_older_data_folder_then_migrates_it_in_place(tmp_path):
    m0001_data_folder(tmp_path)
    assert applied(tmp_path / "door.db") == (["m0001_initial"], False)
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        token = requests.post(
            f"{door.url}/auth/token", data={"username": "olga", "password": PASSWORD}, timeout=10
        ).json()["access_token"]
        orgs = requests.get(
            f"{door.url}/organizations/", headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
        assert [org["name"] for org in orgs.json()["organizations"]] == ["Night Owls"]
        assert door.setup_code is None
        assert door.stop() == 0
    [kept] = (tmp_path / "backups").glob("before-upgrade-*.db")
    assert f"Upgrading the database; the old one is kept in {kept}" in door.lines
    assert applied(kept) == (["m0001_initial"], False)
    assert applied(tmp_path / "door.db") == ([m.__name__ for m in MIGRATIONS], True)


def test_an_older_door_refuses_a_newer_data_folder_and_changes_nothing(tmp_path):
    create_app(Config(data_dir=tmp_path))
    Migration.create(name="m9999_from_the_future")
    db.close()
    before = snapshot(tmp_path)
    for command in (["serve", "--port", "0"], ["create-admin", "ada", "--password-stdin"]):
        refused = subprocess.run(
            [DOORAPP, *command, "--data-dir", str(tmp_path)],
            input=PASSWORD,
            text=True,
            capture_output=True,
            env=door_env(),
            timeout=60,
            check=False,
        )
        assert refused.returncode == 1
        assert "upgraded by a newer version of Door" in refused.stderr
        assert "m9999_from_the_future" in refused.stderr and "nothing was changed" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert snapshot(tmp_path) == before


def test_m0004_adds_the_attendance_columns_to_a_list_made_before_them(tmp_path):
    """A meetup_guest table as m0001 made it when it was released (without m0004's columns) gets them,
    with the defaults, and keeps its rows."""
    m0001_data_folder(tmp_path)
    with sqlite3.connect(tmp_path / "door.db") as connection:
        for column in ("cancelled_at", "waitlisted", "guests_count", "excused_at", "guest_was_local"):
            connection.execute(f"ALTER TABLE meetup_guest DROP COLUMN {column}")  # m0004's, m0016's
        connection.execute("ALTER TABLE guest DROP COLUMN is_local")  # m0003's
        connection.execute("ALTER TABLE guest DROP COLUMN hint")  # m0018's
        connection.execute("ALTER TABLE meetup DROP COLUMN door_list_version")  # m0005's
        connection.execute("ALTER TABLE org DROP COLUMN door_lists_version")
        connection.execute("ALTER TABLE meetup DROP COLUMN door_list_salt")  # m0015's
        drop_m0017_counts(connection)
        connection.execute(
            "INSERT INTO guest (platform_user_id, username, displayname, created_at) "
            "VALUES (1, 'ann', 'Ann', '2026-11-20')"
        )
        meetup = "b6a1e1de-4a3f-4a8e-9a5e-1d1e1e1e1e1e"
        connection.execute(
            "INSERT INTO meetup (id, org_id, name, date, platform_url, is_finalized, "
            "created_at, last_arrival_order) SELECT ?, id, 'm', '2026-11-21', 'u', 0, "
            "'2026-11-20', 0 FROM org",
            (meetup,),
        )
        connection.execute(
            "INSERT INTO meetup_guest (meetup_id, guest_id, rsvp_time, cancelled_rsvp, "
            "is_walkin, has_arrived) VALUES (?, 1, '2026-11-20', 1, 0, 0)",
            (meetup,),
        )
    connection.close()
    open_database(Config(data_dir=tmp_path))
    assert "m0004_attendance" in migrate()
    with sqlite3.connect(tmp_path / "door.db") as connection:
        rows = connection.execute(
            "SELECT guest_id, cancelled_rsvp, cancelled_at, waitlisted, guests_count, "
            "excused_at FROM meetup_guest"
        ).fetchall()
        indexes = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    connection.close()
    db.close()
    assert rows == [(1, 1, None, 0, 0, None)] and "meetup_guest_guest_id_meetup_id" in indexes


def test_m0006_renames_look_alike_accounts_to_what_they_looked_like(tmp_path):
    m0001_data_folder(tmp_path)
    with sqlite3.connect(tmp_path / "door.db") as connection:
        for name in ("ro\u200bot", "ｏｌｇａ", "ｂｏｂ", "\ufeff", "ana"):
            connection.execute(
                "INSERT INTO user (username, password_hash, role, is_approved, is_disabled, "
                "created_at, recovery_code_used, recovery_code_failures) "
                "VALUES (?, 'x', 'USER', 1, 0, '2026-11-20', 0, 0)",
                (name,),
            )
    connection.close()
    open_database(Config(data_dir=tmp_path))
    assert "m0006_usernames" in migrate()
    names = [u.username for u in User.select().order_by(User.id)]
    db.close()
    assert names == ["olga", "root", "olga-3", "bob", "user", "ana"]


def test_on_postgresql_added_columns_get_their_defaults_and_keep_the_rows(postgres, tmp_path):
    url = postgres.database()  # empty: migrated here from nothing
    config = Config(data_dir=tmp_path, database_url=url)
    create_app(config)
    Org.create(name="Night Owls", slug="night-owls")
    for statement in (
        "ALTER TABLE meetup DROP COLUMN door_list_version",
        "ALTER TABLE org DROP COLUMN door_lists_version",
        "ALTER TABLE guest DROP COLUMN is_local",
        "DELETE FROM migration WHERE name IN ('m0003_door_offline', 'm0007_door_list_versions')",
    ):
        db.execute_sql(statement)
    assert migrate() == ["m0003_door_offline", "m0007_door_list_versions"]
    assert Org.get(Org.slug == "night-owls").door_lists_version == 0
    db.close_all()
    postgres.drop(url)


def test_doors_started_at_once_on_one_postgresql_database_migrate_it_once(postgres, tmp_path):
    url = postgres.database()
    starts = [
        subprocess.Popen(
            [DOORAPP, "create-admin", f"admin{i}", "--password-stdin", "--data-dir", str(tmp_path / str(i))],
            stdin=subprocess.PIPE,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=door_env(DATABASE_URL=url),
        )
        for i in range(4)
    ]
    outcomes = [start.communicate(PASSWORD, timeout=60) for start in starts]
    assert [start.returncode for start in starts] == [0] * 4, outcomes
    create_app(Config(data_dir=tmp_path, database_url=url))
    assert sorted(m.name for m in Migration.select()) == [m.__name__ for m in MIGRATIONS]
    assert User.select().count() == 4
    db.close_all()
    postgres.drop(url)


def test_m0008_gives_each_guest_let_in_by_name_the_org_of_its_first_list(postgres, tmp_path):
    url = postgres.database()
    create_app(Config(data_dir=tmp_path, database_url=url))
    first, second = Org.create(name="A", slug="a"), Org.create(name="B", slug="b")
    meetups = [
        Meetup.create(org=org, name=org.name, date=utcnow(), platform_url=f"https://x/{org.slug}")
        for org in (first, second)
    ]
    local = Guest.create_local("Ana", first.id)
    for meetup in meetups:
        MeetupGuest.create(meetup=meetup, guest=local, is_walkin=True)
    db.execute_sql("ALTER TABLE guest DROP COLUMN org_id")
    db.execute_sql("DELETE FROM migration WHERE name = 'm0008_local_guests_org'")
    assert migrate() == ["m0008_local_guests_org"]
    assert Guest.get_by_id(local.platform_user_id).org_id == first.id
    db.close_all()
    postgres.drop(url)


def test_m0014_lets_arrivals_made_before_it_keep_all_their_guests(tmp_path):
    """Arrivals checked in before a check-in said how many came counted every RSVP'd guest: they still do."""
    m0001_data_folder(tmp_path)
    with sqlite3.connect(tmp_path / "door.db") as connection:
        connection.execute("ALTER TABLE meetup_guest DROP COLUMN guests_brought")
        connection.execute("ALTER TABLE meetup DROP COLUMN door_list_salt")  # m0015's
        drop_m0017_counts(connection)
        connection.execute("ALTER TABLE meetup_guest DROP COLUMN guest_was_local")  # m0016's
        connection.execute("ALTER TABLE guest DROP COLUMN hint")  # m0018's
        connection.execute(
            "INSERT INTO guest (platform_user_id, username, displayname, created_at, is_local) "
            "VALUES (1, 'ann', 'Ann', '2026-11-20', 0), (2, 'bo', 'Bo', '2026-11-20', 0)"
        )
        meetup = "b6a1e1de-4a3f-4a8e-9a5e-1d1e1e1e1e1e"
        connection.execute(
            "INSERT INTO meetup (id, org_id, name, date, platform_url, is_finalized, created_at, "
            "last_arrival_order, door_list_version) "
            "SELECT ?, id, 'm', '2026-11-21', 'u', 0, '2026-11-20', 1, 0 FROM org",
            (meetup,),
        )
        connection.execute(
            "INSERT INTO meetup_guest (meetup_id, guest_id, rsvp_time, cancelled_rsvp, is_walkin, "
            "has_arrived, guests_count, waitlisted) VALUES (?, 1, '2026-11-20', 0, 0, 1, 2, 0), "
            "(?, 2, '2026-11-20', 0, 0, 0, 3, 0)",
            (meetup, meetup),
        )
    connection.close()
    open_database(Config(data_dir=tmp_path))
    assert "m0014_guests_brought" in migrate()
    brought = dict(MeetupGuest.select(MeetupGuest.guest, MeetupGuest.guests_brought).tuples())
    db.close()
    assert brought == {1: 2, 2: None}


def test_m0015_starts_each_lists_change_record_at_its_version(tmp_path):
    """A door holding a list's version from before m0015 (its number; no salt yet) is sent what changes
    after it as a delta, not the whole list."""
    m0001_data_folder(tmp_path)
    with sqlite3.connect(tmp_path / "door.db") as connection:
        connection.execute("DROP TABLE door_change")
        connection.execute("DROP INDEX meetup_org_id_date")
        connection.execute("ALTER TABLE meetup DROP COLUMN door_list_salt")
        drop_m0017_counts(connection)
        connection.execute("ALTER TABLE meetup_guest DROP COLUMN guest_was_local")  # m0016's
        connection.execute("ALTER TABLE guest DROP COLUMN hint")  # m0018's
        connection.execute(
            "INSERT INTO guest (platform_user_id, username, displayname, created_at, is_local) "
            "VALUES (1, 'ann', 'Ann', '2020-01-01', 0)"
        )
        meetup = "b6a1e1de4a3f4a8e9a5e1d1e1e1e1e1e"  # as peewee stores a UUID in SQLite
        connection.execute(
            "INSERT INTO meetup (id, org_id, name, date, platform_url, is_finalized, created_at, "
            "last_arrival_order, door_list_version) "
            "SELECT ?, id, 'm', '2020-01-02', 'u', 0, '2020-01-01', 0, 7 FROM org",
            (meetup,),
        )
        connection.execute(
            "INSERT INTO meetup_guest (meetup_id, guest_id, rsvp_time, cancelled_rsvp, is_walkin, "
            "has_arrived, guests_count, waitlisted) VALUES (?, 1, '2020-01-01', 0, 0, 0, 0, 0)",
            (meetup,),
        )
    connection.close()
    open_database(Config(data_dir=tmp_path))
    assert "m0015_door_list_changes" in migrate()
    held = Version(7, 0, 0)
    assert changes.since(meetup, held, Version(7, 0, 0)) == set()
    with write():
        changes.rows([1], Meetup.get_by_id(meetup).org_id, meetup)
    now = Version(*Meetup.list_version(Meetup.get_by_id(meetup).org_id, meetup))
    db.close()
    assert now.number == 8 and changes.since(meetup, held, now) == {1}


def test_m0017_counts_who_is_inside_an_open_meetup_and_sends_out_a_finalized_ones(tmp_path):
    """Before m0017 nobody could step out: an open meetup's arrivals and their guests are inside, its peak
    is all of them at its last arrival; a finalized meetup had sent everyone out when it was finalized."""
    m0001_data_folder(tmp_path)
    with sqlite3.connect(tmp_path / "door.db") as connection:
        drop_m0017_counts(connection)
        connection.execute("ALTER TABLE meetup DROP COLUMN door_list_salt")  # m0015's
        connection.execute("ALTER TABLE meetup_guest DROP COLUMN exited_at")
        connection.execute("ALTER TABLE guest DROP COLUMN hint")  # m0018's
        connection.execute(
            "INSERT INTO guest (platform_user_id, username, displayname, created_at, is_local) "
            "VALUES (1, 'ann', 'Ann', '2026-11-20', 0), (2, 'bo', 'Bo', '2026-11-20', 0)"
        )
        open_one, finalized = uuid.uuid4(), uuid.uuid4()
        for meetup, is_finalized, url in ((open_one.hex, 0, "u"), (finalized.hex, 1, "v")):
            connection.execute(
                "INSERT INTO meetup (id, org_id, name, date, platform_url, is_finalized, finalized_at, "
                "created_at, last_arrival_order, door_list_version) SELECT ?, id, 'm', '2026-11-21', ?, ?, "
                "'2026-11-22 01:00:00', '2026-11-20', 2, 0 FROM org",
                (meetup, url, is_finalized),
            )
            connection.execute(
                "INSERT INTO meetup_guest (meetup_id, guest_id, rsvp_time, cancelled_rsvp, is_walkin, "
                "has_arrived, arrival_time, arrival_order, guests_count, guests_brought, waitlisted) VALUES "
                "(?, 1, '2026-11-20', 0, 0, 1, '2026-11-21 20:05:00', 1, 2, 2, 0), "
                "(?, 2, '2026-11-20', 0, 0, 1, '2026-11-21 20:30:00', 2, 0, 0, 0)",
                (meetup, meetup),
            )
    connection.close()
    open_database(Config(data_dir=tmp_path))
    assert "m0017_people_in_the_room" in migrate()
    counts = {
        str(m.id): (m.inside, m.peak_inside, m.peak_at and m.peak_at.isoformat())
        for m in Meetup.select().order_by(Meetup.id)
    }
    out = {
        (str(e.meetup_id), e.guest_id): e.exited_at and e.exited_at.isoformat() for e in MeetupGuest.select()
    }
    db.close()
    assert counts == {
        str(open_one): (4, 4, "2026-11-21T20:30:00"),
        str(finalized): (0, 4, "2026-11-21T20:30:00"),
    }
    assert out == {
        (str(open_one), 1): None,
        (str(open_one), 2): None,
        (str(finalized), 1): "2026-11-22T01:00:00",
        (str(finalized), 2): "2026-11-22T01:00:00",
    }


@ENGINES
def test_m0016_lets_list_entries_lose_their_guest_and_keeps_everything_else(database_url, tmp_path):
    """A list whose entries had to have a guest (before m0016) keeps its rows and indexes, and its entries
    may lose their guest; organizations get the default privacy settings, bans kept 24 months."""
    create_app(Config(data_dir=tmp_path, database_url=database_url))
    org = Org.create(name="Night Owls", slug="night-owls")
    meetup = Meetup.create(org=org, name="m", date=utcnow(), platform_url="https://x/y/z")
    MeetupGuest.create(meetup=meetup, guest=Guest.create(platform_user_id=1, username="ann"))
    SchemaMigrator.from_database(db.obj).add_not_null("meetup_guest", "guest_id").run()
    db.execute_sql("DROP INDEX audit_event_to_shred")
    for table, column in (
        ("meetup_guest", "guest_was_local"),
        ("audit_event", "shredded"),
        ("idempotency_key", "org_id"),
        *(("org", name) for name in ("keep_guests_months", "keep_bans_months", "keep_audit_details_months")),
        ("org", "privacy_notice"),
    ):
        db.execute_sql(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.drop_tables([Erasure])
    db.execute_sql("DELETE FROM migration WHERE name = 'm0016_privacy'")
    indexes = {index.name for index in db.get_indexes("meetup_guest")}
    assert migrate() == ["m0016_privacy"]
    assert {index.name for index in db.get_indexes("meetup_guest")} == indexes
    assert "audit_event_to_shred" in {index.name for index in db.get_indexes("audit_event")}
    MeetupGuest.update(guest=None).execute()
    entries = MeetupGuest.select(MeetupGuest.guest, MeetupGuest.guest_was_local).tuples()
    assert list(entries) == [(None, None)]
    org = Org.get_by_id(org.id)
    assert (org.keep_guests_months, org.keep_bans_months, org.keep_audit_details_months) == (12, 24, 12)
    assert org.privacy_notice == "" and Erasure.select().count() == 0
    db.close()


def test_m0018_reports_the_guests_a_file_may_have_read_as_one(tmp_path):
    """Rows whose names have no ASCII letter shared one guest; the upgrade names each such guest, with its
    org, lists and ban, and leaves the rest (Latin names, guests let in at the door) unmentioned."""
    create_app(Config(data_dir=tmp_path))
    org = Org.create(name="Night Owls", slug="night-owls")
    meetup = Meetup.create(org=org, name="m", date=utcnow(), platform_url="")
    merged = Guest.create(
        platform_user_id=local_id(org.id, "name:|"),
        username="",
        displayname="مريم حسن",
        is_local=True,
        org=org,
    )
    latin = Guest.create(
        platform_user_id=local_id(org.id, "name:ana garcia|"),
        username="",
        displayname="Ana García",
        is_local=True,
        org=org,
    )
    at_the_door = Guest.create_local("Søren Ørsted", org.id)
    for guest in (merged, latin, at_the_door):
        MeetupGuest.create(meetup=meetup, guest=guest)
    Ban.create(org=org, guest=merged, reason="Shouted at the bar staff")
    Migration.delete().where(Migration.name == "m0018_files_and_names").execute()
    for statement in (
        "ALTER TABLE meetup_guest DROP COLUMN listed_name",
        "ALTER TABLE guest DROP COLUMN hint",
    ):
        db.execute_sql(statement)
    db.close()
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", tmp_path) as door:
        assert door.stop() == 0
    reported = [line for line in door.log if "Upgrade: guest" in line]
    assert len(reported) == 1, door.log
    assert f"guest {merged.platform_user_id} 'مريم حسن' of organization 'Night Owls'" in reported[0]
    assert "on 1 meetup lists; banned: 'Shouted at the bar staff'" in reported[0]
