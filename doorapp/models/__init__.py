"""Door's tables, one module per aggregate; each model's queries are its methods, and each hot statement
(Prepared) sits under the class that uses it. Ids go in one order everywhere: org_id, meetup_id, guest_id.

    accounts  User, Org, Membership, Failure, Setting, IdempotencyKey, SigningKey
    guests    Guest, Ban
    names     the name rule of searches
    meetups   Meetup (arrival counter, finalizing), the door lists' versions
    meetup_guests  MeetupGuest (a meetup's list, check-ins and heads, history)
    changes   DoorChange: what changed on a door list at each version (the door list's deltas)
    local_guests   a guest let in by name, linked to their platform account
    passes    DoorPass (a phone's way in to one org's door, without an account)
    room      people in the room: an arrival stepping out and back in (the count: Meetup.inside)
    tags      Tag, GuestTag, GuestNote (what an org's door rows say of a guest before anyone asks)
    audit     AuditType, what each type records and moves (EVENTS), AuditEvent, record()
    privacy   what an org keeps of guests, forgetting the rest (retention, erasure), Erasure
"""

from doorapp.models.accounts import Failure, IdempotencyKey, Membership, Org, Setting, SigningKey, User
from doorapp.models.audit import AuditEvent, AuditType
from doorapp.models.changes import DoorChange
from doorapp.models.guests import Ban, Guest
from doorapp.models.meetup_guests import MeetupGuest
from doorapp.models.meetups import Meetup
from doorapp.models.passes import DoorPass
from doorapp.models.privacy import Erasure
from doorapp.models.tags import GuestNote, GuestTag, Tag

MODELS = [
    User,
    Org,
    Membership,
    Guest,
    Ban,
    Meetup,
    DoorPass,
    MeetupGuest,
    AuditEvent,
    DoorChange,
    Failure,
    Setting,
    IdempotencyKey,
    SigningKey,
    Tag,
    GuestTag,
    GuestNote,
    Erasure,
]

__all__ = [
    "MODELS",
    "AuditEvent",
    "AuditType",
    "Ban",
    "DoorChange",
    "DoorPass",
    "Erasure",
    "Failure",
    "Guest",
    "GuestNote",
    "GuestTag",
    "IdempotencyKey",
    "Meetup",
    "MeetupGuest",
    "Membership",
    "Org",
    "Setting",
    "SigningKey",
    "Tag",
    "User",
]
