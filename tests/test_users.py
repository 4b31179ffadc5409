"""/users/: the member picker finds an account by a part of its username, or by the starts of its words."""


def test_a_username_is_found_by_any_part_of_it_in_any_case(make_user, as_user):
    me = make_user("me")
    make_user("xFindMe-7f3a")
    make_user("mjackson")
    make_user("someone_else")

    def found(q):
        return [u["username"] for u in as_user(me).get("/users/", {"q": q}).json["users"]]

    assert found("findme") == ["xFindMe-7f3a"]
    assert found("jackson") == ["mjackson"]
    assert found("else some") == ["someone_else"]  # the starts of its words, any order, as at the door


def test_user_search_finds_approved_enabled_users_case_insensitively(make_user, as_user):
    me = make_user("Dana")
    make_user("danaparker")
    make_user("dan_pending", is_approved=False)
    make_user("danny_gone", is_disabled=True)
    make_user("100%_dan")
    found = as_user(me).get("/users/", {"q": "DAN"}).json
    assert found == {
        "total": 3,
        "users": [
            {"id": found["users"][0]["id"], "username": "100%_dan"},
            {"id": me.id, "username": "Dana"},
            {"id": found["users"][2]["id"], "username": "danaparker"},
        ],
    }
    assert as_user(me).get("/users/", {"q": "100%"}).json["total"] == 1  # % is literal, not a wildcard
    make_user("zoë_ångström")
    assert [u["username"] for u in as_user(me).get("/users/", {"q": "angstrom zoe"}).json["users"]] == [
        "zoë_ångström"
    ]


def test_user_search_answers_at_most_20(make_user, as_user):
    me = make_user("me")
    for n in range(25):
        make_user(f"user{n:02}")
    assert len(as_user(me).get("/users/", {"q": "user"}).json["users"]) == 20
