"""Writes and checkpoints of the database that keep failing (a read-only file or folder, a full disk): /health
says `degraded` and what to do once REPEATED fail in a row, and the log says so once, then every LOG_EVERY
seconds, instead of at every try. The counts live in memory shared with the processes `serve --workers`
forks (mapped here, before the fork): the checkpointer runs in the first process, /health in any worker."""

import mmap
import struct
import time

KINDS = ("write", "checkpoint")
REPEATED = 3  # failures in a row before /health says degraded
LOG_EVERY = 600  # seconds between the log's reminders that a failure goes on
_SLOT = struct.Struct("<qd")  # failures in a row, and when the first of them was
_shared = mmap.mmap(-1, _SLOT.size * len(KINDS))  # shared with forked children (MAP_SHARED)
_logged = dict.fromkeys(KINDS, 0.0)  # this process's last log line about each


def _read(kind):
    return _SLOT.unpack_from(_shared, _SLOT.size * KINDS.index(kind))


def failed(kind):
    """Count a failure of `kind`. The failures in a row so far when the caller should log it now (the
    first of a run, or a reminder LOG_EVERY seconds after the last), else 0."""
    count, since = _read(kind)
    now = time.time()
    _SLOT.pack_into(_shared, _SLOT.size * KINDS.index(kind), count + 1, since if count else now)
    if count and now - _logged[kind] < LOG_EVERY:
        return 0
    _logged[kind] = now
    return count + 1


def worked(kind):
    """A success of `kind` ends its run of failures; how many there were (0: there was none)."""
    count, _ = _read(kind)
    if count:
        _SLOT.pack_into(_shared, _SLOT.size * KINDS.index(kind), 0, 0.0)
        _logged[kind] = 0.0
    return count


def trouble():
    """What /health says while writes or checkpoints keep failing, or None."""
    for kind in KINDS:
        count, since = _read(kind)
        if count >= REPEATED:
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since))
            return (
                f"{count} {kind}s of the database in a row have failed since {when}. Check that the disk has "
                "room and that the account running Door can write its data folder and every file in it "
                "(see the log); the door keeps answering reads meanwhile."
            )
    return None
