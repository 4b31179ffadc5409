"""The walk-in dialog's matches over HTTP: the guests Door knows who match what the door typed and are not on
the meetup's list (the platform's, then those this organization let in by name or read from a file), with
this organization's ban marks; a door pass of the meetup may read them."""

import pytest
from helpers import ENGINES, base, make_pass, phone_of

from doorapp.models import Ban, Guest, MeetupGuest, Org

pytestmark = ENGINES  # on SQLite and on PostgreSQL

HANNAHS = [
    (501, "hannah_baker", "Hannah Baker"),
    (502, "hannah_murphy", "Hannah Murphy"),
    (503, "baker_h", "Hânnah Bäker-Smith"),
    (504, "ben_baker", "Ben Baker"),
]


@pytest.fixture
def known(org, meetup):
    """Four platform guests Door knows from elsewhere, one banned here and one banned by another org, and
    Hannah Murphy on the meetup's list already (alice is on it too)."""
    guests = {
        username: Guest.create(platform_user_id=i, username=username, displayname=name)
        for i, username, name in HANNAHS
    }
    Ban.create(org=org, guest=guests["baker_h"], reason="Shouted at the host")
    other = Org.create(name="Early Birds", slug="early-birds")
    Ban.create(org=other, guest=guests["ben_baker"], reason="Another org's reason")
    MeetupGuest.create(meetup=meetup, guest=guests["hannah_murphy"])
    Guest.create(platform_user_id=-5, username="", displayname="Hannah Local", is_local=True, org=org)
    Guest.create(platform_user_id=-6, username="", displayname="Hannah Elsewhere", is_local=True, org=other)
    return guests


def matches(client, meetup, **query):
    return client.get(f"{base(meetup)}/walkin-matches", query)


def test_the_guests_door_knows_off_the_list_match_as_the_door_search_does(door, meetup, known):
    reply = matches(door, meetup, q="hannah").json
    # Hannah Murphy is on the list (the door's search finds her): not offered; Hannah Local, let in by name
    # here before, comes after the platform's guests; another org's Hannah Elsewhere is not this door's
    assert reply == {
        "total": 3,
        "guests": [
            {
                "platform_user_id": 503,
                "username": "baker_h",
                "displayname": "Hânnah Bäker-Smith",
                "is_local": False,
                "is_banned": True,
                "ban_reason": "Shouted at the host",
            },
            {
                "platform_user_id": 501,
                "username": "hannah_baker",
                "displayname": "Hannah Baker",
                "is_local": False,
                "is_banned": False,
                "ban_reason": None,
            },
            {
                "platform_user_id": -5,
                "username": "",
                "displayname": "Hannah Local",
                "is_local": True,
                "is_banned": False,
                "ban_reason": None,
            },
        ],
    }
    # words in any order, case and accents; a ban by another organization is not this door's
    baker = matches(door, meetup, q="BAKER").json
    assert [g["username"] for g in baker["guests"]] == ["baker_h", "ben_baker", "hannah_baker"]
    assert [g["is_banned"] for g in baker["guests"]] == [True, False, False]
    assert matches(door, meetup, q="baker hannah").json["total"] == 2
    assert matches(door, meetup, q="nobody here").json == {"total": 0, "guests": []}


def test_at_most_limit_are_answered_with_how_many_match_in_all(door, meetup, known):
    for n in range(30):
        Guest.create(platform_user_id=1000 + n, username=f"sam_{n:02}", displayname=f"Sam {n}")
    first = matches(door, meetup, q="sam").json
    assert first["total"] == 30 and [g["username"] for g in first["guests"]] == [
        f"sam_{n:02}" for n in range(8)
    ]
    assert len(matches(door, meetup, q="sam", limit=20).json["guests"]) == 20


@pytest.mark.parametrize(
    "query, name",
    [
        ({}, "q"),
        ({"q": "   "}, "q"),
        ({"q": "x" * 256}, "q"),
        ({"q": "a", "limit": 21}, "limit"),
        ({"q": "a", "limit": 0}, "limit"),
        ({"q": "a", "limit": "x"}, "limit"),
    ],
)
def test_a_missing_q_or_a_bad_limit_is_422(door, meetup, query, name):
    reply = door.get(f"{base(meetup)}/walkin-matches", query, status=422).json
    assert reply["code"] == "validation_error" and reply["errors"][0]["loc"] == ["query", name]


def test_a_meetup_of_another_org_is_404(meetup, as_user, make_user):
    """Asked by a site admin (every org's member), so only the meetup's org can refuse it."""
    other = Org.create(name="Early Birds", slug="early-birds")
    root = as_user(make_user("root", site_admin=True))
    path = f"/organizations/{other.id}/meetups/{meetup.id}/walkin-matches"
    assert root.get(path, {"q": "a"}, status=404).json["code"] == "not_found"
    assert root.get(f"{base(meetup)}/walkin-matches", {"q": "a"}).json["total"] == 0


def test_a_door_pass_of_the_meetup_reads_them(client, boss, meetup, known):
    phone = phone_of(client, make_pass(boss, meetup))
    reply = matches(phone, meetup, q="hannah baker").json
    assert [(g["username"], g["is_banned"]) for g in reply["guests"]] == [
        ("baker_h", True),
        ("hannah_baker", False),
    ]


def test_a_regular_let_in_by_name_here_is_offered_and_let_in_again_as_the_same_guest(door, meetup, known):
    """Most lists come from files, whose guests are this org's own: last month's regular walks in tonight
    and is added from the match, not typed in again as a second person of the same name."""
    (local,) = [g for g in matches(door, meetup, q="local").json["guests"]]
    added = door.post_json(
        f"{base(meetup)}/guests/{local['platform_user_id']}/add-walkin", {"check_in": True}
    )
    assert added.status_int == 201 and added.json["rsvp"]["has_arrived"] is True
    assert added.json["guest"]["platform_user_id"] == -5
    assert matches(door, meetup, q="local").json["total"] == 0  # on the list now
    assert Guest.select().where(Guest.displayname == "Hannah Local").count() == 1
