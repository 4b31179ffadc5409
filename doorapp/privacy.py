"""Retention: each organization keeps what it knows of guests only as long as its privacy settings say
(docs/api.md, "Data protection"). `serve` forgets what is older at start, before it answers anyone, and
then every hour in the process that runs the chores (doorapp.backup's Periodic; with `--workers`, the
parent). What is forgotten, and how: doorapp.models.privacy."""

import logging
from collections import Counter

from peewee import DatabaseError

from doorapp.backup import Periodic
from doorapp.db import close_for_good, utcnow, write
from doorapp.models import AuditType, Org, audit
from doorapp.models.privacy import forget_some

log = logging.getLogger("doorapp.privacy")
HOURLY = 60 * 60  # seconds between two retention passes of a running Door


def apply_retention(now=None):
    """Forget, org by org, what each keeps no longer at `now`, a batch per write transaction (doors write
    between them), and write one RETENTION_APPLIED of what it forgot in each org that had something to
    forget. {org id: {entries, guests_deleted, bans, events}} of those orgs."""
    now = now or utcnow()
    done = {}
    for org in Org.select().order_by(Org.created_at, Org.id):
        forgotten = Counter()
        while True:
            with write():
                batch = forget_some(org, now)
            if not any(batch.values()):
                break
            forgotten.update(batch)
        if forgotten:
            totals = {key: forgotten[key] for key in ("entries", "guests_deleted", "bans", "events")}
            with write():
                audit.record(AuditType.RETENTION_APPLIED, None, org=org.id, **totals)
            done[org.id] = totals
    return done


def retain():
    """One retention pass, told in the log; a database that fails it is told too, and the pass comes again
    at the next hour. This thread's connection is closed afterwards: a worker forked by `serve --workers`
    must not inherit it."""
    try:
        for org_id, totals in apply_retention().items():
            told = ", ".join(f"{n} {what}" for what, n in totals.items())
            log.info("retention in org %s forgot %s", org_id, told)
    except DatabaseError:
        log.exception("retention failed; it runs again within the hour")
    finally:
        close_for_good()


class Retention(Periodic):
    """`serve`'s retention: a pass as it starts (in the caller's thread, so before `serve` answers anyone),
    then one every hour."""

    def __init__(self, every=HOURLY):
        super().__init__("door-retention", every, retain)

    def start(self):
        retain()
        super().start()
