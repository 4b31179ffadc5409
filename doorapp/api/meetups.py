"""Meetups of an organization: create from a platform URL, list, get, sync, finalize."""

from doorapp.models import MeetupGuest, iso


def meetup_json(meetup, counts=None):
    """API.md's Meetup; pass `counts` from MeetupGuest.counts() when rendering many."""
    counts = counts or MeetupGuest.counts([meetup.id])[str(meetup.id)]
    return {"id": str(meetup.id), "org_id": str(meetup.org_id), "name": meetup.name, "date": iso(meetup.date),
            "platform_url": meetup.platform_url, "is_finalized": meetup.is_finalized,
            "finalized_at": iso(meetup.finalized_at), "created_at": iso(meetup.created_at),
            "last_synced_at": iso(meetup.last_synced_at), "counts": counts}
