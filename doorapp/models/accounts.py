"""Accounts: users, organizations and memberships, and the small tables of the sign-in story (failed
attempts, settings, Idempotency-Keys, the signing key)."""

import re
import unicodedata
import uuid
from datetime import datetime, timedelta

from peewee import (
    JOIN,
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    TextField,
    UUIDField,
)

from doorapp.db import BaseModel, Prepared, queue_on, utcnow
from doorapp.errors import ApiError
from doorapp.scripts import is_mixed_script
from doorapp.search import name_filter

# Unicode's default-ignorable code points (and the blank Braille pattern): they show as nothing, so a name
# with one looks like another name. Categories C (control, format, ...) and Z (spaces) are refused too.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
RECOVERY_VALIDITY = timedelta(hours=72)  # a recovery code's life


def username_as_kept(name):
    """The one form of a name that Door keeps and compares (NFKC): `ｒｏｏｔ` is `root`."""
    return unicodedata.normalize("NFKC", name)


def new_username(name):
    """A name chosen for a new account, as kept; ValueError(message, rule) for one that could pass for
    another name."""
    name = username_as_kept(name)
    if any(unicodedata.category(c)[0] in "CZ" or INVISIBLE.match(c) for c in name):
        raise ValueError(
            "Must not contain spaces or invisible, control or format characters.", "visible_name"
        )
    if name and unicodedata.category(name[0])[0] == "M":
        raise ValueError("Must not start with a combining mark.", "no_leading_mark")
    if is_mixed_script(name):  # rооt with Cyrillic o's; a name in one script of its own is welcome
        raise ValueError(
            "Must be written in one script, not a mix that looks like another name.", "username_confusable"
        )
    return name


class User(BaseModel):
    username = CharField(max_length=64, unique=True)
    password_hash = CharField()
    role = CharField(default="USER")  # USER | SITE_ADMIN
    is_approved = BooleanField(default=False)
    is_disabled = BooleanField(default=False)
    disabled_at = DateTimeField(null=True)
    disabled_reason = TextField(null=True)
    created_at = DateTimeField(default=utcnow)
    recovery_code_hash = CharField(null=True)  # argon2id of the 6 digits; null when none was generated
    recovery_code_used = BooleanField(default=False)
    recovery_code_created_at = DateTimeField(null=True)
    recovery_code_failures = IntegerField(default=0)  # wrong attempts against the current code
    sessions_since = DateTimeField(null=True)  # tokens issued (iat, whole seconds) before it no longer work

    @classmethod
    def end_sessions(cls, user_id, **changes):
        """Apply `changes` and end every session (token) the account has so far, in one UPDATE."""
        return (
            cls.update(sessions_since=cls.session_start(), **changes).where(cls.id == user_id).execute() == 1
        )

    @classmethod
    def end_every_session(cls):
        """End every account's sessions (a new signing key), in one UPDATE."""
        cls.update(sessions_since=cls.session_start()).execute()

    @staticmethod
    def session_start():
        """The next whole second (a token's `iat` has no finer resolution): every token issued until now,
        this second's included, is of an earlier session."""
        return (utcnow() + timedelta(seconds=1)).replace(microsecond=0)

    @classmethod
    def named(cls, username):
        return cls.get_or_none(cls.username == username)

    @classmethod
    def site_admin_exists(cls):
        return cls.select().where(cls.role == "SITE_ADMIN").exists()

    @classmethod
    def listed(cls, pending_only=False):
        """Accounts oldest first; with `pending_only`, those waiting for approval."""
        query = cls.select().order_by(cls.created_at, cls.id)
        return query.where(~cls.is_approved) if pending_only else query

    @classmethod
    def create_named(cls, username, password_hash, **fields):
        """A new user, inside the caller's write transaction; 409 username_taken when the name is taken."""
        if cls.select().where(cls.username == username).exists():
            raise ApiError(409, "username_taken", f"The username {username} is taken; choose another.")
        return cls.create(username=username, password_hash=password_hash, **fields)

    @classmethod
    def count_recovery_try(cls, user, step, limit):
        """Count one try (+1) against the user's current recovery code while it has had fewer than `limit`,
        or take one back (-1); True when counted."""
        where = [cls.id == user.id, cls.recovery_code_hash == user.recovery_code_hash]
        if step > 0:
            where.append(cls.recovery_code_failures < limit)
        counted = cls.update(recovery_code_failures=cls.recovery_code_failures + step).where(*where)
        return counted.execute() == 1

    @classmethod
    def reset_password(cls, user, password_hash):
        """Set the password with the user's current recovery code, which it uses up, and end the account's
        earlier sessions; False when the code was replaced or used meanwhile."""
        return (
            cls.update(
                password_hash=password_hash, recovery_code_used=True, sessions_since=cls.session_start()
            )
            .where(
                cls.id == user.id, cls.recovery_code_hash == user.recovery_code_hash, ~cls.recovery_code_used
            )
            .execute()
            == 1
        )

    @classmethod
    def replace_hash(cls, user, password_hash):
        """Store a new hash of the same password, unless the password changed meanwhile."""
        cls.update(password_hash=password_hash).where(
            cls.id == user.id, cls.password_hash == user.password_hash
        ).execute()

    @classmethod
    def search(cls, q, limit=20):
        """Approved, enabled users whose username contains `q` (any case: `jackson` finds mjackson) or
        whose name's words it starts as at the door (name_filter), by name; at most `limit`."""
        wanted, part = name_filter(q), q.casefold()
        users = cls.select().where(cls.is_approved, ~cls.is_disabled).order_by(cls.username)
        return [u for u in users.iterator() if part in u.username.casefold() or wanted(u.username)][:limit]

    @classmethod
    def signed_in(cls, username, org_id=None):
        """The user of a token, with `org_role`: their role in the org `org_id`, loaded in the same query
        (None when not a member, or no org asked for)."""
        if org_id is None:
            user = cls.named(username)
            if user is not None:
                user.org_role = None
            return user
        return _SIGNED_IN.first(username, org_id)


# A token's user and their role in the path's org: every request of a door reads it.
_SIGNED_IN = Prepared(
    ("str", "uuid"),
    lambda username, org_id: (
        User.select(User, Membership.role.alias("org_role"))
        .join(Membership, JOIN.LEFT_OUTER, on=(Membership.user == User.id) & (Membership.org == org_id))
        .where(User.username == username)
        .objects()
    ),
)


class Org(BaseModel):
    id = UUIDField(primary_key=True, default=uuid.uuid4)
    name = CharField(max_length=128, unique=True)
    slug = CharField(max_length=64, unique=True)
    created_at = DateTimeField(default=utcnow)
    door_lists_version = IntegerField(default=0)  # m0007's; no longer read (models.changes replaced it)
    time_zone = CharField(max_length=64, null=True)  # IANA name for files made for people; None: the server's
    # How long it keeps what it knows of guests (doorapp.privacy applies it): their entries on the lists of
    # its meetups, their bans (None: until lifted), the names and free text of its audit log; and the
    # notice it shows at its door and to a door pass's phone
    keep_guests_months = IntegerField(default=12)
    keep_bans_months = IntegerField(null=True, default=24)
    keep_audit_details_months = IntegerField(default=12)
    privacy_notice = TextField(default="")

    @classmethod
    def taken(cls, field, value, org_id=None):
        """True when another org than `org_id` has `value` in `field` (name or slug)."""
        others = cls.select().where(cls.id != org_id) if org_id is not None else cls.select()
        return others.where(getattr(cls, field) == value).exists()


class Membership(BaseModel):
    user = ForeignKeyField(User, backref="memberships", on_delete="CASCADE")
    org = ForeignKeyField(Org, backref="memberships", on_delete="CASCADE")
    role = CharField()  # STAFF | ADMIN

    class Meta:
        indexes = ((("user", "org"), True),)

    @classmethod
    def of_users(cls, user_ids):
        """The memberships of these users with their orgs, by org name (one query)."""
        return cls.select(cls, Org).join(Org).where(cls.user.in_(user_ids)).order_by(Org.name)

    @classmethod
    def of_org(cls, org_id, user_id=None):
        """The org's memberships with their users, by username; or the one of `user_id` (None if absent)."""
        query = cls.select(cls, User).join(User).where(cls.org == org_id)
        if user_id is None:
            return query.order_by(User.username)
        return query.where(cls.user == user_id).first()

    @classmethod
    def join(cls, org, user, role):
        """Make `user` a member of `org` with `role`; 409 already_member when they are one."""
        if cls.of_org(org.id, user.id) is not None:
            raise ApiError(409, "already_member", f"{user.username} is already a member of {org.name}.")
        return cls.create(org=org, user=user, role=role)

    @classmethod
    def administers_any(cls, user_id):
        """True when the user is an ADMIN of at least one organization."""
        return cls.select().where(cls.user == user_id, cls.role == "ADMIN").exists()


class Failure(BaseModel):
    """A failed login, setup or recovery attempt, keyed by what it counts against
    ('login-user:alice', 'login-addr:…', 'register-addr:…', 'recovery-addr:…', 'setup-addr:…')."""

    key = CharField(max_length=300)
    at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("key", "at"), False),)

    @classmethod
    def reserve(cls, keys, limit, window):
        """Inside a write transaction: (None, the new rows' ids) after counting one attempt against each key,
        or (the first full key's oldest attempt time, None) when a key has `limit` attempts in `window`."""
        now = utcnow()
        queue_on(*keys)  # two processes counting one key at once must not both find room for one more
        cls.delete().where(cls.at < now - window).execute()
        for key in keys:
            recent = cls.select().where(cls.key == key, cls.at > now - window)
            if recent.count() >= limit:
                return recent.order_by(cls.at).first().at, None
        return None, [cls.insert(key=key, at=now).execute() for key in keys]

    @classmethod
    def forgive(cls, ids):
        cls.delete().where(cls.id.in_(ids)).execute()


class Setting(BaseModel):
    """Small named values the service keeps between starts (the setup code's hash)."""

    key = CharField(primary_key=True, max_length=64)
    value = TextField()

    @classmethod
    def setup_code(cls):
        """(The setup code's hash, when it was issued), or (None, None)."""
        rows = {s.key: s.value for s in cls.select().where(cls.key.in_(("setup_code", "setup_code_at")))}
        issued = rows.get("setup_code_at")
        return rows.get("setup_code"), issued and datetime.fromisoformat(issued)

    @classmethod
    def set_setup_code(cls, code_hash):
        for key, value in (("setup_code", code_hash), ("setup_code_at", utcnow().isoformat())):
            upsert = cls.insert(key=key, value=value)
            upsert.on_conflict(conflict_target=[cls.key], update={cls.value: value}).execute()

    @classmethod
    def forget_setup_code(cls):
        cls.delete().where(cls.key.in_(("setup_code", "setup_code_at"))).execute()


class SigningKey(BaseModel):
    """The key that signs tokens, kept by a PostgreSQL database for every machine on it (doorapp.keys): one
    row, made by the first Door to start, replaced by `doorapp rotate-key`. `secret` is None when the
    machines sign with DOOR_SECRET_KEY from their environment; `fingerprint` tells keys apart unseen."""

    id = IntegerField(primary_key=True)  # always 1: the key in use
    secret = TextField(null=True)
    fingerprint = CharField(max_length=64)
    created_at = DateTimeField(default=utcnow)

    @classmethod
    def current(cls):
        return cls.get_or_none(cls.id == 1)

    @classmethod
    def put(cls, secret, fingerprint):
        """Make (secret, fingerprint) the key in use."""
        row = {"secret": secret, "fingerprint": fingerprint, "created_at": utcnow()}
        upsert = cls.insert(id=1, **row).on_conflict(
            conflict_target=[cls.id], update={getattr(cls, name): value for name, value in row.items()}
        )
        upsert.execute()


class IdempotencyKey(BaseModel):
    """A door action's Idempotency-Key and its first answer: the same key again returns that answer instead
    of acting twice. Written in the action's own transaction, so a rolled-back action leaves no key."""

    RETENTION = timedelta(hours=24)
    user = ForeignKeyField(User, on_delete="CASCADE", index=False)
    org_id = UUIDField(null=True)  # the org whose door acted: erasing a guest there forgets its answers too
    key = CharField(max_length=255)
    request = CharField(max_length=64)  # sha256 of method, path and body: a reused key is told apart
    status = IntegerField(null=True)
    answer = TextField(null=True)
    created_at = DateTimeField(default=utcnow, index=True)

    class Meta:
        indexes = ((("user", "key"), True),)

    @classmethod
    def claim(cls, user, key, request, org_id=None):
        """Take the key for this request (of the org `org_id`'s door): None when it is new (or expired),
        else the stored row. The unique index decides: a concurrent claim of the same key waits for the
        first one's transaction, then finds its answer."""
        cls.delete().where(cls.created_at < utcnow() - cls.RETENTION).execute()
        row = {"user": user, "key": key, "request": request, "org_id": org_id}
        if cls.insert(**row).on_conflict_ignore().as_rowcount().execute() == 1:
            return None
        return cls.get(cls.user == user, cls.key == key)

    @classmethod
    def answered(cls, user, key, status, answer):
        cls.update(status=status, answer=answer).where(cls.user == user, cls.key == key).execute()
