"""The key that signs tokens (HS256): where it lives, telling keys apart unseen, and `doorapp rotate-key`.

- SQLite: `<data dir>/secret.key` (mode 0600), made on first start; the processes of `serve --workers`
  share the folder.
- PostgreSQL: the database (models.SigningKey, one row), made by the first Door to start on it, in one
  transaction, so every machine that reaches the database signs and verifies alike with nothing copied by
  hand.
- DOOR_SECRET_KEY, when set, wins on both. On PostgreSQL the database then keeps only the key's
  fingerprint, and a machine whose key differs from the one its database's machines use refuses to start.

A token names its key (header `kid`, from the fingerprint). A token of another key makes a process read
the key again (another machine rotated it), so the new key's tokens are good everywhere at once. Rotating
also ends every account's sessions and every door pass in the database, which every request reads: no
machine honours an earlier token, even before it has read the new key.
"""

import contextlib
import hashlib
import hmac
import logging
import os
import re
import secrets
from pathlib import Path

from doorapp.db import exclusive, is_sqlite, write
from doorapp.errors import ApiError
from doorapp.models import AuditType, DoorPass, SigningKey, User, audit

log = logging.getLogger("doorapp")
KEY_FORM = re.compile(r"[A-Za-z0-9_-]{64}\n?")  # secrets.token_urlsafe(48): 384 random bits
STALE = "This machine's signing key is no longer the key of its database (doorapp rotate-key ran):"
ROTATED = "Door signs with a new key, and every session has ended: everyone signs in again."


def fingerprint(secret):
    """An HMAC under the key of a fixed text: it tells keys apart and shows no more of a key than any token
    signed with it (an HMAC under the same key) does."""
    return hmac.new(secret.encode(), b"door signing key", hashlib.sha256).hexdigest()


def given(config):
    """DOOR_SECRET_KEY, refused in one line when too short; None when unset."""
    if config.secret_key and len(config.secret_key.encode()) < 32:
        raise SystemExit("DOOR_SECRET_KEY must be at least 32 bytes long.")
    return config.secret_key or None


class Keys:
    """This process's signing key: `secret` and `kid`, read again by refresh() from where it lives."""

    def __init__(self, config):
        self.config, self.stale = config, False
        self.current = (None, None)  # (secret, kid), replaced whole: threads read it without a lock
        self.refresh(starting=True)

    @property
    def secret(self):
        return self.current[0]

    @property
    def kid(self):
        return self.current[1]

    def refresh(self, starting=False):
        """Read the key again (at start: make it when there is none yet, or refuse a mismatch)."""
        env = given(self.config)
        if is_sqlite():
            secret = env or file_key(self.config.data_dir)
        elif starting:
            with exclusive():  # the first Door on the database makes the key; the others read it
                secret = shared_key(env)
        else:
            secret = self._reread(env)
        self.current = (secret, fingerprint(secret)[:16])

    def for_signing(self):
        """(secret, kid) to sign a token with, read again first (another machine may have rotated the key);
        503 on a machine whose key from DOOR_SECRET_KEY is no longer its database's."""
        self.refresh()
        if self.stale:
            raise ApiError(503, "service_unavailable", f"{STALE} it signs no one in until it is restarted.")
        return self.current

    def _reread(self, env):
        row = SigningKey.current()
        if row is None or row.fingerprint == fingerprint(env or self.secret):
            key, stale = self.secret, False
        elif not env and row.secret is not None:  # rotated by another machine: taken up
            key, stale = row.secret, False
        else:  # rotated to a key this machine cannot read: another DOOR_SECRET_KEY, or the database's
            key, stale = self.secret, True
            if not self.stale:
                log.error("%s restart it with the key its database's machines use.", STALE)
        self.stale = stale
        return key


def shared_key(env):
    """The key of the database's machines (made now when there is none), or SystemExit when `env`
    (DOOR_SECRET_KEY) differs from it. Inside exclusive()."""
    row = SigningKey.current()
    if row is None:
        secret = env or secrets.token_urlsafe(48)
        SigningKey.put(None if env else secret, fingerprint(secret))
        return secret
    if env and row.fingerprint != fingerprint(env):
        raise SystemExit(
            "DOOR_SECRET_KEY differs from the signing key of the other machines on this database: set the "
            "same on every machine, or unset it on all (the database keeps the key); nothing was changed."
        )
    if not env and row.secret is None:
        raise SystemExit(
            "The machines on this database sign with a DOOR_SECRET_KEY from their environment: set the "
            "same here, or run `doorapp rotate-key` to have the database keep a new key."
        )
    return env or row.secret


def rotate(config):
    """`doorapp rotate-key`: a new signing key (the one DOOR_SECRET_KEY gives, on PostgreSQL), and every
    session ended; what to tell the user."""
    env = given(config)
    if is_sqlite():
        if env:
            raise SystemExit(
                "DOOR_SECRET_KEY is set, so Door signs with it: change it where it is set and restart Door "
                "(every session ends with it)."
            )
        write_key(Path(config.data_dir) / "secret.key", replace=True)
        with write():
            end_every_session()
        return ROTATED
    with exclusive():
        row = SigningKey.current()
        if env and row is not None and row.fingerprint == fingerprint(env):
            raise SystemExit(
                "DOOR_SECRET_KEY is the key this database's machines use already: set the new key in it "
                "to rotate to that one."
            )
        secret = env or secrets.token_urlsafe(48)
        SigningKey.put(None if env else secret, fingerprint(secret))
        end_every_session()
    if env:
        return (
            f"{ROTATED} Set this DOOR_SECRET_KEY on every machine of this database and restart them: until "
            "then they sign no one in."
        )
    if row is not None and row.secret is None:  # the machines signed with DOOR_SECRET_KEY until now
        return (
            f"{ROTATED} The database keeps the key now: unset DOOR_SECRET_KEY on every machine and restart "
            "them; until then they sign no one in."
        )
    return f"{ROTATED} The other machines of this database take the new key up by themselves."


def end_every_session():
    """Every account's sessions and every door pass end (in the caller's transaction): a lost phone is out
    after one rotation, whatever signed its token, on every machine at its next request."""
    User.end_every_session()
    for door_pass in DoorPass.end_all():
        audit.record(
            AuditType.PASS_REVOKED, None, org=door_pass.org_id, pass_id=door_pass.id, label=door_pass.label
        )


def file_key(data_dir):
    """The key in <data dir>/secret.key, made (mode 0600) when there is none."""
    path = Path(data_dir) / "secret.key"
    if not path.exists():
        write_key(path)
    return read_key(path)


def read_key(path):
    """The signing key in `path`, accepted only in the form write_key() gives it (64 URL-safe characters):
    anything else (NUL bytes, binary, a short or empty key) stops Door with one line, never the key."""
    data = path.read_bytes()
    if not KEY_FORM.fullmatch(data.decode("latin-1")):
        raise SystemExit(
            f"{path} holds no signing key of the form Door writes (64 letters, digits, - or _). Delete "
            f"the file and start Door again to make a new one (everyone signs in again)."
        )
    return data.decode().strip()


def write_key(path, replace=False):
    """A new random key in `path` (mode 0600), durably: written and synced under a name of its own, then
    linked into place, which fails when another process was first (its key is kept), or put in place of
    the old key (`replace`: rotate-key)."""
    draft = path.with_name(f"{path.name}.{os.getpid()}.new")
    try:
        with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as file:
            file.write(secrets.token_urlsafe(48).encode() + b"\n")
            file.flush()
            os.fsync(file.fileno())
        if replace:
            os.replace(draft, path)
        else:
            with contextlib.suppress(FileExistsError):
                os.link(draft, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    finally:
        with contextlib.suppress(FileNotFoundError):  # replaced: the draft is the key now
            os.unlink(draft)
