"""Door passes: a phone's narrow, short-lived way in to one organization's door, without an account. A
pass is made by an org admin with a one-time pairing code (kept as its SHA-256), exchanged once for a
pass token; revoking it, its end time, its meetup's finalizing, cancelling or deletion, its maker's
leaving the org's admins or being disabled, and `rotate-key` end it for every process at once, since
each request of the token reads its row."""

import hashlib
import hmac
import secrets
from datetime import timedelta

from peewee import JOIN, CharField, DateTimeField, ForeignKeyField, fn

from doorapp.db import BaseModel, Prepared, db, utcnow, write
from doorapp.models.accounts import Membership, Org, User
from doorapp.models.meetups import Meetup

CODE_VALIDITY = timedelta(minutes=10)  # a pairing code's life
LONGEST = timedelta(hours=24)  # a pass ends at most this long after it is made
SEEN_EVERY = timedelta(minutes=1)  # last_seen_at is written at most this often
# Crockford's base 32 (no I, L, O, U): 16 of them are 80 random bits, and easy to read aloud if a camera fails
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 16


def new_code():
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def code_hash(code):
    """What is kept of a pairing code: its SHA-256 (80 random bits need no slow hash to resist guessing;
    the guesses are throttled per address besides)."""
    return hashlib.sha256(code.strip().upper().encode("utf-8", "surrogatepass")).hexdigest()


class DoorPass(BaseModel):
    org = ForeignKeyField(Org, on_delete="CASCADE")
    meetup = ForeignKeyField(Meetup, null=True, on_delete="CASCADE")  # None: every open meetup of the org
    label = CharField(max_length=64)
    created_by = ForeignKeyField(User, on_delete="CASCADE", index=False)
    created_at = DateTimeField(default=utcnow)
    ends_at = DateTimeField()
    code_hash = CharField(max_length=64, unique=True)
    code_expires_at = DateTimeField()
    paired_at = DateTimeField(null=True)
    last_seen_at = DateTimeField(null=True)
    revoked_at = DateTimeField(null=True)

    class Meta:
        table_name = "door_pass"

    @classmethod
    def make(cls, org_id, meetup_id, label, user, ends_at):
        """A new pass and its pairing code (shown once; only its hash is kept)."""
        code, now = new_code(), utcnow()
        made = cls.create(
            org=org_id,
            meetup=meetup_id,
            label=label,
            created_by=user,
            created_at=now,
            ends_at=ends_at,
            code_hash=code_hash(code),
            code_expires_at=now + CODE_VALIDITY,
        )
        return made, code

    @classmethod
    def pair(cls, code):
        """The pass whose pairing code this is, now paired, or None: an unknown, used, expired or revoked
        code. The conditional UPDATE decides, so of any number of exchanges of one code one wins."""
        now, digest = utcnow(), code_hash(code)
        found = cls.get_or_none(cls.code_hash == digest)
        if found is None or not hmac.compare_digest(found.code_hash, digest):  # the row's, in constant time
            return None
        won = (
            cls.update(paired_at=now, last_seen_at=now)
            .where(
                cls.id == found.id,
                cls.paired_at.is_null(),
                cls.revoked_at.is_null(),
                cls.code_expires_at > now,
                cls.ends_at > now,
            )
            .execute()
        )
        return cls.get_by_id(found.id) if won == 1 else None

    @classmethod
    def live(cls, pass_id):
        """The pass of a token while it may act (paired, not revoked, before its end, its meetup there and
        neither finalized nor cancelled),
        else None: read on every request of the token."""
        return _LIVE.first(pass_id, utcnow())

    @classmethod
    def acting(cls, pass_id):
        """The pass of a token while it may act, else None; its last_seen_at written at most once a
        SEEN_EVERY, and only outside a request's read snapshot (a door's poll of its list writes it)."""
        door_pass = cls.live(pass_id)
        if door_pass is None:
            return None
        if not db.in_transaction() and cls.needs_seen(door_pass):
            with write():
                cls.seen(door_pass)
        return door_pass

    @staticmethod
    def needs_seen(door_pass):
        """True when the pass's last_seen_at is older than SEEN_EVERY (or unset)."""
        return door_pass.last_seen_at is None or door_pass.last_seen_at <= utcnow() - SEEN_EVERY

    @classmethod
    def seen(cls, door_pass):
        """Note that the pass was used now, unless another request did within SEEN_EVERY (True when
        written)."""
        now = utcnow()
        stale = cls.last_seen_at.is_null() | (cls.last_seen_at <= now - SEEN_EVERY)
        return cls.update(last_seen_at=now).where(cls.id == door_pass.id, stale).execute() == 1

    @classmethod
    def revoke(cls, org_id, pass_id=None, meetup_id=None):
        """End the org's pass `pass_id`, or every pass of the meetup `meetup_id`, now: the passes it ended
        (those ended before are left as they were)."""
        where = [cls.org == org_id, cls.revoked_at.is_null()]
        where += [cls.id == pass_id] if pass_id is not None else [cls.meetup == meetup_id]
        live = list(cls.select(cls.id, cls.org, cls.label).where(*where).order_by(cls.id))
        ended = cls.update(revoked_at=utcnow()).where(
            cls.id.in_([p.id for p in live]), cls.revoked_at.is_null()
        )
        ended.execute()
        return live

    @classmethod
    def revoke_made_by(cls, user_id, org_id=None):
        """End now every pass the user made (in the org `org_id`, when given) that has not ended yet: they
        no longer administer it, or their account was disabled. The passes it ended."""
        where = [cls.created_by == user_id, cls.revoked_at.is_null(), cls.ends_at > utcnow()]
        if org_id is not None:
            where.append(cls.org == org_id)
        live = list(cls.select(cls.id, cls.org, cls.label).where(*where).order_by(cls.id))
        cls.update(revoked_at=utcnow()).where(
            cls.id.in_([p.id for p in live]), cls.revoked_at.is_null()
        ).execute()
        return live

    @classmethod
    def end_all(cls):
        """End every pass not ended yet, of every org, now (the signing key changed): the passes it ended.
        Each request of a pass reads its row, so every machine refuses them at their next request."""
        now = utcnow()
        live = list(cls.select(cls.id, cls.org, cls.label).where(cls.revoked_at.is_null(), cls.ends_at > now))
        cls.update(revoked_at=now).where(cls.id.in_([p.id for p in live]), cls.revoked_at.is_null()).execute()
        return live

    @classmethod
    def outlive(cls, meetup_id):
        """Before the meetup `meetup_id` is deleted: its passes end now and keep their row (without the
        meetup), since what they did stays in the audit log under their name."""
        cls.update(revoked_at=fn.COALESCE(cls.revoked_at, utcnow()), meetup=None).where(
            cls.meetup == meetup_id
        ).execute()


_ADMIN_OF_ITS_ORG = Membership.select().where(
    Membership.user == DoorPass.created_by, Membership.org == DoorPass.org, Membership.role == "ADMIN"
)
_LIVE = Prepared(
    ("int", "datetime"),
    lambda pass_id, now: (
        # what a request of the pass needs (its scope, its maker, when it was last seen), not every column:
        # each stored time costs a parse on every poll
        DoorPass.select(
            DoorPass.id,
            DoorPass.org,
            DoorPass.meetup,
            DoorPass.label,
            DoorPass.last_seen_at,
            User.id,
            User.username,
        )
        .join(User, on=User.id == DoorPass.created_by, attr="created_by")
        .switch(DoorPass)
        .join(Meetup, JOIN.LEFT_OUTER, on=Meetup.id == DoorPass.meetup)
        .where(
            DoorPass.id == pass_id,
            DoorPass.paired_at.is_null(False),
            DoorPass.revoked_at.is_null(),
            DoorPass.ends_at > now,
            # finalizing or cancelling its meetup ends it; deleting it deletes the pass (on_delete CASCADE)
            DoorPass.meetup.is_null() | Meetup.still_open(),
            # its maker still answers for it: enabled, and an admin of its org (or a site admin)
            ~User.is_disabled,
            (User.role == "SITE_ADMIN") | fn.EXISTS(_ADMIN_OF_ITS_ORG),
        )
    ),
)
