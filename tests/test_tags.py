"""Tags and notes over HTTP: an org's admins make tags and put them, with a short note, on guests; members
read them; every door row of the org shows them (the check-in's answer too), the door list filters by one,
the summary and both CSV files carry them, and each change moves the door lists' version. They are the
org's own: another org sees none of them."""

import pytest
from helpers import ENGINES, base, entry, events, phone_of, read_csv

from doorapp.models import Guest, GuestNote, GuestTag, Meetup, MeetupGuest, Org

pytestmark = ENGINES  # on SQLite and on PostgreSQL


def tags_url(org):
    return f"/organizations/{org.id}/tags"


def guest_tags(org, guest):
    return f"/organizations/{org.id}/guests/{guest.platform_user_id}/tags"


def make(boss, org, label, color="grey"):
    return boss.post_json(tags_url(org), {"label": label, "color": color}, status=201).json


@pytest.fixture
def speaker(boss, org):
    return make(boss, org, "Speaker", "purple")


def test_an_org_admin_makes_renames_and_deletes_tags_members_read_them(boss, door, org, boss_user):
    made = make(boss, org, "Speaker", "purple")
    assert made == {"id": made["id"], "label": "Speaker", "color": "purple"}
    step_free = make(boss, org, "Step-free entrance", "teal")
    assert door.get(tags_url(org)).json == {"total": 2, "tags": [made, step_free]}
    taken = boss.post_json(tags_url(org), {"label": "speaker"}, status=409).json
    assert (taken["code"], taken["tag"]) == ("tag_exists", made)
    changed = boss.patch_json(f"{tags_url(org)}/{made['id']}", {"label": "Talk", "color": "blue"}).json
    assert changed == {"id": made["id"], "label": "Talk", "color": "blue"}
    assert boss.patch_json(f"{tags_url(org)}/{made['id']}", {"color": "red"}).json["label"] == "Talk"
    assert boss.patch_json(f"{tags_url(org)}/{made['id']}", {"label": "step-FREE entrance"}, status=409)
    boss.delete(f"{tags_url(org)}/{step_free['id']}", status=204)
    assert [t["label"] for t in door.get(tags_url(org)).json["tags"]] == ["Talk"]
    assert [(e.event_type, e.actor_id, e.details.get("label")) for e in events()] == [
        ("TAG_CREATED", boss_user.id, "Speaker"),
        ("TAG_CREATED", boss_user.id, "Step-free entrance"),
        ("TAG_CHANGED", boss_user.id, "Talk"),
        ("TAG_CHANGED", boss_user.id, "Talk"),
        ("TAG_DELETED", boss_user.id, "Step-free entrance"),
    ]
    assert events("TAG_CHANGED")[0].details == {
        "tag_id": made["id"],
        "label": "Talk",
        "color": "blue",
        "label_before": "Speaker",
        "color_before": "purple",
    }


def test_only_an_org_admin_writes_tags_and_a_stranger_reads_none(
    door, boss, org, speaker, meetup, guest, make_user, as_user
):
    assert door.post_json(tags_url(org), {"label": "VIP"}, status=403).json["code"] == "org_admin_required"
    assert (
        door.put_json(guest_tags(org, guest), {"tags": []}, status=403).json["code"] == "org_admin_required"
    )
    assert door.delete(f"{tags_url(org)}/{speaker['id']}", status=403).json["code"] == "org_admin_required"
    made = boss.post_json(f"/organizations/{org.id}/passes", {"label": "Maria's phone"}).json
    phone = phone_of(boss, made)
    assert phone.get(tags_url(org), status=403).json["code"] == "pass_not_allowed"
    other = Org.create(name="Early Birds", slug="early-birds")
    stranger = as_user(make_user("eve", org=other, role="ADMIN"))
    assert stranger.get(tags_url(org), status=403).json["code"] == "not_org_member"
    # another org's tag id is no tag here
    theirs = stranger.post_json(tags_url(other), {"label": "Theirs"}, status=201).json
    boss.patch_json(f"{tags_url(org)}/{theirs['id']}", {"color": "red"}, status=404)
    boss.delete(f"{tags_url(org)}/{theirs['id']}", status=404)
    refused = boss.put_json(guest_tags(org, guest), {"tags": [theirs["id"]]}, status=422).json
    assert refused["errors"][0]["loc"] == ["body", "tags", 0]


def test_bad_tags_are_422(boss, org, guest):
    for body in ({"label": ""}, {"label": "x" * 33}, {"label": "VIP", "color": "pink"}, {"color": "red"}):
        boss.post_json(tags_url(org), body, status=422)
    for body in ({"tags": "1"}, {"tags": ["a"]}, {"tags": [1], "note": "x" * 201}, {"note": "hi"}):
        boss.put_json(guest_tags(org, guest), body, status=422)
    boss.put_json(f"/organizations/{org.id}/guests/424242/tags", {"tags": []}, status=404)


def test_a_guests_tags_and_note_show_on_every_door_row_and_in_the_check_in(
    door, boss, org, meetup, guest, speaker
):
    step_free = make(boss, org, "Step-free entrance", "teal")
    before = door.get(f"{base(meetup)}/guests").headers["ETag"]
    body = {"tags": [step_free["id"], speaker["id"], speaker["id"]], "note": "  Comes by the side door  "}
    kept = boss.put_json(guest_tags(org, guest), body).json
    assert kept == {"tags": [speaker, step_free], "note": "Comes by the side door"}
    assert door.get(guest_tags(org, guest)).json == kept
    listed = door.get(f"{base(meetup)}/guests", headers={"If-None-Match": before})
    assert listed.status_int == 200  # a change of tags moves the door list's version
    row = listed.json["guests"][0]["guest"]
    assert (row["tags"], row["note"]) == ([speaker, step_free], "Comes by the side door")
    checked_in = door.post_json(f"{entry(meetup, guest)}/checkin", {}).json["guest"]
    assert (checked_in["tags"], checked_in["note"]) == (kept["tags"], kept["note"])
    # another meetup of the org shows them too; the rename of a tag reaches every row at once
    later = Meetup.create(org=org, name="Winter ball", date=meetup.date, platform_url="https://x.invalid/w")
    MeetupGuest.create(meetup=later, guest=guest)
    boss.patch_json(f"{tags_url(org)}/{speaker['id']}", {"label": "Speaker tonight"})
    assert [t["label"] for t in door.get(f"{base(later)}/guests").json["guests"][0]["guest"]["tags"]] == [
        "Speaker tonight",
        "Step-free entrance",
    ]
    [tagged] = events("GUEST_TAGGED")
    assert (tagged.guest_id, tagged.details) == (
        guest.platform_user_id,
        {"tags": ["Speaker", "Step-free entrance"], "note": "Comes by the side door"},
    )
    # taken off: nothing left of them
    boss.put_json(guest_tags(org, guest), {"tags": []})
    assert door.get(f"{base(meetup)}/guests").json["guests"][0]["guest"] | {"history": None} == {
        **row,
        "history": None,
        "tags": [],
        "note": None,
    }
    assert not GuestNote.select().exists() and not GuestTag.select().exists()


def test_another_orgs_door_sees_none_of_them(boss, org, meetup, guest, speaker, make_user, as_user):
    boss.put_json(guest_tags(org, guest), {"tags": [speaker["id"]], "note": "VIP"})
    other = Org.create(name="Early Birds", slug="early-birds")
    theirs = Meetup.create(org=other, name="Brunch", date=meetup.date, platform_url="https://x.invalid/b")
    MeetupGuest.create(meetup=theirs, guest=guest)
    door = as_user(make_user("eve", org=other))
    row = door.get(f"{base(theirs)}/guests").json["guests"][0]["guest"]
    assert (row["tags"], row["note"]) == ([], None)
    assert door.get(guest_tags(other, guest)).json == {"tags": [], "note": None}


def test_the_door_list_filters_by_a_tag(door, boss, org, meetup, guest, speaker):
    for i in (2, 3, 4):
        MeetupGuest.create(meetup=meetup, guest=Guest.create(platform_user_id=i, username=f"guest{i}"))
    boss.put_json(f"/organizations/{org.id}/guests/3/tags", {"tags": [speaker["id"]]})
    whole = door.get(f"{base(meetup)}/guests")
    only = door.get(f"{base(meetup)}/guests?tag={speaker['id']}")
    assert [g["guest"]["platform_user_id"] for g in only.json["guests"]] == [3]
    assert only.json["total"] == 1 and only.json["counts"] == whole.json["counts"]
    assert only.headers["ETag"] != whole.headers["ETag"]
    poll = door.get(
        f"{base(meetup)}/guests?tag={speaker['id']}", headers={"If-None-Match": only.headers["ETag"]}
    )
    assert poll.status_int == 304
    assert door.get(f"{base(meetup)}/guests?tag=424242").json["guests"] == []
    door.get(f"{base(meetup)}/guests?tag=speaker", status=422)


def test_deleting_a_tag_takes_it_off_every_guest(door, boss, org, meetup, guest, speaker):
    boss.put_json(guest_tags(org, guest), {"tags": [speaker["id"]]})
    boss.delete(f"{tags_url(org)}/{speaker['id']}", status=204)
    assert door.get(f"{base(meetup)}/guests").json["guests"][0]["guest"]["tags"] == []
    assert events("TAG_DELETED")[0].details["guests"] == 1


def test_the_summary_and_both_csv_files_carry_tags_and_note(door, boss, org, meetup, guest, speaker):
    vip = make(boss, org, "VIP, front row", "yellow")
    boss.put_json(guest_tags(org, guest), {"tags": [speaker["id"], vip["id"]], "note": "=cmd|' /C calc'!A0"})
    [line] = door.get(f"{base(meetup)}/summary").json["guests"]
    assert (line["tags"], line["note"]) == ([speaker, vip], "=cmd|' /C calc'!A0")
    header, row = read_csv(boss.get(f"{base(meetup)}/export"))
    said = dict(zip(header, row, strict=True))
    assert (said["tags"], said["note"]) == ("Speaker, VIP, front row", "'=cmd|' /C calc'!A0")
    header, row = read_csv(boss.get(f"{base(meetup)}/export?style=people&lang=es&sep=semicolon"), ";")
    said = dict(zip(header, row, strict=True))
    assert (said["Etiquetas"], said["Nota"]) == ("Speaker, VIP, front row", "'=cmd|' /C calc'!A0")
