"""Guest lists from files: the exports organizers download (Meetup's attendee list, Luma's guests, any
spreadsheet), read into entries (decode: bytes to cells; formats: cells to entries), and who each entry
is. It knows nothing of HTTP: the API (api/imports.py) and the command line call read() and store."""

import hashlib

from doorapp.imports.decode import MAX_ROWS, Unreadable, table
from doorapp.imports.formats import EXPECTED, NOT_EXPECTED, WAITLISTED, NoHeader, Sheet, recognise

__all__ = ["MAX_ROWS", "Unreadable", "Sheet", "read", "guest_id", "as_rsvps"]
LOCAL_IDS = (
    2**53 - 1
)  # local guests' ids are -1 .. -2**53 (Guest.create_local): JavaScript holds them exactly


def read(data, name_columns=None):
    """The Sheet of a file's bytes; Unreadable when it is no guest list."""
    rows = table(data)
    try:
        return recognise(rows, name_columns)
    except NoHeader as error:
        if error.args:
            raise Unreadable(error.args[0], "no_such_column") from None
        top = next((r for r in rows if any(c.strip() for c in r)), [])
        seen = ", ".join(c.strip()[:30] for c in top[:6] if c.strip()) or "nothing"
        raise Unreadable(
            f"No column of names was found (the first row holds: {seen}). A guest list needs a column "
            "headed Name or Nombre, or First Name and Last Name.",
            "no_name_column",
        ) from None


def guest_id(entry, meetup_ids, org_id):
    """(guest id, is_local) of an entry. A Meetup member is the `meetup` adapter's guest of the same id
    when `meetup_ids` (that adapter runs); anyone else gets a local guest of the importing org, its id
    derived from the org and who they are in the file, so the same or a newer file finds the same guest,
    another org's file never does (a guest let in by name stays in its org), and platform look-ups by id
    never do."""
    if entry.member_id is not None and meetup_ids:
        return entry.member_id, False
    return local_id(org_id, entry.key), True


def local_id(org_id, key):
    """The id of the org's local guest who is `key` (an Entry's) in its files."""
    digest = hashlib.sha256(f"{org_id}\0{key}".encode("utf-8", "surrogatepass")).digest()
    return -1 - int.from_bytes(digest[:8], "big") % LOCAL_IDS


def as_rsvps(sheet, meetup_ids, org_id):
    """(the RSVPs of the entries expected or waitlisted, the profiles of their guests), as models.sync's
    compare() takes them. A file gives no username: a known guest keeps theirs, a new one has none. A
    platform member (a Meetup row, the `meetup` adapter running) keeps the profile the platform gave (one
    not known yet gets an empty one, for a sync or a look-up to fill in): the file's name for them is
    their RSVP's listed name, on this meetup's list alone, so no org's file renames anyone at another's
    door. A row checked in by the file's own door (Luma's checked_in_at) arrives then."""
    rsvps, profiles = [], {}
    for entry in sheet.entries:
        if entry.status == NOT_EXPECTED:
            continue
        gid, local = guest_id(entry, meetup_ids, org_id)
        if local:
            profiles[gid] = (None, entry.name, True, org_id, entry.hint)
        else:
            profiles[gid] = (None, None, False, None, None)
        listed = None if local else entry.name
        rsvps.append(
            (gid, entry.rsvp_time, entry.status == WAITLISTED, entry.guests, listed, entry.checked_in_at)
        )
    return rsvps, profiles


def tally(sheet):
    """{expected, waitlisted, not_expected}: how many of the file's entries are each."""
    found = {EXPECTED: 0, WAITLISTED: 0, NOT_EXPECTED: 0}
    for entry in sheet.entries:
        found[entry.status] += 1
    return found
