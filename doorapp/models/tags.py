"""Tags an organization puts on its guests (a label and a colour: "Speaker", "Step-free entrance"), and the
short note it keeps on a guest: what its door rows show before anyone has to ask.

Both are the organization's own record of a person (personal data): every row names its org and its guest,
so forget() takes one person's out of one organization, and deleting the guest or the org takes them all.
A guest's GuestNote row exists while they have tags or a note in the org: the door reads their tags only
then (a check-in of an untagged guest costs no query more)."""

from typing import Literal, get_args

from peewee import JOIN, CharField, DateTimeField, ForeignKeyField, TextField

from doorapp.db import BaseModel, utcnow
from doorapp.models.accounts import Org
from doorapp.models.guests import Guest

COLOR = Literal["grey", "red", "orange", "yellow", "green", "teal", "blue", "purple"]  # the door's palette
COLORS = get_args(COLOR)


class Tag(BaseModel):
    """A tag of an organization, made by its admins."""

    org = ForeignKeyField(Org, on_delete="CASCADE", index=False)  # indexed with the label, below
    label = CharField(max_length=32)
    color = CharField(max_length=16)
    created_at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("org", "label"), True),)

    @classmethod
    def of_org(cls, org_id):
        """The org's tags by label."""
        return cls.select().where(cls.org == org_id).order_by(cls.label, cls.id)

    @classmethod
    def guests(cls, tag_id):
        """The ids of the guests with the tag."""
        return [guest for (guest,) in GuestTag.select(GuestTag.guest).where(GuestTag.tag == tag_id).tuples()]

    @classmethod
    def named(cls, org_id, label, leaving_out=None):
        """The org's tag with this label, case aside ("speaker" is "Speaker"), other than `leaving_out`."""
        query = cls.select().where(cls.org == org_id)
        return next(
            (tag for tag in query if tag.label.casefold() == label.casefold() and tag.id != leaving_out),
            None,
        )


class GuestTag(BaseModel):
    """A tag on a guest, in the tag's org."""

    org = ForeignKeyField(Org, on_delete="CASCADE", index=False)
    guest = ForeignKeyField(Guest, on_delete="CASCADE", index=False)
    tag = ForeignKeyField(Tag, on_delete="CASCADE")

    class Meta:
        indexes = ((("org", "guest", "tag"), True),)


class GuestNote(BaseModel):
    """A guest's note in an org ("" for none); the row is there while they have tags or a note in it."""

    org = ForeignKeyField(Org, on_delete="CASCADE", index=False)
    guest = ForeignKeyField(Guest, on_delete="CASCADE", index=False)
    note = TextField(default="")
    updated_at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("org", "guest"), True),)

    @classmethod
    def joined(cls, query, entries, org):
        """`query` of list entries (`entries`, a model with `guest`) with the guest's GuestNote in `org` (a
        field of the query, such as Meetup.org) joined as `guest_note` (None: no tags, no note)."""
        return query.join_from(
            entries,
            cls,
            JOIN.LEFT_OUTER,
            attr="guest_note",
            on=(cls.guest == entries.guest) & (cls.org == org),
        )


def tags_of(org_id, guest_ids):
    """{guest id: [Tag, ...] by label} of these guests in the org, in one query (none when no guest given)."""
    found = {}
    if not guest_ids:
        return found
    rows = (
        GuestTag.select(GuestTag.guest, Tag)
        .join(Tag)
        .where(GuestTag.org == org_id, GuestTag.guest.in_(list(guest_ids)))
        .order_by(Tag.label, Tag.id)
    )
    for row in rows:
        found.setdefault(row.guest_id, []).append(row.tag)
    return found


def tagged(entries):
    """The guest ids of `entries` (joined with GuestNote.joined) who have a GuestNote row: the only ones
    whose tags are worth a query."""
    return [entry.guest_id for entry in entries if getattr(entry, "guest_note", None) is not None]


def set_guest(org_id, guest_id, tag_ids, note):
    """Give the guest exactly these tags (ids of the org's) and this note ("" for none) in the org."""
    GuestTag.delete().where(
        GuestTag.org == org_id, GuestTag.guest == guest_id, GuestTag.tag.not_in(list(tag_ids) or [0])
    ).execute()
    if tag_ids:
        rows = [(org_id, guest_id, tag_id) for tag_id in tag_ids]
        GuestTag.insert_many(
            rows, fields=[GuestTag.org, GuestTag.guest, GuestTag.tag]
        ).on_conflict_ignore().execute()
    if tag_ids or note:
        GuestNote.insert(org=org_id, guest=guest_id, note=note, updated_at=utcnow()).on_conflict(
            conflict_target=[GuestNote.org, GuestNote.guest], preserve=[GuestNote.note, GuestNote.updated_at]
        ).execute()
    else:
        GuestNote.delete().where(GuestNote.org == org_id, GuestNote.guest == guest_id).execute()


def forget(org_id, guest_id):
    """Take the guest's tags and note out of the org (erasing a person there); how many rows went."""
    tags = GuestTag.delete().where(GuestTag.org == org_id, GuestTag.guest == guest_id).execute()
    notes = GuestNote.delete().where(GuestNote.org == org_id, GuestNote.guest == guest_id).execute()
    return tags + notes


def move(org_id, old_guest_id, new_guest_id):
    """Move a guest's tags and note in the org to another guest (a guest let in by name linked to their
    platform account), unless that one has some there already."""
    if GuestNote.select().where(GuestNote.org == org_id, GuestNote.guest == new_guest_id).exists():
        forget(org_id, old_guest_id)
        return
    for model in (GuestTag, GuestNote):
        model.update(guest=new_guest_id).where(model.org == org_id, model.guest == old_guest_id).execute()
