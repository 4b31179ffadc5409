"""/users/: finding an account by name (the member picker)."""

from dataclasses import dataclass
from typing import TypedDict

from doorapp.access import signed_in
from doorapp.api import endpoint
from doorapp.api.shapes import Person, person_json
from doorapp.bodies import text
from doorapp.models import User


@dataclass
class UserSearch:
    q: str = text(min_length=0, max_length=64, default="")


class PersonList(TypedDict):
    total: int
    users: list[Person]


@endpoint("GET", "/users/", auth=signed_in, query=UserSearch, answer=PersonList)
def search_users(query):
    """Approved, enabled users whose username contains `q` (in any case) or whose words it starts as the
    door's search does; at most 20."""
    users = [person_json(u) for u in User.search(query.q)]
    return PersonList(total=len(users), users=users)
