"""A guest let in by name (not on the platform), and linking them to their platform account once known."""

from peewee import fn

from doorapp.models.guests import Ban, Guest
from doorapp.models.meetup_guests import MeetupGuest
from doorapp.models.meetups import Meetup
from doorapp.models.tags import move as move_tags


def local_guest(org_id, guest_id):
    """The guest let in by name at this org's door with this id, if on a list of one of the org's
    meetups; else None."""
    on_list = (
        MeetupGuest.select()
        .join(Meetup)
        .where(MeetupGuest.guest == Guest.platform_user_id, Meetup.org == org_id)
    )
    return Guest.get_or_none(
        Guest.platform_user_id == guest_id, Guest.is_local, Guest.org == org_id, fn.EXISTS(on_list)
    )


def link_guest(org_id, local, guest):
    """Move a local guest's list entries, ban, tags and note in the org `org_id` (and nowhere else) to
    `guest`, their platform account; None when `guest` is already on one of the same lists (nothing
    moved), else (entries, bans) moved. A ban `guest` already has in the org replaces the local one, and so
    do their tags and note."""
    meetups = Meetup.select(Meetup.id).where(Meetup.org == org_id)
    lists = MeetupGuest.select(MeetupGuest.meetup).where(
        MeetupGuest.guest == local.platform_user_id, MeetupGuest.meetup.in_(meetups)
    )
    if (
        MeetupGuest.select()
        .where(MeetupGuest.guest == guest.platform_user_id, MeetupGuest.meetup.in_(lists))
        .exists()
    ):
        return None
    entries = (
        MeetupGuest.update(guest=guest)
        .where(MeetupGuest.guest == local.platform_user_id, MeetupGuest.meetup.in_(meetups))
        .execute()
    )
    theirs = Ban.guest == local.platform_user_id, Ban.org == org_id
    if Ban.select().where(Ban.guest == guest.platform_user_id, Ban.org == org_id).exists():
        Ban.delete().where(*theirs).execute()
    bans = Ban.update(guest=guest).where(*theirs).execute()
    move_tags(org_id, local.platform_user_id, guest.platform_user_id)
    return entries, bans
