"""Guests (people of the platform, or let in by a name typed at the door), their bans, and the name rule
that searches them."""

import secrets

from peewee import JOIN, BigIntegerField, BooleanField, CharField, DateTimeField, ForeignKeyField, TextField

from doorapp.db import BaseModel, get_or_404, utcnow
from doorapp.models.accounts import Org, User
from doorapp.search import name_filter


class Guest(BaseModel):
    platform_user_id = BigIntegerField(primary_key=True)
    username = CharField(max_length=255, index=True)
    displayname = CharField(max_length=255, default="")
    created_at = DateTimeField(default=utcnow)
    is_local = BooleanField(default=False)  # let in by a name typed at the door: not on the platform
    # A guest let in by name belongs to the org whose door let them in; None for platform guests.
    org = ForeignKeyField(Org, null=True, on_delete="CASCADE")
    # A guest read from a file: what tells them apart from namesakes, "email:<its first letters>" or
    # "id:<the last characters of their id in the file>"; "" for others.
    hint = CharField(max_length=64, default="")

    @classmethod
    def search(cls, q, limit, offset, leaving_out=None, org_id=None):
        """(How many platform guests match `q`, the page of them from `offset`), by username; `leaving_out`
        a query of ids not wanted; with `org_id`, the guests let in by name at that org's door (or read from
        its files) too, after the platform's. A name matches as at the door (name_filter), so the filter runs
        here over (id, username, displayname) rows: 10,000 guests take some 30 ms."""
        seen = cls.known() if org_id is None else (cls.known() | (cls.is_local & (cls.org == org_id)))
        query = (
            cls.select()
            .where(seen)
            .order_by(cls.is_local, cls.username, cls.displayname, cls.platform_user_id)
        )
        if leaving_out is not None:
            query = query.where(cls.platform_user_id.not_in(leaving_out))
        if not q:
            return query.count(), list(query.limit(limit).offset(offset))
        wanted = name_filter(q)
        ids = [
            i
            for i, username, name in query.select(cls.platform_user_id, cls.username, cls.displayname)
            .tuples()
            .iterator()
            if wanted(name, username)
        ]
        shown = ids[offset : offset + limit]
        rows = {g.platform_user_id: g for g in cls.select().where(cls.platform_user_id.in_(shown))}
        return len(ids), [rows[i] for i in shown]

    @classmethod
    def known(cls):
        """The condition of a platform guest whose profile Door has read (every platform profile has a
        username): not a member a file listed before any sync or look-up read them (their profile is
        empty, their name on that list alone: MeetupGuest.listed_name)."""
        return ~cls.is_local & (cls.username != "")

    @classmethod
    def of_platform(cls, platform_user_id):
        """The platform guest with this id whose profile Door has read, or None (local guests are not the
        platform's)."""
        return cls.get_or_none(cls.platform_user_id == platform_user_id, cls.known())

    @classmethod
    def register(cls, profile):
        """The platform guest of `profile` (a platform Profile): filled in where a file had listed the
        member before (an empty profile), else created. Two at once: one fills or creates it, the other's
        INSERT breaks the unique key (db.decided runs that request again, and it finds the guest)."""
        names = {"username": profile.username, "displayname": profile.displayname}
        empty = (cls.platform_user_id == profile.platform_user_id) & ~cls.is_local & (cls.username == "")
        if cls.update(**names).where(empty).execute() != 1:
            cls.create(platform_user_id=profile.platform_user_id, **names)
        return cls.get_by_id(profile.platform_user_id)

    @classmethod
    def seen_by(cls, org_id, platform_user_id):
        """The guest with this id as the org sees them, else 404 not_found: every platform guest, and the
        guests let in by name at this org's own door (another org's are not there for it)."""
        guest = get_or_404(cls, platform_user_id, "guest")
        if guest.is_local and str(guest.org_id) != str(org_id):
            get_or_404(cls, platform_user_id, "guest", is_local=False)
        return guest

    @classmethod
    def create_local(cls, displayname, org_id):
        """A guest who is not on the platform, named at the door of the org `org_id`. Their id is a random
        negative number (platform ids are positive, and a random one needs no counter shared between
        processes); within 2**53, so JavaScript holds it exactly."""
        return cls.create(
            platform_user_id=-1 - secrets.randbelow(2**53 - 1),
            username="",
            displayname=displayname,
            is_local=True,
            org=org_id,
        )

    @classmethod
    def upsert(cls, rows):
        """The insert of guests [(platform_user_id, username, displayname, hint, is_local, org_id,
        created_at)] that refreshes known ones' names (a known guest stays local or not, and in its org)."""
        fields = [cls.platform_user_id, cls.username, cls.displayname, cls.hint, cls.is_local, cls.org]
        return cls.insert_many(rows, fields=[*fields, cls.created_at]).on_conflict(
            conflict_target=[cls.platform_user_id], preserve=[cls.username, cls.displayname, cls.hint]
        )

    @classmethod
    def names_of(cls, ids):
        """The query of (platform_user_id, username, displayname, hint) of the known guests among `ids`."""
        return cls.select(cls.platform_user_id, cls.username, cls.displayname, cls.hint).where(
            cls.platform_user_id.in_(ids)
        )


class Ban(BaseModel):
    """An active ban of a guest in an org; unbanning deletes it (the audit log keeps the history)."""

    org = ForeignKeyField(Org, on_delete="CASCADE")
    guest = ForeignKeyField(Guest, on_delete="CASCADE")
    reason = TextField()
    banned_at = DateTimeField(default=utcnow)
    banned_by = ForeignKeyField(User, null=True)

    class Meta:
        indexes = ((("org", "guest"), True),)

    @classmethod
    def active(cls, org_id, guest_id):
        return cls.get_or_none(cls.org == org_id, cls.guest == guest_id)

    @classmethod
    def of_org(cls, org_id, guest_id=None):
        """The org's bans with their guests and who banned them, by username (or just this guest's)."""
        query = (
            cls.select(cls, Guest, User)
            .join(Guest)
            .switch(cls)
            .join(User, JOIN.LEFT_OUTER)
            .where(cls.org == org_id)
            .order_by(Guest.username, Guest.platform_user_id)
        )
        return query if guest_id is None else query.where(cls.guest == guest_id)

    @classmethod
    def impose(cls, org_id, guest_id, reason, user):
        """Ban the guest; False when a ban is already there (the unique index decides, not a read)."""
        return (
            cls.insert(org=org_id, guest=guest_id, reason=reason, banned_by=user)
            .on_conflict_ignore()
            .as_rowcount()
            .execute()
            == 1
        )

    @classmethod
    def lift(cls, ban):
        """Delete the ban; False when it was already gone."""
        return cls.delete().where(cls.id == ban.id).execute() == 1
