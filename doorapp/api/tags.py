"""/organizations/<org_id>/tags: an organization's tags (a label and a colour: "Speaker", "Step-free
entrance"), made by its admins and read by its members; and .../guests/<platform_user_id>/tags, the tags
and short note the organization keeps on a guest, which every door row of its meetups shows."""

from dataclasses import dataclass
from typing import TypedDict

from doorapp.access import org_admin, org_member
from doorapp.api import endpoint
from doorapp.api.door_shapes import GuestTags, guest_tags_json
from doorapp.api.shapes import Tag, tag_json
from doorapp.bodies import text
from doorapp.db import get_or_404
from doorapp.errors import ApiError, invalid, validation_error
from doorapp.models import Org, audit, changes
from doorapp.models import Tag as TagRow
from doorapp.models.audit import AuditType
from doorapp.models.privacy import seen_here
from doorapp.models.tags import COLOR, set_guest

TAGS = "/organizations/<org_id>/tags"
GUEST_TAGS = "/organizations/<org_id>/guests/<platform_user_id>/tags"
MOST_TAGS = 20  # on one guest


class TagList(TypedDict):
    total: int
    tags: list[Tag]


@dataclass
class TagIn:
    label: str = text(max_length=32, doc="What the door shows: Speaker, Step-free entrance, See a host.")
    color: COLOR = "grey"


@dataclass
class TagChangeIn:
    label: str | None = text(max_length=32, default=None, doc="A new label; absent keeps it.")
    color: COLOR | None = None  # a new colour; absent keeps it


def refuse_taken(org_id, label, leaving_out=None):
    """409 tag_exists when the org has a tag of this label already (case aside)."""
    taken = TagRow.named(org_id, label, leaving_out)
    if taken is not None:
        raise ApiError(
            409, "tag_exists", f"This organization has a tag “{taken.label}” already.", tag=tag_json(taken)
        )


def one_tag(org_id, tag_id):
    get_or_404(Org, org_id, "organization")
    return get_or_404(TagRow, tag_id, "tag", org=org_id)


@endpoint("GET", TAGS, auth=org_member, answer=TagList, errors=("not_found",))
def list_tags(org_id):
    """The organization's tags, by label."""
    get_or_404(Org, org_id, "organization")
    tags = [tag_json(tag) for tag in TagRow.of_org(org_id)]
    return TagList(total=len(tags), tags=tags)


@endpoint(
    "POST", TAGS, auth=org_admin, body=TagIn, status=201, answer=Tag, errors=("not_found", "tag_exists")
)
def create_tag(org_id, body, caller):
    """Make a tag of the organization (its label unique in it, case aside), to put on guests."""
    get_or_404(Org, org_id, "organization")
    refuse_taken(org_id, body.label)
    tag = TagRow.create(org=org_id, label=body.label, color=body.color)
    audit.record(AuditType.TAG_CREATED, caller, org=org_id, tag_id=tag.id, label=tag.label, color=tag.color)
    return tag_json(tag)


@endpoint(
    "PATCH",
    TAGS + "/<tag_id>",
    auth=org_admin,
    body=TagChangeIn,
    answer=Tag,
    errors=("not_found", "tag_exists"),
)
def change_tag(org_id, tag_id, body, caller):
    """Rename or recolour a tag: every guest who has it shows the change at the door at once."""
    tag = one_tag(org_id, tag_id)
    before = {"label_before": tag.label, "color_before": tag.color}
    if body.label is not None:
        refuse_taken(org_id, body.label, leaving_out=tag.id)
        tag.label = body.label
    tag.color = body.color or tag.color
    tag.save()
    changes.rows(TagRow.guests(tag.id), org_id)  # their rows, on every list of the org
    audit.record(
        AuditType.TAG_CHANGED, caller, org=org_id, tag_id=tag.id, label=tag.label, color=tag.color, **before
    )
    return tag_json(tag)


@endpoint("DELETE", TAGS + "/<tag_id>", auth=org_admin, status=204, errors=("not_found",))
def delete_tag(org_id, tag_id, caller):
    """Delete a tag, and take it off every guest who had it."""
    tag = one_tag(org_id, tag_id)
    guests = TagRow.guests(tag.id)
    changes.rows(guests, org_id)  # their rows, on every list of the org
    tag.delete_instance()  # its GuestTag rows go with it (ON DELETE CASCADE)
    audit.record(
        AuditType.TAG_DELETED,
        caller,
        org=org_id,
        tag_id=tag.id,
        label=tag.label,
        color=tag.color,
        guests=len(guests),
    )


@dataclass
class GuestTagsIn:
    tags: list[int]  # the ids of the organization's tags the guest has (all of them: the others come off)
    note: str | None = text(
        max_length=200,
        min_length=0,
        default=None,
        doc="A short note every door row of the guest shows (step-free entrance, see a host); empty or "
        "absent for none.",
    )


@endpoint("GET", GUEST_TAGS, auth=org_member, answer=GuestTags, errors=("not_found",))
def get_guest_tags(org_id, platform_user_id):
    """The organization's tags and note on a guest."""
    get_or_404(Org, org_id, "organization")
    guest = seen_here(org_id, platform_user_id)
    return guest_tags_json(org_id, guest.platform_user_id)


@endpoint("PUT", GUEST_TAGS, auth=org_admin, body=GuestTagsIn, answer=GuestTags, errors=("not_found",))
def set_guest_tags(org_id, platform_user_id, body, caller):
    """Set the guest's tags (ids of this organization's; the ones left out come off) and note in the
    organization: every door row of theirs at its meetups shows them, and the check-in says them."""
    get_or_404(Org, org_id, "organization")
    guest = seen_here(org_id, platform_user_id)
    wanted = sorted(set(body.tags))
    tags = {tag.id: tag for tag in TagRow.of_org(org_id).where(TagRow.id.in_(wanted))} if wanted else {}
    unknown = [i for i, tag_id in enumerate(body.tags) if tag_id not in tags]
    if unknown or len(wanted) > MOST_TAGS:
        message = f"Must be the ids of this organization's tags, at most {MOST_TAGS}."
        raise validation_error([invalid(("body", "tags", *unknown[:1]), "invalid", message, rule="org_tags")])
    note = body.note or ""
    set_guest(org_id, guest.platform_user_id, wanted, note)
    labels = sorted(tags[i].label for i in wanted)
    audit.record(AuditType.GUEST_TAGGED, caller, org=org_id, guest=guest, tags=labels, note=note or None)
    return guest_tags_json(org_id, guest.platform_user_id)
