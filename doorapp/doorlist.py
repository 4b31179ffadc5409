"""The door list as doors poll it: its ETag (from the list's version), and its rendering, shared by every
door while the ETag is current, with the caches that make a poll cheap.

A list of 2,000 takes tens of milliseconds to render and every door polls it every second, so a rendering
is kept per (database, meetup) and served to every door until a change moves the version on (which change
moves which version: models/audit.EVENTS)."""

import gzip
import io
import json
import threading

from bottle import response

from doorapp.api.door_shapes import DoorList, ListState, guest_tags, meetup_guest_json
from doorapp.api.shapes import Counts
from doorapp.db import db, iso, utcnow
from doorapp.models import MeetupGuest

# (database, meetup id) -> (ETag, JSON, gzipped JSON) of the door list last rendered.
_rendered = {}
_rendering = threading.Lock()  # a changed list is rendered by one thread while the others wait for it
# (database, meetup id) -> ((the org's door lists version, the hour), {guest id: history}): the list's
# history (MeetupGuest.history) is of earlier meetups, so a check-in here leaves it alone; bans, excuses,
# links, finalizing and cancelling in the org move the version on, and the hour brings in meetups whose
# date has passed (only meetups that are over count no-shows). A rendering looks up only the guests it has
# not seen (a walk-in: one row).
_histories = {}
KEPT = 32  # lists kept in each cache; past it, a cache starts again


def tag(version, only=None):
    """The list's ETag: weak, the same for the plain and the gzipped list; of its guests with the tag
    `only` (an id), one of their own."""
    meetup_counter, org_counter = version
    return f'W/"{meetup_counter}.{org_counter}{"" if only is None else f"-{only}"}"'


def etag_matches(header, etag):
    """If-None-Match against our tag (weak comparison, `*` matches anything)."""
    sent = [part.strip().removeprefix("W/") for part in (header or "").split(",")]
    return "*" in sent or etag.removeprefix("W/") in sent


def accepts_gzip(header):
    """Whether an Accept-Encoding header takes gzip (RFC 9110 section 12.5.3; q=0 refuses it)."""
    for part in (header or "").split(","):
        name, _, params = part.partition(";")
        weight = params.replace(" ", "").lower().removeprefix("q=")
        if name.strip().lower() in ("gzip", "x-gzip") and weight not in ("0", "0.", "0.0", "0.00", "0.000"):
            return True
    return False


def body(meetup, etag, accept_encoding, only=None):
    """The door list as JSON, rendered once per ETag; gzipped (a twentieth of the size) for clients that
    take it. `meetup` comes from Meetup.with_list_version(). Of its guests with the tag `only` (an API
    client's question, not a door's poll), rendered for this answer alone."""
    key = (db.database, str(meetup.id))
    with _rendering:
        cached = _rendered.get(key)
        if only is not None:
            data = render(meetup, only)
            cached = (etag, data, gzip.compress(data, 6, mtime=0))
        elif cached is None or cached[0] != etag:
            data = render(meetup)
            if len(_rendered) >= KEPT:
                _rendered.clear()
            cached = _rendered[key] = (etag, data, gzip.compress(data, 6, mtime=0))
    response.content_type = "application/json"
    data = cached[1]
    if accepts_gzip(accept_encoding):
        response.set_header("Content-Encoding", "gzip")
        data = cached[2]
    response.set_header("Content-Length", str(len(data)))
    return io.BytesIO(data)  # sent from the shared rendering as it goes out; waitress copies bytes whole


def render(meetup, tag=None):
    """The list's JSON text: {total, counts, meetup (its state), guests}, of the guests with the tag `tag`
    (an id) when given; called under _rendering."""
    rows = list(MeetupGuest.door_list(meetup))
    history = _history(meetup, [row.guest_id for row in rows])
    tags = guest_tags(meetup.org_id, rows)
    if tag is not None:
        rows = [row for row in rows if any(t["id"] == tag for t in tags.get(row.guest_id, []))]
    guests = [meetup_guest_json(row, history, tags) for row in rows]
    counts = MeetupGuest.counts([meetup.id])[str(meetup.id)]
    state = ListState(  # finalize, cancel and sync change the version
        is_finalized=meetup.is_finalized,
        finalized_at=iso(meetup.finalized_at),
        cancelled_at=iso(meetup.cancelled_at),
        cancel_reason=meetup.cancel_reason,
        last_synced_at=iso(meetup.last_synced_at),
    )
    door_list = DoorList(total=len(guests), counts=Counts(**counts), meetup=state, guests=guests)
    return json.dumps(door_list).encode()


def _history(meetup, guest_ids):
    """{guest id: history} of the list's guests (see _histories); called under _rendering."""
    # An earlier meetup becomes over when its date passes, which moves no version: the hour is part of it
    hour = utcnow().replace(minute=0, second=0, microsecond=0)
    key, version = (db.database, str(meetup.id)), (meetup.list_version[1], hour)
    seen_version, known = _histories.get(key, (None, {}))
    if seen_version != version:
        known = {}
    missing = [i for i in guest_ids if i not in known]
    if missing:
        wanted = missing if len(missing) <= 500 else MeetupGuest.guests_of(meetup.id)  # 500: parameter limits
        found = MeetupGuest.history(meetup.org_id, wanted, meetup.date)
        known.update({i: found.get(i) for i in missing})
    if len(_histories) >= KEPT:
        _histories.clear()
    _histories[key] = (version, known)
    return known
