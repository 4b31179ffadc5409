"""Several doors at once, over a real waitress server on 127.0.0.1 with real threads, and a server killed
mid-storm: the database decides every race, and nothing answered 200 is lost."""

import os
import signal
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import requests
from helpers import (
    DOORAPP,
    ENGINES,
    SECRET,
    Served,
    add_guests,
    at_once,
    auth,
    children,
    door_env,
    events,
    prepared_database,
    served,
)

from doorapp.models import Ban, Guest, Meetup, MeetupGuest

pytestmark = ENGINES  # on SQLite and on PostgreSQL


def test_twenty_doors_checking_in_one_guest_get_one_200(live_server, meetup, guest, staff):
    url = (
        f"{live_server}/organizations/{meetup.org_id}/meetups/{meetup.id}/guests/"
        f"{guest.platform_user_id}/checkin"
    )
    replies = at_once(20, lambda i: requests.post(url, json={}, headers=auth(staff), timeout=30))
    assert sorted(r.status_code for r in replies) == [200] + [409] * 19
    refusals = [r.json() for r in replies if r.status_code == 409]
    assert {(r["code"], r["arrival_order"], r["checked_in_by"]["username"]) for r in refusals} == {
        ("already_checked_in", 1, "sam")
    }
    assert len(events("CHECK_IN")) == 1
    assert Meetup.get_by_id(meetup.id).last_arrival_order == 1


def test_a_hundred_guests_checked_in_by_sixteen_threads_get_numbers_1_to_100(live_server, meetup, staff):
    add_guests(meetup, range(1, 101))
    base = f"{live_server}/organizations/{meetup.org_id}/meetups/{meetup.id}/guests"
    headers = auth(staff)

    def check_in(guest_id):
        reply = requests.post(f"{base}/{guest_id}/checkin", headers=headers, timeout=30)
        assert reply.status_code == 200, reply.text
        return reply.json()["rsvp"]["arrival_order"]

    with ThreadPoolExecutor(16) as pool:
        numbers = list(pool.map(check_in, range(1, 101)))
    assert sorted(numbers) == list(range(1, 101))
    arrived = MeetupGuest.select().where(MeetupGuest.meetup == meetup, MeetupGuest.has_arrived)
    stored = [e.arrival_order for e in arrived]
    assert sorted(stored) == list(range(1, 101))
    assert len(events("CHECK_IN")) == 100


def test_simultaneous_walkins_of_one_guest_add_it_once(live_server, meetup, staff):
    Guest.create(platform_user_id=77, username="walker")
    url = f"{live_server}/organizations/{meetup.org_id}/meetups/{meetup.id}/guests/77/add-walkin"
    replies = at_once(20, lambda i: requests.post(url, headers=auth(staff), timeout=30))
    assert sorted(r.status_code for r in replies) == [201] + [409] * 19
    assert {r.json()["code"] for r in replies if r.status_code == 409} == {"already_on_list"}
    assert MeetupGuest.select().where(MeetupGuest.guest == 77).count() == 1
    assert len(events("WALKIN")) == 1


def test_simultaneous_bans_of_one_guest_succeed_once(live_server, org, guest, make_user):
    boss = make_user("boss", org=org, role="ADMIN")
    url = f"{live_server}/organizations/{org.id}/guests/{guest.platform_user_id}"
    replies = at_once(
        20,
        lambda i: requests.patch(f"{url}/ban", json={"reason": f"door {i}"}, headers=auth(boss), timeout=30),
    )
    assert sorted(r.status_code for r in replies) == [200] + [409] * 19
    winner = next(r.json() for r in replies if r.status_code == 200)
    assert Ban.get().reason == winner["reason"] and len(events("BAN")) == 1
    replies = at_once(20, lambda i: requests.patch(f"{url}/unban", headers=auth(boss), timeout=30))
    assert sorted(r.status_code for r in replies) == [200] + [409] * 19
    assert Ban.select().count() == 0 and len(events("UNBAN")) == 1


def test_check_ins_racing_finalize_either_land_with_a_number_or_are_refused(
    live_server, meetup, staff, org, make_user
):
    add_guests(meetup, range(1, 41))
    boss = make_user("boss", org=org, role="ADMIN")
    base = f"{live_server}/organizations/{meetup.org_id}/meetups/{meetup.id}"

    def act(i):
        if i == 20:
            return requests.patch(f"{base}/finalize", headers=auth(boss), timeout=30)
        return requests.post(f"{base}/guests/{i + 1}/checkin", headers=auth(staff), timeout=30)

    replies = at_once(40, act)
    assert replies[20].status_code == 200
    doors = replies[:20] + replies[21:]
    landed = sorted(r.json()["rsvp"]["arrival_order"] for r in doors if r.status_code == 200)
    assert {r.json()["code"] for r in doors if r.status_code != 200} <= {"meetup_finalized"}
    assert landed == list(range(1, len(landed) + 1))
    assert (
        len(events("CHECK_IN")) == len(landed) == MeetupGuest.select().where(MeetupGuest.has_arrived).count()
    )


# --- a killed server loses nothing it confirmed ----------------------------------------------------------


def serving(data_dir, database_url):
    settings = {"DOOR_SECRET_KEY": SECRET, **({"DATABASE_URL": database_url} if database_url else {})}
    return served(DOORAPP, "serve", "--port", "0", "--data-dir", data_dir, env=settings)


def test_a_server_killed_mid_storm_keeps_every_check_in_it_confirmed(tmp_path, database_url):
    data_dir, guests, threads = tmp_path / "data", range(1, 1601), 16
    meetup, headers = prepared_database(data_dir, database_url, guests)
    confirmed, refused, enough = {}, [], threading.Event()
    with serving(data_dir, database_url) as door:
        base = f"{door.url}/organizations/{meetup.org_id}/meetups/{meetup.id}/guests"

        def storm(lane):
            with requests.Session() as session:
                for guest_id in guests[lane::threads]:
                    try:
                        reply = session.post(f"{base}/{guest_id}/checkin", headers=headers, timeout=30)
                    except requests.RequestException:
                        return  # killed: this one's fate is unknown, and nobody was told it worked
                    if reply.status_code != 200:
                        refused.append(reply.text)
                        return
                    confirmed[guest_id] = reply.json()["rsvp"]["arrival_order"]
                    if len(confirmed) >= 200:
                        enough.set()

        workers = [threading.Thread(target=storm, args=(lane,)) for lane in range(threads)]
        for worker in workers:
            worker.start()
        enough.wait(timeout=60)
        door.stop(signal.SIGKILL)
        for worker in workers:
            worker.join(timeout=60)
    assert refused == []
    assert 200 <= len(confirmed) < len(guests), "the kill should land in the middle of the storm"

    with serving(data_dir, database_url) as door:
        org_path = f"{door.url}/organizations/{meetup.org_id}"
        listed = requests.get(f"{org_path}/meetups/{meetup.id}/guests", headers=headers, timeout=30).json()
        check_ins = requests.get(
            f"{org_path}/events/?type=CHECK_IN&limit=1", headers=headers, timeout=30
        ).json()
        assert door.stop() == 0
    arrived = {
        g["guest"]["platform_user_id"]: g["rsvp"]["arrival_order"]
        for g in listed["guests"]
        if g["rsvp"]["has_arrived"]
    }
    assert {g: arrived.get(g) for g in confirmed} == confirmed  # every confirmed check-in, with its number
    assert sorted(arrived.values()) == list(range(1, len(arrived) + 1))  # unique, no number seen twice
    assert check_ins["total"] == len(arrived)  # each check-in committed with its event, or neither
    if database_url is None:
        with sqlite3.connect(data_dir / "door.db") as check:
            assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_eight_admins_excusing_one_no_show_at_once_excuse_it_once(live_server, org, meetup, guest, make_user):
    admins = [auth(make_user(f"admin{i}", org=org, role="ADMIN")) for i in range(8)]
    Meetup.update(date=datetime(2026, 11, 1)).where(Meetup.id == meetup.id).execute()  # it has happened
    url = f"{live_server}/organizations/{org.id}/meetups/{meetup.id}/guests/{guest.platform_user_id}/excuse"
    replies = at_once(
        8, lambda i: requests.patch(url, json={"reason": f"told admin {i}"}, headers=admins[i], timeout=30)
    )
    assert sorted(r.status_code for r in replies) == [200] + [409] * 7
    assert {r.json()["code"] for r in replies if r.status_code == 409} == {"already_excused"}
    assert len(events("NO_SHOW_EXCUSED")) == 1


# --- several worker processes on one port ---------------------------------------------------------------


def test_two_worker_processes_number_a_hundred_check_ins_1_to_100_and_stop_together(tmp_path, database_url):
    data_dir, guests = tmp_path / "data", range(1, 101)
    meetup, headers = prepared_database(data_dir, database_url, guests)
    settings = {"DOOR_SECRET_KEY": SECRET, **({"DATABASE_URL": database_url} if database_url else {})}
    command = (DOORAPP, "serve", "--workers", "2", "--port", "0", "--data-dir", data_dir)
    with served(*command, env=settings) as door:
        base = f"{door.url}/organizations/{meetup.org_id}/meetups/{meetup.id}/guests"

        def check_in(guest_id):  # a connection of its own each: either worker may take it
            return requests.post(f"{base}/{guest_id}/checkin", headers=headers, timeout=30)

        with ThreadPoolExecutor(16) as pool:
            replies = list(pool.map(check_in, guests))
        workers = children(door.process.pid)
        killed = workers[0]
        os.kill(killed, signal.SIGKILL)  # a worker that dies is replaced
        for _ in range(50):
            if len(set(children(door.process.pid)) - {killed}) == 2:
                break
            time.sleep(0.1)
        replaced = set(children(door.process.pid)) - {killed}
        listed = requests.get(base, headers=headers, timeout=30).json()
        assert door.stop() == 0
    assert sorted(r.json()["rsvp"]["arrival_order"] for r in replies) == list(range(1, 101))
    served_by = {int(line.split("doorapp[")[1].split("]")[0]) for line in door.log if "/checkin 200" in line}
    assert len(workers) == 2 and served_by == set(workers), (workers, served_by)
    assert len(replaced) == 2 and listed["counts"]["arrived"] == 100
    assert children(door.process.pid) == [] and not [pid for pid in replaced if Path(f"/proc/{pid}").exists()]


def test_doors_started_at_once_on_an_empty_database_share_one_setup_code(tmp_path, database_url):
    data_dir = tmp_path / "data"
    settings = {"DOOR_SECRET_KEY": SECRET, **({"DATABASE_URL": database_url} if database_url else {})}
    with ThreadPoolExecutor(3) as pool:
        command = [str(part) for part in (DOORAPP, "serve", "--port", "0", "--data-dir", data_dir)]
        starts = [pool.submit(Served, command, door_env(**settings)) for _ in range(3)]
        doors = [start.result() for start in starts]
    try:
        codes = [door.setup_code for door in doors]
        printed = [code for code in codes if code]
        assert len(printed) == 1, [door.lines for door in doors]
        others = [door for door in doors if not door.setup_code]
        assert all(any("printed the setup code" in line for line in door.lines) for door in others)
        admin = {"code": printed[0], "username": "olga", "password": "a long enough password here"}
        assert requests.post(f"{others[0].url}/setup", json=admin, timeout=30).status_code == 201
    finally:
        for door in doors:
            door.process.kill()
            door.process.wait()
