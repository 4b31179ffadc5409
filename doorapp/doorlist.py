"""The door list as doors poll it: its version (the ETag's content), the whole list, and a delta since a
version a door holds.

Every door polls its list every second. A delta (`?since=<version>`) costs what changed: the change
record's index range after that version (models.changes, read in the same snapshot as the rows it names),
those guests' rows, and the counts, counted once per version and shared. The whole list (a first load, a
version too old, a list rebuilt) is rendered once per version and shared by every door, gzipped for those
that take it, with its guests' histories kept across versions (the change record says whose changed).
Both are kept per (database, meetup), for the version last asked; so are the deltas last answered, which
doors polling in step ask for again and again. The guests with one tag (`?tag=`, an API client's question,
not a door's poll) are a whole list of their own, rendered for that answer alone."""

import gzip
import io
import json
import threading

from bottle import response

from doorapp.api.door_shapes import DoorList, ListState, guest_tags, meetup_guest_json
from doorapp.api.shapes import Counts
from doorapp.db import db, is_sqlite, iso
from doorapp.models import MeetupGuest, changes
from doorapp.models.changes import Version

_whole = {}  # (database, meetup id) -> (version text, JSON, gzipped JSON) of the whole list last rendered
# (database, meetup id) -> (Version, {guest id: history}) of the last whole rendering: a history (of earlier
# meetups: MeetupGuest.history) is as costly to read as the list itself, and what changed it since is in the
# change record (the rows of the guests whose history changed; a LIST change, a meetup begun: all of it)
_histories = {}
_counted = {}  # (database, meetup id) -> (version text, total, counts)
_deltas = {}  # (database, meetup id) -> (version text, {since: (JSON, gzipped JSON)})
_rendering = threading.Lock()  # a changed whole list is rendered by one thread while the others wait for it
_counting = threading.Lock()  # taken after _rendering when both are
KEPT = 32  # lists kept in each cache; past it, a cache starts again
DELTAS_KEPT = 64  # deltas kept for a list's current version


def tag(version_text, only=None):
    """The list's ETag: weak, the same for the plain and the gzipped list, and for a delta to that version;
    of its guests with the tag `only` (an id), one of their own."""
    return f'W/"{version_text}{"" if only is None else f"-{only}"}"'


def current(meetup_id, list_version):
    """The version text of Meetup.list_version()'s (number, salt, pending)."""
    return Version(*list_version).text(meetup_id)


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


def snapshot():
    """The read transaction a door list is read in: one moment of the database throughout, so its version,
    what changed and the rows agree (PostgreSQL's READ COMMITTED reads each statement's own moment; a
    SQLite read transaction is one already)."""
    return db.atomic() if is_sqlite() else db.atomic(isolation_level="REPEATABLE READ")


def body(meetup, since, accept_encoding, only=None):
    """The door list's answer, sent with its ETag: a delta since the version text `since` where the change
    record can say what changed since, else the whole list; of the guests with the tag `only` (an id), the
    whole list of them. `meetup` comes from Meetup.with_list_version(), read in the snapshot (snapshot())
    the rest is read in."""
    now = Version(*meetup.list_version)
    version = now.text(meetup.id)
    held = since and only is None and Version.read(since, meetup.id)
    changed = changes.since(meetup.id, held, now) if held else None
    if only is not None:
        plain, gzipped = tagged(meetup, version, only)
    else:
        plain, gzipped = whole(meetup, version) if changed is None else delta(meetup, version, since, changed)
    response.set_header("ETag", tag(version, only))
    response.content_type = "application/json"
    data = plain
    if accepts_gzip(accept_encoding):
        response.set_header("Content-Encoding", "gzip")
        data = gzipped
    response.set_header("Content-Length", str(len(data)))
    return io.BytesIO(data)  # sent from the shared rendering as it goes out; waitress copies bytes whole


def whole(meetup, version):
    """(JSON, gzipped JSON) of the whole list at `version`, rendered once per version."""
    key = (db.database, str(meetup.id))
    with _rendering:
        cached = _whole.get(key)
        if cached is None or cached[0] != version:
            rows = list(MeetupGuest.door_list(meetup))
            history = _history(meetup, [row.guest_id for row in rows])
            tags = guest_tags(meetup.org_id, rows)
            data = _json(meetup, version, True, [meetup_guest_json(row, history, tags) for row in rows], [])
            cached = _kept(_whole, key, (version, data, gzip.compress(data, 6, mtime=0)))
    return cached[1:]


def tagged(meetup, version, only):
    """(JSON, gzipped JSON) of the whole list of the guests with the tag `only` (an id)."""
    rows = list(MeetupGuest.door_list(meetup))
    tags = guest_tags(meetup.org_id, rows)
    rows = [row for row in rows if any(tag["id"] == only for tag in tags.get(row.guest_id, []))]
    history = MeetupGuest.history(meetup.org_id, [row.guest_id for row in rows], meetup.date) if rows else {}
    guests = [meetup_guest_json(row, history, tags) for row in rows]
    data = _json(meetup, version, True, guests, [], total=len(guests))
    return data, gzip.compress(data, 6, mtime=0)


def _history(meetup, guest_ids):
    """{guest id: history} of the list's guests, those the change record says nothing of since the last
    rendering kept from it; called under _rendering."""
    key, now = (db.database, str(meetup.id)), Version(*meetup.list_version)
    seen, known = _histories.get(key, (None, {}))
    changed = changes.since(meetup.id, seen, now) if seen else None
    known = {} if changed is None else {i: h for i, h in known.items() if i not in changed}
    missing = [i for i in guest_ids if i not in known]
    if missing:
        wanted = missing if len(missing) <= 500 else MeetupGuest.guests_of(meetup.id)  # 500: parameter limits
        found = MeetupGuest.history(meetup.org_id, wanted, meetup.date)
        known.update({i: found.get(i) for i in missing})
    _kept(_histories, key, (now, known))
    return known


def delta(meetup, version, since, changed):
    """(JSON, gzipped JSON) of what changed since the version text `since`: the rows of the guests
    `changed` names that are on the list, and `removed`, those that are not."""
    key = (db.database, str(meetup.id))
    kept_version, answers = _deltas.get(key, (None, {}))
    if kept_version == version and since in answers:
        return answers[since]
    ids = sorted(changed)
    chunks = (ids[i : i + 500] for i in range(0, len(ids), 500))  # 500: parameter limits
    rows = [
        row for chunk in chunks for row in MeetupGuest.door_list(meetup).where(MeetupGuest.guest.in_(chunk))
    ]
    history = MeetupGuest.history(meetup.org_id, [row.guest_id for row in rows], meetup.date) if rows else {}
    tags = guest_tags(meetup.org_id, rows)
    removed = sorted(changed - {row.guest_id for row in rows})
    data = _json(meetup, version, False, [meetup_guest_json(row, history, tags) for row in rows], removed)
    answer = (data, gzip.compress(data, 6, mtime=0))
    if kept_version != version or len(answers) >= DELTAS_KEPT:
        answers = {}
    answers[since] = answer
    _kept(_deltas, key, (version, answers))
    return answer


def _json(meetup, version, full, guests, removed, total=None):
    """The answer's JSON text: {version, full, total, counts, meetup (its state), guests, removed}; `total`
    the list's, unless given (the guests with one tag)."""
    whole_total, counts = _counts(meetup, version)
    total = whole_total if total is None else total
    state = ListState(  # finalize, cancel and sync change the version
        is_finalized=meetup.is_finalized,
        finalized_at=iso(meetup.finalized_at),
        cancelled_at=iso(meetup.cancelled_at),
        cancel_reason=meetup.cancel_reason,
        last_synced_at=iso(meetup.last_synced_at),
    )
    door_list = DoorList(
        version=version, full=full, total=total, counts=counts, meetup=state, guests=guests, removed=removed
    )
    return json.dumps(door_list).encode()


def _counts(meetup, version):
    """(total, Counts) of the list at `version`, counted once per version (a pass over the whole list's
    rows): every door polls just after a check-in, and one thread counts while the others wait for it."""
    key = (db.database, str(meetup.id))
    cached = _counted.get(key)
    if cached is None or cached[0] != version:
        with _counting:
            cached = _counted.get(key)
            if cached is None or cached[0] != version:
                counts = MeetupGuest.counts([meetup.id], with_total=True)[str(meetup.id)]
                total = counts.pop("total")
                cached = _kept(_counted, key, (version, total, Counts(**counts)))
    return cached[1:]


def _kept(cache, key, value):
    if len(cache) >= KEPT and key not in cache:
        cache.clear()
    cache[key] = value
    return value
