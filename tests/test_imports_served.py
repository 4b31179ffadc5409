"""Guest lists from files through a real server (issue 37): names in every script stay distinct people,
hostile workbooks cost bounded work, a file never rewrites a platform member, an arrived guest is never
cancelled by a newer file, and what the preview says about formulas, Luma's check-ins and left-out rows."""

from datetime import UTC, datetime, timedelta

import requests
from helpers import auth

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
