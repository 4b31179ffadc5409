"""Typed audit events (API.md's 14 types, GUEST_LINKED and NO_SHOW_EXCUSED) and the one way to write them."""

from enum import StrEnum

from doorapp.models import AuditEvent, door_list_changed


class AuditType(StrEnum):
    CHECK_IN = "CHECK_IN"                      # a guest was checked in (details.forced: a ban was overridden)
    UNDO_CHECK_IN = "UNDO_CHECK_IN"            # a check-in was undone, with a reason
    WALKIN = "WALKIN"                          # a guest was added to a meetup without an RSVP
    GUEST_CREATED = "GUEST_CREATED"            # a guest was registered from the platform (no org)
    BAN = "BAN"                                # a guest was banned in an org, with a reason
    UNBAN = "UNBAN"                            # a ban was lifted
    MEETUP_CREATED = "MEETUP_CREATED"          # a meetup was created from a platform URL
    MEETUP_SYNCED = "MEETUP_SYNCED"            # a meetup's RSVP list was synchronised (details: the counts)
    MEETUP_FINALIZED = "MEETUP_FINALIZED"      # check-ins and syncs were closed
    MEETUP_UNFINALIZED = "MEETUP_UNFINALIZED"  # check-ins and syncs were reopened
    MEMBER_ADDED = "MEMBER_ADDED"              # a user joined an org (details: user, role)
    MEMBER_ROLE_CHANGED = "MEMBER_ROLE_CHANGED"  # a member's org role changed (details: user, old, new)
    MEMBER_REMOVED = "MEMBER_REMOVED"          # a user left an org (details: user)
    ORG_UPDATED = "ORG_UPDATED"                # an org's name or slug changed (details: the changes)
    GUEST_LINKED = "GUEST_LINKED"              # a guest let in by name was linked to a platform account
    #                                            (guest: the platform guest; details: local_id, moved counts)
    NO_SHOW_EXCUSED = "NO_SHOW_EXCUSED"        # an admin excused a guest's absence, with a reason


# Events that change one meetup's door list, and those that change every door list of their org. (CHECK_IN and
# MEETUP_SYNCED count theirs in the UPDATE of the meetup they already make: Meetup.next_arrival_order and
# api/meetups.apply_sync. The hot path keeps its statement count.)
MEETUP_LIST_CHANGES = {AuditType.UNDO_CHECK_IN, AuditType.WALKIN, AuditType.MEETUP_FINALIZED,
                       AuditType.MEETUP_UNFINALIZED}
ORG_LISTS_CHANGES = {AuditType.BAN, AuditType.UNBAN, AuditType.NO_SHOW_EXCUSED, AuditType.GUEST_LINKED}


def record(event_type, actor, org=None, meetup=None, guest=None, reason=None, **details):
    """Write one event; call it after the change, inside the same transaction. A change of door lists moves
    their version on here (door_list_changed), in that transaction: every such change writes its event."""
    org_id, meetup_id = getattr(org, "id", org), getattr(meetup, "id", meetup)
    if event_type in MEETUP_LIST_CHANGES:
        door_list_changed(meetup_id=meetup_id)
    elif event_type in ORG_LISTS_CHANGES:
        door_list_changed(org_id=org_id)
    AuditEvent.record(AuditType(event_type).value, getattr(actor, "id", actor), org_id, meetup_id,
                      getattr(guest, "platform_user_id", guest), reason, details)
