"""Door's tables, one module per aggregate; each model's queries are its methods, and each hot statement
(Prepared) sits under the class that uses it. Ids go in one order everywhere: org_id, meetup_id, guest_id.

    accounts  User, Org, Membership, Failure, Setting, IdempotencyKey
    guests    Guest, Ban
    names     the name rule of searches
    meetups   Meetup, MeetupGuest (lists, check-ins, history), door-list versions, linking a local guest
    audit     AuditType, what each type records and moves (EVENTS), AuditEvent, record()
"""

from doorapp.models.accounts import Failure, IdempotencyKey, Membership, Org, Setting, User
from doorapp.models.audit import AuditEvent, AuditType
from doorapp.models.guests import Ban, Guest
from doorapp.models.meetups import Meetup, MeetupGuest

MODELS = [
    User,
    Org,
    Membership,
    Guest,
    Ban,
    Meetup,
    MeetupGuest,
    AuditEvent,
    Failure,
    Setting,
    IdempotencyKey,
]

__all__ = [
    "MODELS",
    "AuditEvent",
    "AuditType",
    "Ban",
    "Failure",
    "Guest",
    "IdempotencyKey",
    "Meetup",
    "MeetupGuest",
    "Membership",
    "Org",
    "Setting",
    "User",
]
