"""Who did something, as the API, the summary and the CSV files name them: a person (an account), or a
door pass (a phone at the door with no account), named by its label and by who made it. Their JSON shapes
are part of doorapp.api.shapes' vocabulary (it imports them from here)."""

from typing import TypedDict


class Person(TypedDict):
    """Who did something (checked a guest in, banned them)."""

    id: int
    username: str


class PassRef(TypedDict):
    """A door pass as who did something: its name, and who made it."""

    id: int
    label: str
    created_by: Person


# `pass` is a Python keyword: the shape is declared as a call
PassActor = TypedDict("PassActor", {"id": None, "username": None, "pass": PassRef})
PassActor.__doc__ = "A door pass as who did something: no account (id and username null), the pass."


def person_json(user):
    """Person, or None."""
    return user and Person(id=user.id, username=user.username)


def pass_actor_json(pass_id, label, maker):
    """PassActor; `maker`: a Person."""
    return PassActor(
        {"id": None, "username": None, "pass": PassRef(id=pass_id, label=label, created_by=maker)}
    )


def checker_json(entry):
    """Who checked a list entry's guest in (an entry with its checker and door pass joined): Person,
    PassActor, or None."""
    door_pass = entry.checked_in_pass
    if door_pass is None:
        return person_json(entry.checked_in_by)
    return pass_actor_json(door_pass.id, door_pass.label, person_json(door_pass.created_by))


def actor_json(event):
    """Who made an event (a row of AuditEvent.with_people()): Person, PassActor, or None."""
    if event["actor_pass"] is not None:
        maker = Person(id=event["pass_maker"], username=event["pass_maker_username"])
        return pass_actor_json(event["actor_pass"], event["pass_label"], maker)
    return event["actor"] and Person(id=event["actor"], username=event["actor_username"])


def pass_words(label, maker_username):
    """A door pass as a summary, a CSV or a person reads it: "Maria's phone (pass, made by alice)"."""
    return f"{label} (pass, made by {maker_username})"


def checker_words(entry):
    """Who checked a list entry's guest in, as text: a username, pass_words(), or None."""
    door_pass = entry.checked_in_pass
    if door_pass is None:
        return entry.checked_in_by and entry.checked_in_by.username
    return pass_words(door_pass.label, door_pass.created_by.username)


def checker_pass(entry):
    """(label, maker's username) of the door pass that checked a list entry's guest in, or (None, None):
    what a reader words in its own language (the summary's screen, a CSV for people)."""
    door_pass = entry.checked_in_pass
    return (None, None) if door_pass is None else (door_pass.label, door_pass.created_by.username)


def actor_words(event):
    """Who made an event (a row of AuditEvent.with_people()), as text: a username, pass_words(), or None."""
    if event["actor_pass"] is not None:
        return pass_words(event["pass_label"], event["pass_maker_username"])
    return event["actor_username"]
