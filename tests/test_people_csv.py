"""The guest list as a file for people (issue 24, item 8): `?style=people` gives the organization's local
times to the minute, column names and outcomes in the chosen language, the separator a spreadsheet of that
locale expects, ban overrides and undone check-ins, every cell still neutralised; the default stays the
machine-readable CSV. An org admin sets the organization's time zone."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from helpers import ENGINES, add_guest, base, entry, events, read_csv

from doorapp.export import FORMULA_START
from doorapp.models import Ban

pytestmark = ENGINES  # on SQLite and on PostgreSQL

# alice's arrival by the door's clock: an hour ago (a door_time more than 24 hours old is not taken)
ARRIVED = (datetime.now(UTC) - timedelta(hours=1)).replace(second=0, microsecond=0)
DOOR_TIME = ARRIVED.strftime("%Y-%m-%dT%H:%M:%SZ")


def local(zone=None):
    """alice's arrival as a spreadsheet in `zone` (the server's own when None) shows it."""
    return ARRIVED.astimezone(zone and ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")


@pytest.fixture
def night(door, boss_user, org, meetup, guest):
    """alice in at ARRIVED (an hour ago), the banned =1+2 forced in, carol in and undone (twice over)."""
    hostile, carol = add_guest(2, "formula", meetup), add_guest(3, "carol", meetup)
    hostile.displayname = "=1+2"
    hostile.save()
    Ban.create(org=org, guest=hostile, reason="Fought", banned_by=boss_user)
    door.post_json(f"{entry(meetup, guest)}/checkin", {"door_time": DOOR_TIME})
    door.post_json(f"{entry(meetup, hostile)}/checkin", {"force": True})
    for reason in ("Wrong Carol", "Still not her"):
        door.post_json(f"{entry(meetup, carol)}/checkin", {})
        door.patch_json(f"{entry(meetup, carol)}/undo-checkin", {"reason": reason})
    return meetup


def test_a_spanish_organizer_gets_madrid_times_spanish_words_and_semicolons(boss, org, night):
    boss.patch_json(f"/organizations/{org.id}/settings", {"time_zone": "Europe/Madrid"})
    reply = boss.get(f"{base(night)}/export?style=people&lang=es&sep=semicolon")
    header, *rows = read_csv(reply, ";")
    assert header == [
        "Nombre",
        "Usuario",
        "Resultado",
        "Acompañantes (inscritos)",
        "Acompañantes que vinieron",
        "Inscripción",
        "Cancelación",
        "N.º",
        "Llegada",
        "Entrada dada por",
        "Justificada",
        "Veto ignorado",
        "Entradas anuladas",
        "Etiquetas",
        "Nota",
    ]
    by_user = {row[1]: row for row in rows}
    alice = by_user["alice"]
    assert (alice[0], alice[2], alice[8], alice[9]) == (
        "Alice Ångström",
        "Asistió",
        local("Europe/Madrid"),
        "sam",
    )
    assert alice[3:5] == ["0", "0"]  # no guests RSVP'd, none came
    assert alice[5] == "2026-11-20 11:00"  # the RSVP, 10:00 UTC, in Madrid
    forced = by_user["formula"]
    assert (forced[0], forced[11]) == ("'=1+2", "sí")  # still neutralised; the ban override shows
    carol = by_user["carol"]
    assert (carol[2], carol[4], carol[12]) == ("Próximo", "", "2")  # the undos' reasons are the log's alone
    assert not [cell for row in rows for cell in row if cell.startswith(FORMULA_START)]


def test_without_a_time_zone_the_servers_is_used_and_english_with_commas_by_default(boss, night):
    header, *rows = read_csv(boss.get(f"{base(night)}/export?style=people"), ",")
    assert header[:3] == ["Name", "Username", "Outcome"]
    alice = next(row for row in rows if row[1] == "alice")
    assert (alice[2], alice[8]) == ("Attended", local())


def test_the_machine_readable_csv_stays_and_carries_the_overrides_and_undos(boss, night):
    header, *rows = read_csv(boss.get(f"{base(night)}/export"), ",")
    assert header[-4:] == ["ban_overridden", "undone_check_ins", "tags", "note"]
    by_user = {row[1]: row for row in rows}
    assert by_user["alice"][9] == DOOR_TIME and by_user["alice"][3] == "ATTENDED"
    assert by_user["formula"][-4:] == ["True", "0", "", ""]
    assert by_user["carol"][-4:] == ["False", "2", "", ""]
    assert read_csv(boss.get(f"{base(night)}/export?style=data"), ",") == [header, *rows]


def test_an_unknown_choice_is_422(boss, night):
    for query in ("style=pretty", "lang=fr", "sep=tab"):
        reply = boss.get(f"{base(night)}/export?{query}", status=422).json
        assert reply["errors"][0]["type"] == "choice" and reply["errors"][0]["loc"][0] == "query"


def test_an_org_admin_sets_the_time_zone_and_the_log_says_so(boss, door, org):
    changed = boss.patch_json(f"/organizations/{org.id}/settings", {"time_zone": "America/Mexico_City"}).json
    assert changed["time_zone"] == "America/Mexico_City"
    [event] = events("ORG_UPDATED")
    assert event.details == {"changes": {"time_zone": {"old": None, "new": "America/Mexico_City"}}}
    bad = boss.patch_json(f"/organizations/{org.id}/settings", {"time_zone": "Mars/Olympus"}, status=422).json
    assert bad["errors"][0]["loc"] == ["body", "time_zone"] and bad["errors"][0]["ctx"] == {
        "rule": "time_zone"
    }
    refused = door.patch_json(f"/organizations/{org.id}/settings", {"time_zone": "UTC"}, status=403).json
    assert refused["code"] == "org_admin_required"
    assert boss.patch_json(f"/organizations/{org.id}/settings", {"time_zone": ""}).json["time_zone"] is None
    assert door.get(f"/organizations/{org.id}").json["time_zone"] is None


def test_the_audit_log_for_people_has_local_times_words_and_the_filters(boss, org, night):
    boss.patch_json(f"/organizations/{org.id}/settings", {"time_zone": "Europe/Madrid"})
    query = "type=CHECK_IN,UNDO_CHECK_IN&style=people&lang=es&sep=semicolon"
    header, *rows = read_csv(boss.get(f"/organizations/{org.id}/events/export?{query}"), ";")
    assert header == ["Cuándo", "Qué", "Por", "Nombre", "Usuario", "Evento", "Motivo", "Detalles"]
    assert [row[1] for row in rows] == ["Entrada anulada", "Entrada"] * 2 + ["Entrada", "Entrada"]
    first = rows[-1]  # oldest last: alice's check-in, sent with the door's time
    assert (first[2], first[3], first[5]) == ("sam", "Alice Ångström", "Summer social")
    assert first[7] == f"reloj de la puerta: {DOOR_TIME}"
    assert rows[0][6] == "Still not her" and len(rows[0][0]) == len(local())
    forced = next(row for row in rows if row[4] == "formula")
    assert forced[3] == "'=1+2" and forced[7] == "veto saltado: True"
