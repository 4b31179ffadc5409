"""The third hardening round's smaller findings through a real server (issue 37): the calendar's edges (item
9: RSVP times near year 1 and 9999 in a file, a meetup's people CSV east and west of UTC with such times
stored, a door pass for a meetup on the last day there is: each a 422 or a problem row, never a 500); an
upload's file name is a text like any other, and a name a spreadsheet would run stays text in a CSV
(item 10)."""

import csv
import io
from datetime import datetime

import pytest
import requests
from helpers import LUMA_HEADER, auth

from doorapp.models import Guest, Meetup, MeetupGuest

EDGES = [
    "0001-01-01T00:30:00+01:00",
    "9999-12-31T23:30:00-01:00",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
]


def luma_row(name, created_at):
    first, last = name.split()
    cells = [f"gst-{first}", name, first, last, f"{first.lower()}@example.org", "", created_at, "approved"]
    return ",".join([*cells, "", "Standard", ""])


def test_rsvp_times_at_the_calendars_edges_are_problem_rows(live_server, org, staff):
    rows = [luma_row(f"Edge{n} Person", when) for n, when in enumerate(EDGES)]
    data = "\r\n".join(
        [",".join(LUMA_HEADER), luma_row("Lena Fischer", "2026-11-18T09:30:00Z"), *rows]
    ).encode()
    reply = requests.post(
        f"{live_server}/organizations/{org.id}/meetups/import?preview=true",
        files={"file": ("guests.csv", data)},
        headers=auth(staff),
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    report = reply.json()["import"]
    assert report["expected"] == 1
    assert [(p["row"], p["kind"]) for p in report["problems"]] == [(n, "far_time") for n in range(3, 7)]


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/Los_Angeles"])
def test_a_people_csv_with_times_at_the_calendars_edges_is_written(
    live_server, org, meetup, guest, boss_user, zone
):
    """Times stored before files' RSVP times were checked: written as they are, in UTC, where the local
    time would be past the calendar."""
    MeetupGuest.update(rsvp_time=datetime(9999, 12, 31, 23, 30)).execute()
    headers = auth(boss_user)
    assert requests.patch(
        f"{live_server}/organizations/{org.id}/settings",
        json={"time_zone": zone},
        headers=headers,
        timeout=10,
    ).ok
    early = MeetupGuest.create(meetup=meetup, guest=Guest.create_local("Early Bird", org.id))
    MeetupGuest.update(rsvp_time=datetime(1, 1, 1, 0, 30)).where(MeetupGuest.id == early.id).execute()
    reply = requests.get(
        f"{live_server}/organizations/{org.id}/meetups/{meetup.id}/export?style=people",
        headers=headers,
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    text = reply.content.decode("utf-8-sig")
    assert ("9999-12-31 23:30 UTC" in text) == (zone == "Asia/Tokyo")
    assert ("0001-01-01 00:30 UTC" in text) == (zone == "America/Los_Angeles")


def test_a_door_pass_for_a_meetup_on_the_last_day_there_is(live_server, org, meetup, boss_user):
    Meetup.update(date=datetime(9999, 12, 31, 20)).where(Meetup.id == meetup.id).execute()
    reply = requests.post(
        f"{live_server}/organizations/{org.id}/passes",
        json={"label": "Maria's phone", "meetup_id": str(meetup.id)},
        headers=auth(boss_user),
        timeout=10,
    )
    assert reply.status_code == 201, reply.text


# --- item 10 ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "kind"),
    [("\x1b]0;owned\x07\x1b[2Jguests.csv", "invalid"), ("x" * 60_000 + ".csv", "too_long")],
    ids=["terminal-escapes", "60000-characters"],
)
def test_an_upload_file_name_is_a_text_like_any_other(live_server, org, staff, filename, kind):
    reply = requests.post(
        f"{live_server}/organizations/{org.id}/meetups/import",
        data={"name": "Owls", "date": "2030-01-01T19:00:00Z"},
        files={"file": (filename, b"Name\nIda\n")},
        headers=auth(staff),
        timeout=10,
    )
    assert reply.status_code == 422, reply.text
    [error] = reply.json()["errors"]
    assert (error["loc"], error["type"]) == (["body", "file"], kind)
    assert not Meetup.select().exists()


@pytest.mark.parametrize("style", ["data", "people"])
def test_names_a_spreadsheet_would_run_stay_text_in_a_csv(live_server, org, meetup, guest, boss_user, style):
    hostile = ['\u0301=HYPERLINK("http://x")', "\u22121+2", "\u200b\u0308@SUM(A1)", "Ana \u22121"]
    for name in hostile:
        MeetupGuest.create(meetup=meetup, guest=Guest.create_local(name, org.id))
    reply = requests.get(
        f"{live_server}/organizations/{org.id}/meetups/{meetup.id}/export?style={style}",
        headers=auth(boss_user),
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    header, *rows = csv.reader(io.StringIO(reply.content.decode("utf-8-sig")))
    column = header.index("displayname" if style == "data" else "Name")
    names = {row[column] for row in rows}
    assert {"'" + name for name in hostile[:3]} <= names and "Ana \u22121" in names
