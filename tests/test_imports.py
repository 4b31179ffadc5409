"""POST .../meetups/import and .../meetups/<id>/import: guest lists from the files organizers download.
Fixtures come from helpers.py, in each format's real column names and value shapes, with invented people."""

import io
import socket
import zipfile
from urllib.parse import urlsplit

import jwt
import pytest
import requests
from fake_meetup import FakeMeetup
from helpers import (
    ENGINES,
    PEOPLE,
    at_once,
    auth,
    events,
    luma_csv,
    meetup_csv,
    meetup_xls,
    spanish_excel,
    xlsx,
)
from webtest import TestApp

from doorapp.app import create_app
from doorapp.models import Guest, MeetupGuest, Org


def url(org, meetup=None, preview=False):
    where = f"{meetup['id']}/" if meetup else ""
    return f"/organizations/{org.id}/meetups/{where}import" + ("?preview=true" if preview else "")


def post(client, org, data, filename="attendees.xls", meetup=None, preview=False, status=None, **fields):
    if meetup is None:
        fields = {"name": "Night Owls #12", "date": "2026-11-21T19:00:00Z", **fields}
    expected = status or (200 if preview or meetup else 201)
    return client.post(
        url(org, meetup, preview),
        {k: v for k, v in fields.items() if v is not None},  # None: left out of the form
        upload_files=[("file", filename, data)],
        status=expected,
    )


def listed(meetup):
    """{displayname: (cancelled, waitlisted, guests_count, arrived)} of the meetup's list."""
    rows = MeetupGuest.select(MeetupGuest, Guest).join(Guest).where(MeetupGuest.meetup == meetup["id"])
    return {
        r.guest.displayname: (r.cancelled_rsvp, r.waitlisted, r.guests_count, r.has_arrived) for r in rows
    }


def test_a_meetup_xls_creates_a_meetup_with_its_list(door, org):
    reply = post(door, org, meetup_xls()).json
    assert reply["meetup"]["name"] == "Night Owls #12" and reply["meetup"]["platform_url"] is None
    report = reply["import"]
    assert {k: report[k] for k in ("format", "rows", "added", "updated", "cancelled", "unchanged")} == {
        "format": "meetup", "rows": 5, "added": 4, "updated": 0, "cancelled": 0, "unchanged": 1,
    }  # fmt: skip
    assert (report["expected"], report["waitlisted"], report["not_expected"]) == (3, 1, 1)
    assert report["problems"] == [] and report["columns"]["name"] == ["Name"]
    assert listed(reply["meetup"]) == {
        "Ana García": (False, False, 1, False),
        "Tomás O'Neill, Jr.": (False, False, 0, False),
        '=HYPERLINK("http://x")': (False, True, 0, False),  # kept as typed
        "Priya Raman": (False, False, 2, False),
    }
    [event] = events("MEETUP_IMPORTED")
    assert event.details == {
        "file": "attendees.xls", "format": "meetup", "rows": 5, "added": 4, "updated": 0, "cancelled": 0,
        "unchanged": 1, "problems": 0, "checked_in": 0,
    }  # fmt: skip
    assert [e.event_type for e in events()][-2:] == ["MEETUP_CREATED", "MEETUP_IMPORTED"]


def test_imported_guests_are_kept_apart_from_platform_lookups(door, org):
    post(door, org, meetup_xls())
    guest = Guest.get(Guest.displayname == "Ana García")
    assert guest.is_local and guest.platform_user_id < 0  # the demo platform runs, not Meetup's
    door.get(f"/guests/{guest.platform_user_id}", status=404)


def test_imported_guests_belong_to_the_importing_org(door, org, make_user, as_user):
    """A guest read from a file is let in at the importing org's door and nowhere else: the same file
    imported by another org makes guests of its own, and that org gets 404 for the first org's."""
    meetup = post(door, org, meetup_xls()).json["meetup"]
    ana = Guest.get(Guest.displayname == "Ana García")
    entry = f"/organizations/{org.id}/meetups/{meetup['id']}/guests/{ana.platform_user_id}"
    assert door.post_json(entry + "/checkin", {}).json["rsvp"]["arrival_order"] == 1
    other = Org.create(name="Early Birds", slug="early-birds")
    theirs = as_user(make_user("bea", org=other, role="ADMIN"))
    their_meetup = post(theirs, other, meetup_xls()).json["meetup"]
    assert Guest.select().where(Guest.displayname == "Ana García").count() == 2
    stranger = f"/organizations/{other.id}/meetups/{their_meetup['id']}/guests/{ana.platform_user_id}"
    theirs.post_json(stranger + "/add-walkin", {}, status=404)
    theirs.patch_json(
        f"/organizations/{other.id}/guests/{ana.platform_user_id}/ban", {"reason": "x"}, status=404
    )


def test_a_meetup_row_is_the_meetup_adapters_member(config, org, boss):
    """With PLATFORM=meetup (the fake Meetup API, answering from Meetup's schema), a row of Meetup's export
    is the member the adapter reaches by id: one guest, one history over a meetup synced from Meetup and
    one imported from the file."""
    with FakeMeetup() as fake:
        fake.add_group("night-owls")
        fake.add_member(12537919, "Ana G.", "ana", groups=["night-owls"])
        url = fake.add_event("night-owls", "301234567", "Summer social", "2026-11-14T19:00:00Z", [12537919])
        club = TestApp(create_app(fake.configure(config)))  # the same database, on Meetup
        club.authorization = boss.authorization
        synced = club.post_json(f"/organizations/{org.id}/meetups/", {"platform_url": url}, status=201).json
        club.post_json(f"/organizations/{org.id}/meetups/{synced['id']}/guests/12537919/checkin", {})
        imported = post(club, org, meetup_csv()).json["meetup"]
        again = club.post(f"/organizations/{org.id}/meetups/{synced['id']}/sync").json
    assert again == {"inserted": 0, "updated": 0, "cancelled": 0, "skipped": 0, "total": 1}  # nobody renamed
    assert not Guest.select().where(Guest.is_local).exists()  # every row of the file is a member
    history = club.get(f"/organizations/{org.id}/guests/12537919/history").json
    assert (history["guest"]["username"], history["guest"]["displayname"]) == ("ana", "Ana G.")
    assert [(m["meetup_id"], m["outcome"]) for m in history["meetups"]] == [
        (imported["id"], "NO_SHOW"),
        (synced["id"], "ATTENDED"),
    ]


def test_preview_stores_nothing(door, org):
    report = post(door, org, meetup_csv(), "export.csv", preview=True).json
    assert list(report) == ["import", "event"] and report["import"]["added"] == 4
    assert report["event"] == {"name": "Night Owls #12", "date": "2026-11-21T19:00:00Z", "platform_url": None}
    assert report["import"]["first_rows"][0] == {
        "row": 2,
        "name": "Ana García",
        "status": "expected",
        "guests": 1,
    }
    assert door.get(f"/organizations/{org.id}/meetups/").json["total"] == 0
    assert events("MEETUP_IMPORTED") == [] and Guest.select().count() == 0


def test_a_newer_file_updates_the_list_like_a_sync(door, org):
    meetup = post(door, org, meetup_xls()).json["meetup"]
    ana = Guest.get(Guest.displayname == "Ana García").platform_user_id
    door.post_json(f"/organizations/{org.id}/meetups/{meetup['id']}/guests/{ana}/checkin", {}, status=200)
    newer = [
        ("Ana García", 12537919, "No", 1),  # answered No after arriving: she stays in
        ('=HYPERLINK("http://x")', 20000003, "Yes", 0),  # off the waitlist
        ("Wei Zhang", 20000004, "Yes", 0),  # changed their mind
        ("Priya Raman", 20000005, "Yes", 3),  # one more guest
    ]  # Tomás is gone
    preview = post(door, org, meetup_xls(newer), meetup=meetup, preview=True).json["import"]
    assert (preview["added"], preview["updated"], preview["cancelled"], preview["kept"]) == (1, 2, 1, 1)
    assert preview["names"] == {  # who, in alphabetical order
        "added": ["Wei Zhang"],
        "updated": ['=HYPERLINK("http://x")', "Priya Raman"],
        "cancelled": ["Tomás O'Neill, Jr."],
        "kept": ["Ana García"],
    }
    report = post(door, org, meetup_xls(newer), meetup=meetup).json["import"]
    assert (report["added"], report["updated"], report["cancelled"], report["kept"]) == (1, 2, 1, 1)
    assert report["names"] == preview["names"]
    assert listed(meetup) == {
        "Ana García": (False, False, 1, True),
        "Tomás O'Neill, Jr.": (True, False, 0, False),
        '=HYPERLINK("http://x")': (False, False, 0, False),
        "Wei Zhang": (False, False, 0, False),
        "Priya Raman": (False, False, 3, False),
    }
    again = post(door, org, meetup_xls(newer), meetup=meetup).json["import"]
    assert (again["added"], again["updated"], again["cancelled"], again["unchanged"]) == (0, 0, 0, 4)
    assert again["names"] == {"added": [], "updated": [], "cancelled": [], "kept": ["Ana García"]}
    assert Guest.select().count() == 5


def test_a_luma_csv(door, org):
    reply = post(door, org, luma_csv(), "guests.csv").json
    assert reply["import"]["format"] == "luma"
    assert (reply["import"]["expected"], reply["import"]["waitlisted"], reply["import"]["not_expected"]) == (
        2,
        1,
        2,  # declined, invited
    )
    # awaiting approval: left out, saying why
    assert [(p["row"], p["kind"]) for p in reply["import"]["problems"]] == [(5, "awaiting_approval")]
    assert sorted(listed(reply["meetup"])) == ["Lena Fischer", "Omar Haddad", "Sam Lee"]


@pytest.mark.parametrize(
    "data",
    [
        spanish_excel(),
        "Nombre\tApellidos\r\nJosé\tNúñez\r\nMaría\tPeña Ibáñez\r\nÁlvaro\tGómez\r\n".encode("utf-16"),
    ],
    ids=["spanish-excel-cp1252-semicolons", "utf16-tabs"],
)
def test_spreadsheets_saved_by_excel(door, org, data):
    reply = post(door, org, data, "lista.csv").json
    assert reply["import"]["format"] == "table"
    assert reply["import"]["columns"]["name"] == ["Nombre", "Apellidos"]
    assert sorted(listed(reply["meetup"])) == ["José Núñez", "María Peña Ibáñez", "Álvaro Gómez"]


def test_an_xlsx_with_a_title_row(door, org):
    data = xlsx(
        [["Book club, November"], [], ["First Name", "Last Name", "Email"], ["Ida", "Lund", "i@x.se"]]
    )
    reply = post(door, org, data, "club.xlsx").json
    assert reply["import"]["columns"]["name"] == ["First Name", "Last Name"]
    assert reply["import"]["problems"] == [] and list(listed(reply["meetup"])) == ["Ida Lund"]


def title_row_xlsx(people):
    """An .xlsx with a title and a blank row above its header, as clubs keep them."""
    rows = [["Book club, November"], [], ["First Name", "Last Name", "Email", "Guests"]]
    return xlsx(
        rows + [[first, last, f"{first.lower()}@example.se", guests] for first, last, guests in people]
    )


NEWER_FILES = {  # kind: (file name, the first export, the next day's: first kept, second gone or No, one new)
    "luma": (
        "guests.csv",
        luma_csv([("Lena", "Fischer", "approved"), ("Omar", "Haddad", "approved")]),
        luma_csv(
            [("Lena", "Fischer", "approved"), ("Omar", "Haddad", "declined"), ("Sam", "Lee", "approved")]
        ),
    ),
    "spanish-excel": (
        "lista.csv",
        spanish_excel([("José", "Núñez", "Sí"), ("María", "Peña Ibáñez", "Sí")]),
        spanish_excel([("José", "Núñez", "Sí"), ("María", "Peña Ibáñez", "No"), ("Álvaro", "Gómez", "Sí")]),
    ),
    "xlsx-title-row": (
        "club.xlsx",
        title_row_xlsx([("Ida", "Lund", 0), ("Per", "Ek", 0)]),
        title_row_xlsx([("Ida", "Lund", 1), ("Alva", "Berg", 0)]),
    ),
}


@pytest.mark.parametrize("kind", NEWER_FILES)
def test_each_kind_of_file_is_updated_by_its_newer_export_like_a_meetup_one(door, org, kind):
    name, first, newer = NEWER_FILES[kind]
    meetup = post(door, org, first, name).json["meetup"]
    arrived = sorted(listed(meetup))[0]  # the one each newer file keeps
    guest = Guest.get(Guest.displayname == arrived).platform_user_id
    door.post_json(f"/organizations/{org.id}/meetups/{meetup['id']}/guests/{guest}/checkin", {}, status=200)
    report = post(door, org, newer, name, meetup=meetup).json["import"]
    assert (report["added"], report["cancelled"]) == (1, 1)
    states = listed(meetup)
    assert states[arrived][3] is True and states[arrived][0] is False  # the arrival is kept
    assert sum(cancelled for cancelled, *_ in states.values()) == 1 and len(states) == 3
    assert Guest.select().count() == 3  # nobody twice


def test_ambiguous_name_columns_can_be_chosen(door, org):
    data = b"Name,First Name,Last Name\nTeam Blue,Ida,Lund\n"
    report = post(door, org, data, "x.csv", preview=True).json["import"]
    assert report["columns"]["name"] == ["First Name", "Last Name"] and report["other_name_columns"] == [
        ["Name"]
    ]
    chosen = post(door, org, data, "x.csv", preview=True, columns="Name").json["import"]
    assert chosen["first_rows"][0]["name"] == "Team Blue"


def test_an_imported_name_stays_text_in_the_csv_export(boss, org):
    meetup = post(boss, org, meetup_xls()).json["meetup"]
    text = boss.get(f"/organizations/{org.id}/meetups/{meetup['id']}/export").body.decode("utf-8-sig")
    assert "'=HYPERLINK" in text


def test_update_of_a_finalized_meetup_is_refused(door, boss, org):
    meetup = post(door, org, meetup_xls()).json["meetup"]
    boss.patch(f"/organizations/{org.id}/meetups/{meetup['id']}/finalize", status=200)
    assert post(door, org, meetup_xls(), meetup=meetup, status=409).json["code"] == "meetup_finalized"


def test_name_and_date_are_required_without_a_platform_url(door, org):
    reply = door.post(url(org), upload_files=[("file", "a.csv", b"Name\nIda\n")], status=422).json
    assert [e["loc"] for e in reply["errors"]] == [["body", "name"], ["body", "date"]]


def on_platform(fake, config, user, as_user):
    """A client of `user` on an app (the same database) whose platform is `fake`."""
    client = TestApp(create_app(fake.configure(config)))
    client.authorization = as_user(user).authorization
    return client


def test_an_event_url_of_the_platform_gives_the_name_and_date(fake_platform, config, staff, as_user, org):
    door = on_platform(fake_platform, config, staff, as_user)
    fake_platform.add_event("night-owls", "winter-social", "Winter social", "2026-12-12T19:30:00Z")
    typed = f"{fake_platform.web_url}/+night-owls/winter-social/?utm_source=mail"
    preview = post(door, org, meetup_csv(), "a.csv", preview=True, name=None, date=None, platform_url=typed)
    assert preview.json["event"] == {
        "name": "Winter social",
        "date": "2026-12-12T19:30:00Z",
        "platform_url": f"{fake_platform.web_url}/night-owls/winter-social",
    }
    meetup = post(door, org, meetup_csv(), "a.csv", name=None, date=None, platform_url=typed).json["meetup"]
    assert {k: meetup[k] for k in ("name", "date", "platform_url")} == preview.json["event"]
    again = post(door, org, meetup_csv(), "a.csv", date=None, platform_url=typed, status=409).json
    assert again["code"] == "duplicate_meetup"  # the same event, however its URL was typed


def test_a_name_of_ones_own_overrides_the_events_title(fake_platform, config, staff, as_user, org):
    door = on_platform(fake_platform, config, staff, as_user)
    typed = fake_platform.add_event("night-owls", "brunch", "Brunch", "2026-12-13T10:00:00Z")
    meetup = post(door, org, luma_csv(), "g.csv", name="Owls brunch", date=None, platform_url=typed).json
    assert (meetup["meetup"]["name"], meetup["meetup"]["date"]) == ("Owls brunch", "2026-12-13T10:00:00Z")


def test_an_event_the_platform_does_not_have_is_404(fake_platform, config, staff, as_user, org):
    door = on_platform(fake_platform, config, staff, as_user)
    typed = f"{fake_platform.web_url}/night-owls/no-such-event"
    for preview in (True, False):
        reply = post(
            door, org, meetup_csv(), "a.csv", preview=preview, status=404, name=None, platform_url=typed
        ).json
        assert reply["code"] == "platform_event_not_found"
    assert door.get(f"/organizations/{org.id}/meetups/").json["total"] == 0


def test_a_url_of_elsewhere_is_kept_but_fills_nothing_in(door, org):
    luma = "https://lu.ma/owls-winter"
    reply = post(door, org, luma_csv(), "g.csv", name=None, date=None, platform_url=luma, status=422).json
    assert [e["loc"] for e in reply["errors"]] == [
        ["body", "platform_url"],
        ["body", "name"],
        ["body", "date"],
    ]
    preview = post(door, org, luma_csv(), "g.csv", preview=True, name=None, date=None, platform_url=luma).json
    assert preview["event"] == {"name": None, "date": None, "platform_url": luma}
    assert preview["import"]["added"] == 3  # a preview needs no name or date
    meetup = post(door, org, luma_csv(), "g.csv", platform_url=luma).json["meetup"]
    assert (meetup["name"], meetup["platform_url"]) == ("Night Owls #12", luma)


def test_a_meetup_export_with_its_event_url_on_the_meetup_platform(config, staff, as_user, org):
    """The file of an event the `meetup` platform reads: the event gives the name and date, and each row
    is that member, the guest a sync of the same event would bring."""
    with FakeMeetup() as fake:
        fake.add_group("night-owls")
        fake.add_member(12537919, "Ana García", "ana", groups=["night-owls"])
        typed = fake.add_event("night-owls", "301", "Summer social", "2026-12-05T21:00:00+01:00", [12537919])
        door = on_platform(fake, config, staff, as_user)
        reply = post(door, org, meetup_xls(), name=None, date=None, platform_url=typed).json
    assert reply["meetup"]["name"] == "Summer social" and reply["meetup"]["date"] == "2026-12-05T20:00:00Z"
    assert reply["meetup"]["platform_url"] == "https://www.meetup.com/night-owls/events/301"
    ana = Guest.get_by_id(12537919)  # the member, the name the file gives her on this list alone
    assert (ana.displayname, ana.is_local) == ("", False)
    assert MeetupGuest.get(MeetupGuest.guest == ana).listed_name == "Ana García"


def sync(client, org, meetup):
    return client.post(f"/organizations/{org.id}/meetups/{meetup['id']}/sync").json


def test_a_sync_never_cancels_the_guests_of_a_file(fake_platform, config, staff, as_user, org):
    """A meetup made from a file with its event's URL on the `rest` platform: the file's rows are local
    guests, which the platform's list never holds, so a sync brings the platform's RSVPs and cancels none
    of the file's; an RSVP the platform drops is still cancelled."""
    door = on_platform(fake_platform, config, staff, as_user)
    fake_platform.add_user(1, "alice", "Alice Platform")
    fake_platform.add_user(2, "bob", "Bob Platform")
    typed = fake_platform.add_event(
        "night-owls", "winter-social", "Winter social", "2026-12-12T19:30:00Z", [1, 2]
    )
    meetup = post(door, org, meetup_csv(), "a.csv", name=None, date=None, platform_url=typed).json["meetup"]
    from_file = listed(meetup)
    assert sync(door, org, meetup) == {"inserted": 2, "updated": 0, "cancelled": 0, "skipped": 0, "total": 6}
    fake_platform.set_rsvps("night-owls", "winter-social", [1])
    assert sync(door, org, meetup)["cancelled"] == 1
    assert listed(meetup) == {
        **from_file,
        "Alice Platform": (False, False, 0, False),
        "Bob Platform": (True, False, 0, False),
    }
    assert not any(cancelled for cancelled, *_ in from_file.values())


def test_a_sync_cancels_the_meetup_members_of_a_file_it_no_longer_lists(config, staff, as_user, org):
    """On the `meetup` platform a row of Meetup's export is the member: a sync of the file's event keeps
    that list in line with Meetup's, cancelling the rows whose RSVP Meetup no longer has."""
    with FakeMeetup() as fake:
        fake.add_group("night-owls")
        fake.add_member(12537919, "Ana García", "ana", groups=["night-owls"])
        typed = fake.add_event("night-owls", "301", "Summer social", "2026-12-05T21:00:00+01:00", [12537919])
        door = on_platform(fake, config, staff, as_user)
        meetup = post(door, org, meetup_xls(), name=None, date=None, platform_url=typed).json["meetup"]
        report = sync(door, org, meetup)
    assert (report["inserted"], report["cancelled"], report["total"]) == (0, 3, 4)
    assert [name for name, (cancelled, *_) in listed(meetup).items() if not cancelled] == ["Ana García"]


def test_a_multipart_body_without_its_boundary_is_400(door, org):
    headers = {"Content-Type": "multipart/form-data"}
    reply = door.post(url(org), b"--x\r\n", headers=headers, status=400)
    assert reply.json["code"] == "malformed_json"


def test_a_file_is_required(door, org):
    reply = door.post(
        url(org), {"name": "x", "date": "2026-11-21"}, content_type="multipart/form-data", status=422
    )
    assert reply.json["errors"][0]["loc"] == ["body", "file"]


def test_strangers_cannot_import(client, org):
    client.post(url(org), upload_files=[("file", "a.csv", b"Name\nIda\n")], status=401)


# --- hostile and careless files -----------------------------------------------------------------------


def zip_bomb():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/worksheets/sheet1.xml", b"\0" * (200 * 1024 * 1024))
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "words", "found"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 40, "JPEG picture", "picture"),
        (b"\x89PNG\r\n\x1a\n" + bytes(2000), "PNG picture", "picture"),
        (b"", "empty", "empty"),
        (b"   \r\n\r\n", "empty", "empty"),
        (b"PK\x03\x04 broken", "damaged", "damaged"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "old binary Excel", "old_excel"),
        (b"%PDF-1.7\n", "PDF", "pdf"),
        (bytes(range(256)) * 40, "not text", "not_text"),
        (b"colour,size\nred,4\n", "No column of names", "no_name_column"),
    ],
    ids=["photo", "png", "empty", "blank", "broken-xlsx", "old-xls", "pdf", "binary", "no-name-column"],
)
def test_a_file_that_is_no_guest_list_is_a_clear_422(door, org, data, words, found):
    reply = post(door, org, data, "upload.bin", status=422).json
    assert reply["code"] == "unreadable_file" and words in reply["detail"] and reply["found"] == found
    assert "Upload" in reply["detail"] or "column" in reply["detail"]


def test_a_zip_bomb_xlsx_is_refused_unopened(door, org):
    data = zip_bomb()
    assert len(data) < 1024 * 1024
    reply = post(door, org, data, "bomb.xlsx", status=422).json
    assert "unpacks" in reply["detail"]


def test_a_file_over_5_mib_is_413(door, org):
    data = b"Name\n" + b"x" * (5 * 1024 * 1024)
    assert post(door, org, data, "big.csv", status=413).json["code"] == "body_too_large"


def test_other_bodies_keep_64_kib(door, org):
    reply = door.post_json(f"/organizations/{org.id}/meetups/", {"platform_url": "x" * 70_000}, status=413)
    assert reply.json["code"] == "body_too_large"


def test_bad_rows_are_problems_not_refusals(door, org):
    rows = [
        "Name,Guests",
        "Ida Lund,1",
        "Nul\x00Byte,0",
        "," ,
        "Eve,lots",
        "x" * 300 + ",0",
        "Ida Lund,1",
        "Big Cell," + "9" * (1024 * 1024),
        "Zoe,0",
    ]  # fmt: skip
    report = post(door, org, "\n".join(rows).encode(), "a.csv").json["import"]
    assert [(p["row"], p["kind"]) for p in report["problems"]] == [
        (3, "control_characters"), (5, "guests"), (6, "too_long"), (7, "duplicate"), (8, "guests"),
    ]  # fmt: skip
    assert (report["problems"][1]["max"], report["problems"][3]["same_as"]) == (99, 2)
    assert report["added"] == 2 and report["rows"] == 7


@pytest.mark.parametrize(
    "data",
    [
        "Name\nJosé\n".encode() + b"Bad\xed\xa0\x80Name\n" + "Zoë\n".encode(),  # an encoded lone surrogate
        b"\xff\xfe"
        + "Name\nJosé\n".encode("utf-16-le")
        + b"B\x00\x00\xd8d\x00\n\x00"
        + "Zoë\n".encode("utf-16-le"),
    ],
    ids=["utf8", "utf16"],
)
def test_lone_surrogates_are_a_problem_row(door, org, data):
    reply = post(door, org, data, "a.csv").json
    assert [p["row"] for p in reply["import"]["problems"]] == [3]
    assert sorted(listed(reply["meetup"])) == ["José", "Zoë"]


def test_ten_thousand_columns(door, org):
    header = ",".join(["Name", *(f"Q{i}" for i in range(10_000))])
    data = (header + "\n" + "Ida" + "," * 10_000 + "\n").encode()
    assert post(door, org, data, "wide.csv").json["import"]["added"] == 1


def test_a_ten_thousand_row_export_is_read_whole(door, org):
    people = [(f"Member {i}", 40_000_000 + i, "Yes", 0) for i in range(10_000)]
    data = meetup_csv(people)
    assert len(data) > 500 * 1024  # past bottle's default in-memory limit for a form part
    report = post(door, org, data, "big.csv").json["import"]
    assert report["added"] == 10_000
    named = sorted((f"Member {i}" for i in range(10_000)), key=str.casefold)[:50]
    assert report["names"] == {
        "added": named,
        "updated": [],
        "cancelled": [],
        "kept": [],
    }  # the first 50 of each


def test_a_hundred_thousand_rows_is_refused_whole(door, org):
    data = ("Name\n" + "".join(f"P{i}\n" for i in range(100_000))).encode()
    reply = post(door, org, data, "huge.csv", status=422).json
    assert reply["code"] == "unreadable_file" and "20,000 rows" in reply["detail"]


def announce(live_server, path, length, sent=1024, token=None):
    """Send headers announcing `length` bytes and `sent` of them: the first line of the answer."""
    address = urlsplit(live_server)
    signed = f"Authorization: Bearer {token}\r\n" if token else ""
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: door\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            f"{signed}Content-Length: {length}\r\n\r\n".encode()
            + b"x" * sent
        )
        sock.shutdown(socket.SHUT_WR)
        answer = b"".join(iter(lambda: sock.recv(4096), b""))
    return answer.split(b"\r\n", 1)[0]


def test_waitress_takes_5_mib_for_the_import_route_only_from_a_signed_in_caller(live_server, org, staff):
    imports, token = f"/organizations/{org.id}/meetups/import", auth(staff)["Authorization"].split()[1]
    assert announce(live_server, imports, 6 * 1024 * 1024, token=token).startswith(b"HTTP/1.1 413")
    assert announce(live_server, f"/organizations/{org.id}/meetups/", 100 * 1024).startswith(b"HTTP/1.1 413")
    # 100 KiB announced to the import route gets past waitress: the app reads it (not multipart: 400)
    assert announce(live_server, imports, 100 * 1024, 100 * 1024, token=token).startswith(b"HTTP/1.1 400")
    # without a token, or with a forged one, it is refused as its headers arrive: nothing is spooled
    assert announce(live_server, imports, 100 * 1024).startswith(b"HTTP/1.1 401")
    assert announce(live_server, imports, 100 * 1024, token=token[:-4] + "AAAA").startswith(b"HTTP/1.1 401")
    assert announce(live_server, imports, 60 * 1024, 60 * 1024).startswith(b"HTTP/1.1 401")  # the app's
    # a key another machine rotated to and this one has not read yet: "again in a moment", never unsigned
    other = jwt.encode(
        {"sub": "sam", "exp": 2**40}, "a-new-key-that-is-long-enough-for-hs256", headers={"kid": "new"}
    )
    assert announce(live_server, imports, 100 * 1024, token=other).startswith(b"HTTP/1.1 503")


# --- the command line: doorapp import ---------------------------------------------------------------------


def cli(tmp_path, config, capsys, *args):
    """`doorapp import` in this process, on the test's data folder: (exit status, what it printed)."""
    from doorapp.__main__ import main

    try:
        status = main(["import", *map(str, args), "--data-dir", str(config.data_dir)])
    except SystemExit as stop:
        status = stop.code
    return status, capsys.readouterr().out


def test_the_command_line_creates_previews_and_updates(tmp_path, config, org, capsys):
    path = tmp_path / "attendees.xls"
    path.write_bytes(meetup_xls())
    new = [path, "--org", "night-owls", "--name", "Owls", "--date", "2026-11-21T19:00+01:00"]
    status, out = cli(tmp_path, config, capsys, *new, "--preview")
    assert status == 0 and "added: 4" in out and "nothing was stored" in out
    status, out = cli(tmp_path, config, capsys, *new)
    assert status == 0 and "format: meetup" in out and "added: 4" in out
    meetup_id = out.split("meetup: ")[1].split()[0]
    status, out = cli(tmp_path, config, capsys, path, "--org", "night-owls", "--meetup", meetup_id)
    assert status == 0 and "added: 0" in out and "unchanged: 5" in out
    # a newer file: who comes and who is gone, by name; a name cannot drive the terminal
    path.write_bytes(meetup_xls([*PEOPLE[:2], ("Zoe \u202eKrap", 20000009, "Yes", 0)]))
    status, out = cli(
        tmp_path, config, capsys, path, "--org", "night-owls", "--meetup", meetup_id, "--preview"
    )
    said = dict(line.split(": ", 1) for line in out.splitlines())
    assert status == 0 and said["added"] == "1 (Zoe ?Krap)"  # a right-to-left override would reorder the line
    assert said["cancelled"] == '2 (=HYPERLINK("http://x"), Priya Raman)'
    assert [e.details["added"] for e in events("MEETUP_IMPORTED")] == [4, 0]
    assert events("MEETUP_IMPORTED")[0].actor_id is None


def test_the_command_line_says_what_is_wrong(tmp_path, config, org, capsys):
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0" + bytes(100))
    new = [photo, "--org", "night-owls", "--name", "x"]
    assert "JPEG picture" in str(cli(tmp_path, config, capsys, *new, "--date", "2026-11-21")[0])
    assert "slug" in str(cli(tmp_path, config, capsys, photo, "--org", "nobody", "--meetup", "x")[0])
    assert "UUID" in str(cli(tmp_path, config, capsys, photo, "--org", "night-owls", "--meetup", "x")[0])
    assert "--date" in str(cli(tmp_path, config, capsys, photo, "--org", "night-owls", "--name", "x")[0])


def test_the_command_line_takes_an_event_url_as_the_api_does(tmp_path, config, org, door, capsys):
    """--platform-url: an event of the configured platform (here the demo community) names and dates the
    meetup and is stored normalised, as the API's platform_url; any other address fills nothing in."""
    path = tmp_path / "attendees.csv"
    path.write_bytes(meetup_csv())
    typed = "https://demo.door.invalid/+night-owls/tech-conference/?ref=mail"
    event = post(door, org, meetup_csv(), "a.csv", preview=True, name=None, date=None, platform_url=typed)
    new = [path, "--org", "night-owls"]
    status, out = cli(tmp_path, config, capsys, *new, "--platform-url", typed)
    assert status == 0 and "added: 4" in out
    [made] = door.get(f"/organizations/{org.id}/meetups/").json["meetups"]
    assert {k: made[k] for k in ("name", "date", "platform_url")} == event.json["event"]
    assert "already has a meetup" in cli(tmp_path, config, capsys, *new, "--platform-url", typed)[0]
    luma = "https://lu.ma/owls-winter"
    refused = cli(tmp_path, config, capsys, *new, "--platform-url", luma)[0]
    assert "needs --name and --date" in refused and "--platform-url: Must be" in refused
    own = ["--name", "Owls", "--date", "2026-11-21T19:00:00Z", "--platform-url", luma]
    assert cli(tmp_path, config, capsys, *new, *own)[0] == 0
    assert {m["platform_url"] for m in door.get(f"/organizations/{org.id}/meetups/").json["meetups"]} == {
        event.json["event"]["platform_url"],
        luma,
    }
    update = [*new, "--meetup", made["id"], "--platform-url", luma]
    assert "--meetup updates a meetup" in cli(tmp_path, config, capsys, *update)[0]


# --- two imports of one meetup at once ----------------------------------------------------------------------


@ENGINES
def test_simultaneous_imports_of_one_meetup_never_duplicate_an_entry(live_server, door, org, staff):
    meetup = post(door, org, meetup_xls(PEOPLE[:2])).json["meetup"]
    newer = meetup_csv([*PEOPLE, *((f"Newcomer {i}", 30_000_000 + i, "Yes", 0) for i in range(200))])
    address = f"{live_server}{url(org, meetup)}"

    def send(i):
        files = {"file": ("newer.csv", newer)}
        return requests.post(address, files=files, headers=auth(staff), timeout=60)

    replies = at_once(4, send)
    assert [r.status_code for r in replies] == [200] * 4
    assert (
        sum(r.json()["import"]["added"] for r in replies) == 202
    )  # 2 of PEOPLE (Wei answered No) and 200 newcomers
    query = MeetupGuest.select().where(MeetupGuest.meetup == meetup["id"])
    assert query.count() == 204 and len({e.guest_id for e in query}) == 204
    assert Guest.select().count() == 204


@ENGINES
def test_imports_of_two_files_at_once_leave_the_list_of_the_last_one_stored(live_server, door, org, staff):
    """Each import compares its file with the list before it waits for the write lock; one that finds
    another import stored meanwhile compares again, so the list ends as the last file says, never as a
    mix of the two (on PostgreSQL too, where writers run side by side)."""
    meetup = post(door, org, meetup_xls(PEOPLE[:1])).json["meetup"]
    files = [
        meetup_csv([(f"Early {i}", 30_000_000 + i, "Yes", 0) for i in range(300)]),
        meetup_csv([(f"Late {i}", 40_000_000 + i, "Yes", 0) for i in range(300)]),
    ]
    address = f"{live_server}{url(org, meetup)}"

    def send(i):
        upload = {"file": (f"file{i % 2}.csv", files[i % 2])}
        return requests.post(address, files=upload, headers=auth(staff), timeout=60)

    assert [r.status_code for r in at_once(4, send)] == [200] * 4
    last = events("MEETUP_IMPORTED")[-1].details["file"]
    expected = {f"{'Early' if last == 'file0.csv' else 'Late'} {i}" for i in range(300)}
    assert {name for name, state in listed(meetup).items() if not state[0]} == expected
