"""Guests: registered by platform username (profile read from the fake `rest` platform), listed, fetched."""

import pytest

from doorapp.models import AuditEvent, Guest

BIG = 9223372036854775807  # the largest 64-bit id


@pytest.fixture
def config(config, fake_platform):
    return fake_platform.configure(config)


@pytest.fixture
def fake(fake_platform):
    fake_platform.add_user(BIG, "alice", "Alice Ångström")
    fake_platform.add_user(7, "李 秀英", "李秀英 🦉")
    fake_platform.add_user(8, "a/b?c", "Slashy")
    return fake_platform


@pytest.fixture
def sam(make_user):
    return make_user("sam")


@pytest.fixture
def member(sam, as_user):
    return as_user(sam)


def test_a_guest_is_registered_from_the_platform_profile(member, sam, fake):
    reply = member.post_json("/guests/", {"username": "alice"}, status=201).json
    assert reply == {
        "platform_user_id": BIG,
        "username": "alice",
        "displayname": "Alice Ångström",
        "created_at": reply["created_at"],
    }
    assert reply["created_at"].endswith("Z")
    event = AuditEvent.get()
    assert (event.event_type, event.actor_id, event.guest_id, event.org_id) == (
        "GUEST_CREATED",
        sam.id,
        BIG,
        None,
    )
    assert member.get(f"/guests/{BIG}").json == reply


def test_usernames_are_sent_to_the_platform_escaped(member, fake):
    assert member.post_json("/guests/", {"username": "李 秀英"}, status=201).json["platform_user_id"] == 7
    assert member.post_json("/guests/", {"username": "a/b?c"}, status=201).json["platform_user_id"] == 8
    assert fake.calls("user") == ["/api/v1/users/%E6%9D%8E%20%E7%A7%80%E8%8B%B1", "/api/v1/users/a%2Fb%3Fc"]


@pytest.mark.parametrize("username", ["..", ".", "nobody"])
def test_an_unknown_username_is_404_and_stores_nothing(member, fake, username):
    reply = member.post_json("/guests/", {"username": username}, status=404).json
    assert reply["code"] == "platform_user_not_found" and username in reply["detail"]
    assert Guest.select().count() == 0 and AuditEvent.select().count() == 0


def test_a_known_username_is_409_with_the_guest_and_asks_nobody(member, fake):
    created = member.post_json("/guests/", {"username": "alice"}, status=201).json
    reply = member.post_json("/guests/", {"username": "alice"}, status=409).json
    assert reply["code"] == "guest_exists" and reply["guest"] == created
    assert len(fake.calls("user")) == 1 and AuditEvent.select().count() == 1


def test_a_renamed_guest_is_recognised_by_id(member, fake):
    Guest.create(platform_user_id=BIG, username="alice_old", displayname="Alice")
    reply = member.post_json("/guests/", {"username": "alice"}, status=409).json
    assert reply["code"] == "guest_exists" and reply["guest"]["username"] == "alice_old"
    assert AuditEvent.select().count() == 0


@pytest.mark.parametrize(
    "body", [{}, {"username": ""}, {"username": "   "}, {"username": 7}, {"username": "x" * 256}]
)
def test_a_bad_username_is_422(member, fake, body):
    reply = member.post_json("/guests/", body, status=422).json
    assert reply["errors"][0]["loc"] == ["body", "username"] and fake.calls("user") == []


@pytest.fixture
def crowd(app):
    for n, (username, displayname) in enumerate(
        [
            ("zed", "Zed"),
            ("amy", "Amy Pond"),
            ("bo", "Bo 100%"),
            ("cy", "Cy_Twombly"),
            ("dee", "Dee (amy's sister)"),
        ]
    ):
        Guest.create(platform_user_id=100 + n, username=username, displayname=displayname)


def test_guests_are_listed_by_username_and_paged(member, crowd):
    reply = member.get("/guests/").json
    assert (reply["total"], reply["limit"], reply["offset"]) == (5, 50, 0)
    assert [g["username"] for g in reply["guests"]] == ["amy", "bo", "cy", "dee", "zed"]
    assert set(reply["guests"][0]) == {"platform_user_id", "username", "displayname", "created_at"}
    reply = member.get("/guests/?limit=2&offset=2").json
    assert reply["total"] == 5 and [g["username"] for g in reply["guests"]] == ["cy", "dee"]
    assert member.get("/guests/?offset=10").json["guests"] == []


@pytest.mark.parametrize(
    "q, found",
    [
        ("AMY", ["amy", "dee"]),
        ("pond", ["amy"]),
        ("100%", ["bo"]),
        ("twomb", ["cy"]),
        ("sister dee", ["dee"]),
        ("ond", []),
        ("%", []),
        ("", ["amy", "bo", "cy", "dee", "li", "zed", "zoe"]),
        ("nobody", []),
        ("angstrom zoe", ["zoe"]),
        ("ÅNG", ["zoe"]),
        ("秀", ["li"]),
    ],
)
def test_q_finds_guests_as_the_door_search_does(member, crowd, q, found):
    """Every word typed starts a word of the name or username, in any order, case and accents."""
    Guest.create(platform_user_id=200, username="zoe", displayname="Zoë Ångström")
    Guest.create(platform_user_id=201, username="li", displayname="李秀英")
    reply = member.get("/guests/", {"q": q}).json
    assert [g["username"] for g in reply["guests"]] == found and reply["total"] == len(found)


@pytest.mark.parametrize(
    "query, name",
    [("limit=0", "limit"), ("limit=201", "limit"), ("limit=x", "limit"), ("offset=-1", "offset")],
)
def test_bad_paging_is_422(member, query, name):
    reply = member.get(f"/guests/?{query}", status=422).json
    assert reply["code"] == "validation_error" and reply["errors"][0]["loc"] == ["query", name]


def test_a_guest_by_id_and_by_exact_username(member, crowd):
    Guest.create(platform_user_id=BIG, username="李 秀英", displayname="李秀英")
    assert member.get("/guests/101").json["username"] == "amy"
    assert member.get("/guests/by-username/amy").json["platform_user_id"] == 101
    assert member.get("/guests/by-username/%E6%9D%8E%20%E7%A7%80%E8%8B%B1").json["platform_user_id"] == BIG
    assert member.get("/guests/by-username/AMY", status=404).json["code"] == "not_found"
    assert member.get("/guests/999", status=404).json["code"] == "not_found"
    assert member.get("/guests/abc", status=422).json["errors"][0]["loc"] == ["path", "platform_user_id"]
    assert member.get("/guests/99999999999999999999", status=422).json["code"] == "validation_error"


def test_guests_are_shared_by_every_approved_user(as_user, make_user, crowd):
    assert as_user(make_user("outsider")).get("/guests/").json["total"] == 5
    pending = as_user(make_user("newbie", is_approved=False))
    assert pending.get("/guests/", status=403).json["code"] == "account_pending"
