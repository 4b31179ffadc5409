"""Guest lists from files through a real server (issue 37): names in every script stay distinct people,
hostile workbooks cost bounded work, a file never rewrites a platform member, an arrived guest is never
cancelled by a newer file, and what the preview says about formulas, Luma's check-ins and left-out rows."""

import csv
import io
import zipfile
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import requests
from helpers import DOORAPP, LUMA_HEADER, SECRET, auth, served

from doorapp.app import create_app
from doorapp.config import Config
from doorapp.db import db
from doorapp.models import Membership, Org, User

SOON = (datetime.now(UTC) + timedelta(days=7)).replace(microsecond=0).isoformat()


def imported(url, org, headers, data, meetup=None, preview=False, filename="guests.csv", **fields):
    """POST a file to the import route (a new meetup unless `meetup`, its id, is given); the answer."""
    where = f"{meetup}/" if meetup else ""
    if meetup is None:
        fields = {"name": "Night Owls #12", "date": SOON, **fields}
    return requests.post(
        f"{url}/organizations/{org.id}/meetups/{where}import" + ("?preview=true" if preview else ""),
        data=fields,
        files={"file": (filename, data)},
        headers=headers,
        timeout=60,
    )


def door_list(url, org, meetup, headers):
    """{displayname: row} of a meetup's door list."""
    reply = requests.get(f"{url}/organizations/{org.id}/meetups/{meetup}/guests", headers=headers, timeout=10)
    assert reply.status_code == 200, reply.text
    return {row["guest"]["displayname"]: row for row in reply.json()["guests"]}


def names_only(*names):
    return ("Name\r\n" + "".join(f"{name}\r\n" for name in names)).encode()


# --- item 2: a name in any script is its own person --------------------------------------------------------


def test_names_in_every_script_stay_distinct_people_in_one_file(live_server, org, staff):
    people = ["田中 花子", "Иван Петров", "مريم حسن", "Søren Ørsted", "José Núñez", "Jose Nunez", "田中 花子"]
    report = imported(live_server, org, auth(staff), names_only(*people), preview=True).json()["import"]
    assert report["expected"] == 5  # the second 田中 花子 is a duplicate; José Núñez is Jose Nunez as before
    assert [(p["row"], p["kind"], p["same_as"]) for p in report["problems"]] == [
        (7, "duplicate", 6),
        (8, "duplicate", 2),
    ]
    made = imported(live_server, org, auth(staff), names_only(*people)).json()
    assert set(door_list(live_server, org, made["meetup"]["id"], auth(staff))) == {
        "田中 花子", "Иван Петров", "مريم حسن", "Søren Ørsted", "José Núñez",
    }  # fmt: skip


def test_a_ban_on_one_non_latin_name_never_follows_the_next_files_other_name(
    live_server, org, staff, boss_user
):
    first = imported(live_server, org, auth(staff), names_only("مريم حسن")).json()["meetup"]["id"]
    [maryam] = door_list(live_server, org, first, auth(staff)).values()
    banned = requests.patch(
        f"{live_server}/organizations/{org.id}/guests/{maryam['guest']['platform_user_id']}/ban",
        json={"reason": "Shouted at the bar staff"},
        headers=auth(boss_user),
        timeout=10,
    )
    assert banned.status_code == 200, banned.text
    second = imported(live_server, org, auth(staff), names_only("فاطمة علي", "Иван Петров"), name="Next")
    rows = door_list(live_server, org, second.json()["meetup"]["id"], auth(staff))
    assert {name: row["guest"]["is_banned"] for name, row in rows.items()} == {
        "فاطمة علي": False,
        "Иван Петров": False,
    }
    assert set(door_list(live_server, org, first, auth(staff))) == {"مريم حسن"}  # not renamed


# --- item 3: a workbook costs bounded work, whatever it declares ------------------------------------------

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
KIND = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def workbook(sheet_data, dimension="A1", strings=None):
    """A minimal .xlsx written by hand, as a hostile one would be: one sheet whose <sheetData> is
    `sheet_data`, and a shared-string table of `strings` (its <si> elements) when given."""
    types = [
        f'<Override PartName="/xl/workbook.xml" ContentType="{KIND}.sheet.main+xml"/>',
        f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{KIND}.worksheet+xml"/>',
    ]
    rels = [f'<Relationship Id="rId1" Type="{REL}/worksheet" Target="worksheets/sheet1.xml"/>']
    if strings is not None:
        types.append(f'<Override PartName="/xl/sharedStrings.xml" ContentType="{KIND}.sharedStrings+xml"/>')
        rels.append(f'<Relationship Id="rId2" Type="{REL}/sharedStrings" Target="sharedStrings.xml"/>')
    package = "http://schemas.openxmlformats.org/package/2006"
    parts = {
        "[Content_Types].xml": f'<Types xmlns="{package}/content-types">'
        f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>' + "".join(types) + "</Types>",
        "_rels/.rels": f'<Relationships xmlns="{package}/relationships">'
        f'<Relationship Id="rId1" Type="{REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets>'
        '<sheet name="Guests" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{package}/relationships">'
        + "".join(rels)
        + "</Relationships>",
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{MAIN}"><dimension ref="{dimension}"/><sheetData>'
        + sheet_data
        + "</sheetData></worksheet>",
    }
    if strings is not None:
        parts["xl/sharedStrings.xml"] = f'<sst xmlns="{MAIN}">{strings}</sst>'
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return out.getvalue()


def text(value, column=""):
    where = f' r="{column}"' if column else ""
    return f'<c{where} t="inlineStr"><is><t>{value}</t></is></c>'


def rows_of(rows, columns):
    """A workbook of `rows` rows of `columns` columns, the last one the name."""
    header = "<row>" + "".join(text(f"Q{i}") for i in range(columns - 1)) + text("Name") + "</row>"
    body = "".join(
        "<row>" + "".join(f"<c><v>{n}</v></c>" for _ in range(columns - 1)) + text(f"P{n}") + "</row>"
        for n in range(rows)
    )
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(columns - 1) // 26 - 1] if columns > 26 else ""
    return workbook(header + body, f"A1:{last}{chr(65 + (columns - 1) % 26)}{rows + 1}")


@pytest.fixture
def door_process(tmp_path):
    """`doorapp serve` in a process of its own (its memory is its own) on a data folder with an org and a
    staff member; (its URL, its process id, the org, the staff member's headers)."""
    folder = tmp_path / "data"
    create_app(Config(data_dir=folder, secret_key=SECRET))
    org = Org.create(name="Night Owls", slug="night-owls")
    staff = User.create(username="sam", password_hash="x", is_approved=True)
    Membership.create(user=staff, org=org, role="STAFF")
    headers = auth(staff)
    db.close()
    with served(
        DOORAPP, "serve", "--port", "0", "--data-dir", folder, env={"DOOR_SECRET_KEY": SECRET}
    ) as door:
        yield door.url, door.process.pid, org, headers
        assert door.stop() == 0


def peak_mb(pid):
    """The process's peak resident memory so far (VmHWM), in MB."""
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024


def test_hostile_workbooks_cost_bounded_memory_and_are_refused_saying_why(door_process):
    url, pid, org, headers = door_process
    warm = imported(url, org, headers, rows_of(3, 2), preview=True, filename="warm.xlsx")
    assert warm.status_code == 200, warm.text  # openpyxl imported, the server at its working size
    before = peak_mb(pid)
    names = "".join(f"<row>{text('Ida')}</row>" for _ in range(20_000))
    declared_wide = workbook(f"<row>{text('Name')}</row>{names}", "A1:XFD20001")  # 16,384 columns declared
    assert len(declared_wide) < 8 * 1024
    reply = imported(url, org, headers, declared_wide, preview=True, filename="wide.xlsx")
    assert reply.status_code == 200 and reply.json()["import"]["expected"] == 1, reply.text
    far = "".join(f"<row>{text('Ida')}{text('x', f'XFD{n}')}</row>" for n in range(2, 20_002))
    refusals = {
        "far.xlsx": workbook(f"<row>{text('Name')}</row>{far}", "A1:XFD20001"),
        "long-row.xlsx": workbook(f"<row>{text('Name')}{'<c/>' * 200_000}</row>"),
        "strings.xlsx": workbook(
            f"<row>{text('Name')}</row>", strings="".join(f"<si><t>{n}</t></si>" for n in range(1_700_000))
        ),
    }
    found = {}
    for filename, data in refusals.items():
        assert len(data) < 5 * 1024 * 1024
        reply = imported(url, org, headers, data, preview=True, filename=filename)
        assert reply.status_code == 422 and reply.json()["code"] == "unreadable_file", reply.text
        found[filename] = (reply.json()["found"], reply.json()["detail"])
    assert found["far.xlsx"][0] == found["long-row.xlsx"][0] == "too_many_cells"
    assert "more than 1,000 cells" in found["far.xlsx"][1]
    assert (
        found["strings.xlsx"][0] == "too_large" and "sharedStrings.xml unpacks to" in found["strings.xlsx"][1]
    )
    assert peak_mb(pid) - before < 60  # each of them took gigabytes, or hundreds of megabytes


def test_uploads_are_read_one_at_a_time(door_process):
    """Several big (and legal) workbooks sent at once are read one after the other: the server's peak is
    about one reading's, not the sum of them all."""
    url, pid, org, headers = door_process
    data = rows_of(10_000, 50)  # 500,000 cells
    assert imported(url, org, headers, rows_of(3, 2), preview=True, filename="warm.xlsx").status_code == 200
    before = peak_mb(pid)
    assert imported(url, org, headers, data, preview=True, filename="one.xlsx").status_code == 200
    one = peak_mb(pid) - before
    with ThreadPoolExecutor(3) as pool:
        replies = list(
            pool.map(
                lambda i: imported(url, org, headers, data, preview=True, filename=f"{i}.xlsx"), range(3)
            )
        )
    assert [r.status_code for r in replies] == [200] * 3
    assert one > 20 and peak_mb(pid) - before < 1.5 * one


# --- item 8: an arrived guest is never cancelled by a newer file --------------------------------------------


def test_a_newer_file_never_cancels_a_guest_who_has_arrived_and_says_they_stay(live_server, org, staff):
    made = imported(live_server, org, auth(staff), names_only("Ida Lund", "Olek Nowak", "Zoe Park")).json()
    meetup = made["meetup"]["id"]
    ida = door_list(live_server, org, meetup, auth(staff))["Ida Lund"]["guest"]["platform_user_id"]
    checked_in = requests.post(
        f"{live_server}/organizations/{org.id}/meetups/{meetup}/guests/{ida}/checkin",
        json={},
        headers=auth(staff),
        timeout=10,
    )
    assert checked_in.status_code == 200, checked_in.text
    newer = names_only("Zoe Park")  # Ida (in) and Olek (not come) are gone from it
    preview = imported(live_server, org, auth(staff), newer, meetup=meetup, preview=True).json()["import"]
    assert (preview["cancelled"], preview["kept"]) == (1, 1)
    assert (preview["names"]["cancelled"], preview["names"]["kept"]) == (["Olek Nowak"], ["Ida Lund"])
    done = imported(live_server, org, auth(staff), newer, meetup=meetup).json()
    assert done["meetup"]["counts"]["cancelled"] == 1
    rows = door_list(live_server, org, meetup, auth(staff))
    assert (rows["Ida Lund"]["rsvp"]["cancelled_rsvp"], rows["Ida Lund"]["rsvp"]["has_arrived"]) == (
        False,
        True,
    )
    assert rows["Olek Nowak"]["rsvp"]["cancelled_rsvp"] is True


# --- items 15 and 16: what the preview says of formulas, Luma's check-ins, rows awaiting approval -----


def luma_night(checked_in_at):
    """Luma's export after its own door ran: Lena was checked in there, Ravi still awaits approval, and a
    name is a formula."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(LUMA_HEADER)
    rows = [
        ("Lena", "Fischer", "approved", checked_in_at),
        ("Sam", "Lee", "approved", ""),
        ("Ravi", "Shah", "pending_approval", ""),
        ('=HYPERLINK("http://x")', "Evil", "approved", ""),
    ]
    for n, (first, last, status, came) in enumerate(rows):
        writer.writerow(
            [
                f"gst-{n}",
                f"{first} {last}",
                first,
                last,
                f"p{n}@x.org",
                "",
                "2026-11-18T09:30:00.000Z",
                status,
                came,
                "",
                "",
            ]
        )
    return out.getvalue().encode()


def test_a_guest_luma_checked_in_arrives_and_one_awaiting_approval_is_left_out_saying_why(
    live_server, org, staff
):
    came = (datetime.now(UTC) - timedelta(days=2)).replace(microsecond=0)
    data = luma_night(came.isoformat().replace("+00:00", ".000Z"))
    preview = imported(live_server, org, auth(staff), data, preview=True).json()["import"]
    assert preview["checked_in"] == 1
    assert [(p["row"], p["kind"]) for p in preview["problems"]] == [(4, "awaiting_approval")]
    assert preview["formulas"] == [{"row": 5, "name": '=HYPERLINK("http://x") Evil'}]
    past = (datetime.now(UTC) - timedelta(days=2, hours=3)).isoformat()
    made = imported(live_server, org, auth(staff), data, date=past).json()
    assert made["import"]["checked_in"] == 1
    lena = door_list(live_server, org, made["meetup"]["id"], auth(staff))["Lena Fischer"]["rsvp"]
    assert (lena["has_arrived"], lena["arrival_time"], lena["arrival_order"]) == (
        True,
        came.isoformat()[:19] + "Z",
        1,
    )
    summary = requests.get(
        f"{live_server}/organizations/{org.id}/meetups/{made['meetup']['id']}/summary",
        headers=auth(staff),
        timeout=10,
    ).json()
    outcomes = {g["displayname"]: g["outcome"] for g in summary["guests"]}
    assert (outcomes["Lena Fischer"], outcomes["Sam Lee"]) == ("ATTENDED", "NO_SHOW")
    again = imported(live_server, org, auth(staff), data, meetup=made["meetup"]["id"]).json()["import"]
    assert again["checked_in"] == 0  # in already
    room = door_list(live_server, org, made["meetup"]["id"], auth(staff))["Lena Fischer"]
    assert room["rsvp"]["inside"] is True
    # the door undoes her arrival: the same file read again does not check her in again
    lena_id = room["guest"]["platform_user_id"]
    undone = requests.patch(
        f"{live_server}/organizations/{org.id}/meetups/{made['meetup']['id']}/guests/{lena_id}/undo-checkin",
        json={"reason": "Checked in by mistake at the other entrance"},
        headers=auth(staff),
        timeout=10,
    )
    assert undone.status_code == 200, undone.text
    third = imported(live_server, org, auth(staff), data, meetup=made["meetup"]["id"]).json()["import"]
    assert third["checked_in"] == 0
    after = door_list(live_server, org, made["meetup"]["id"], auth(staff))
    assert after["Lena Fischer"]["rsvp"]["has_arrived"] is False
