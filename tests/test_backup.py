"""Backups: `doorapp backup` while serving, the service's own daily and after-finalize ones, restoring one."""

import os
import shutil
import sqlite3
import subprocess
import time

import requests
from helpers import DOORAPP, PASSWORD, door_env, served

from doorapp.backup import KEEP, Scheduler, backup, backups_dir, due
from doorapp.models import AuditEvent


def doorapp(*args, stdin=""):
    return subprocess.run(
        [DOORAPP, *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        env=door_env(),
        timeout=60,
        check=False,
    )


def set_up(door, username="olga"):
    answer = requests.post(
        f"{door.url}/setup",
        json={"code": door.setup_code, "username": username, "password": PASSWORD},
        timeout=10,
    )
    assert answer.status_code == 201


def sign_in(url, username):
    return requests.post(f"{url}/auth/token", data={"username": username, "password": PASSWORD}, timeout=10)


def usernames(path):
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in connection.execute("SELECT username FROM user ORDER BY username")]
    finally:
        connection.close()


def wait_until(condition, seconds=20):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.02)


def test_backup_copies_the_database_into_a_dated_file_while_the_service_runs(tmp_path):
    data = tmp_path / "door-data"
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", data) as door:
        set_up(door)
        copied = doorapp("backup", f"{tmp_path}/copies/", "--data-dir", data)  # a folder, made
        assert copied.returncode == 0, copied.stderr
        [dated] = (tmp_path / "copies").glob("door-*.db")
        assert copied.stdout == f"Backed up to {dated}\n"
        named = doorapp("backup", tmp_path / "tonight.db", "--data-dir", data)
        assert named.stdout == f"Backed up to {tmp_path / 'tonight.db'}\n"
        assert requests.get(f"{door.url}/health", timeout=10).status_code == 200
        assert door.stop() == 0
    for path in (dated, tmp_path / "tonight.db"):
        assert usernames(path) == ["olga"]
    # One self-contained file each: readable and restorable with no -wal or -shm beside it.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copies", "door-data", "tonight.db"]
    assert sorted(p.name for p in (tmp_path / "copies").iterdir()) == [dated.name]


def test_backup_without_a_database_says_where_it_looked(tmp_path):
    refused = doorapp("backup", tmp_path / "copy.db", "--data-dir", tmp_path / "nowhere")
    assert refused.returncode == 1
    nowhere = tmp_path / "nowhere" / "door.db"
    assert refused.stderr == f"There is no database at {nowhere}; check DOOR_DATA_DIR or --data-dir.\n"


def test_a_postgresql_backup_is_pg_dumps_own_and_nothing_lands_in_the_data_folder(postgres, tmp_path):
    url, data = postgres.database(postgres.template), tmp_path / "data"
    env = door_env(DATABASE_URL=url, DOOR_DATA_DIR=str(data))
    made = subprocess.run(
        [DOORAPP, "backup", f"{tmp_path}/dumps/"], capture_output=True, text=True, env=env, timeout=60
    )
    postgres.drop(url)
    assert made.returncode == 0, made.stderr
    [dump] = (tmp_path / "dumps").iterdir()
    assert dump.name.endswith(".dump") and f"Backed up to {dump}" in made.stdout
    assert dump.read_bytes().startswith(b"PGDMP")  # pg_dump's custom format, which pg_restore reads
    assert oct(dump.stat().st_mode & 0o777) == "0o600"
    assert not data.exists() or not any(data.iterdir())


def test_a_postgresql_backup_without_pg_dump_says_what_to_use(tmp_path):
    env = door_env(DATABASE_URL="postgresql://door@127.0.0.1:1/door", PATH=str(tmp_path))  # no pg_dump
    refused = subprocess.run(
        [DOORAPP, "backup", tmp_path / "copy.dump"], capture_output=True, text=True, env=env, timeout=60
    )
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "pg_dump, is not installed" in refused.stderr and "pg_dump --format=custom" in refused.stderr
    assert not (tmp_path / "copy.dump").exists()


def test_restoring_a_backup_brings_its_data_back(tmp_path):
    data = tmp_path / "door-data"
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", data) as door:
        set_up(door, "olga")
        assert doorapp("backup", tmp_path / "saved.db", "--data-dir", data).returncode == 0
        later = doorapp("create-admin", "later", "--password-stdin", "--data-dir", data, stdin=PASSWORD)
        assert later.returncode == 0
        assert door.stop() == 0
    # README, "Back up and restore": stop Door, remove door.db-wal and -shm if any, copy the backup over.
    for leftover in ("door.db-wal", "door.db-shm"):
        (data / leftover).unlink(missing_ok=True)
    shutil.copyfile(tmp_path / "saved.db", data / "door.db")
    with served(DOORAPP, "serve", "--port", "0", "--data-dir", data) as door:
        assert door.setup_code is None
        assert sign_in(door.url, "olga").status_code == 200
        assert sign_in(door.url, "later").status_code == 401
        assert door.stop() == 0


def test_the_service_backs_up_daily_and_after_each_finalize(config, org, meetup, make_user, as_user):
    folder = backups_dir(config.data_dir)
    scheduler = Scheduler(config.database_path, config.data_dir, every=0.02)
    scheduler.start()
    try:
        wait_until(lambda: len(list(folder.glob("door-*.db"))) == 1)  # there was none: one now
        assert not due(config.database_path, folder)
        admin = as_user(make_user("ann", org=org, role="ADMIN"))
        admin.patch(f"/organizations/{org.id}/meetups/{meetup.id}/finalize")
        finalized = AuditEvent.get(AuditEvent.event_type == "MEETUP_FINALIZED").id
        wait_until(lambda: len(list(folder.glob("door-*.db"))) == 2)
        newest = max(folder.glob("door-*.db"))
        with sqlite3.connect(newest) as connection:
            assert connection.execute("SELECT MAX(id) FROM audit_event").fetchone()[0] >= finalized
        connection.close()
        assert not due(config.database_path, folder)
        day_old = time.time() - 25 * 60 * 60
        os.utime(newest, (day_old, day_old))
        wait_until(lambda: len(list(folder.glob("door-*.db"))) == 3)
    finally:
        scheduler.stop()
    assert not scheduler.is_alive()
    assert not list(folder.glob("*.partial"))


def test_the_service_keeps_the_latest_backups_and_every_pre_upgrade_copy(config, app):
    folder = backups_dir(config.data_dir)
    old = [backup(config.database_path, folder / f"door-2020-{n:02}.db") for n in range(KEEP + 2)]
    kept = backup(config.database_path, folder / "before-upgrade-2020.db")
    day_old = time.time() - 25 * 60 * 60
    for path in old:
        os.utime(path, (day_old, day_old))
    scheduler = Scheduler(config.database_path, config.data_dir, every=0.02)
    scheduler.start()
    try:
        wait_until(lambda: set(folder.glob("door-*.db")) - set(old))
    finally:
        scheduler.stop()
    [new] = set(folder.glob("door-*.db")) - set(old)
    assert sorted(folder.glob("door-*.db")) == old[-(KEEP - 1) :] + [new]
    assert kept.exists()
