"""Passwords and other secrets kept as argon2id hashes: hashing one at a time (a flood waits its turn or is
refused with 429), and verifying in the same time whether the hash exists or not."""

import functools
import threading
from contextlib import contextmanager

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from doorapp.errors import ApiError

# argon2id as OWASP's Password Storage Cheat Sheet first recommends: 19 MiB, 2 passes, 1 lane (~30 ms of one
# core). The library's default (RFC 9106's low-memory one: 64 MiB, 4 lanes) took 64 MiB and both cores per
# hash, and made that the server's peak memory. Hashes made with other parameters still verify, and a
# sign-in replaces them (rehashed()).
hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
# One password hash at a time: a flood of them would take the cores and memory the door's requests need.
# Sign-ins wait their turn; of requests for a new account (anyone can make them) at most two are let in to
# wait, and the others are refused before they cost anything, so the server's threads stay free for the door.
_hashing, _newcomers = threading.Semaphore(1), threading.Semaphore(2)
# Of the server's 8 threads at most 3 wait for the hashing slot, each at most HASH_WAIT seconds; the others
# get 429 at once, so sign-ins (right passwords too) never hold every thread while a door checks in.
_waiting, HASH_WAIT = threading.Semaphore(3), 2.0


def _busy():
    return ApiError(
        429,
        "rate_limited",
        "Door is busy checking passwords; try again in a moment.",
        headers={"Retry-After": "1"},
    )


@contextmanager
def hashing_slot():
    """The one password-hashing slot, waited for a bounded time by a bounded number of threads, else 429."""
    if not _waiting.acquire(blocking=False):
        raise _busy()
    try:
        if not _hashing.acquire(timeout=HASH_WAIT):
            raise _busy()
    finally:
        _waiting.release()
    try:
        yield
    finally:
        _hashing.release()


def hash_secret(secret):
    with hashing_slot():
        return hasher.hash(secret)


@contextmanager
def newcomer():
    """A place among the two new-account requests let in at a time, or 429 at once."""
    if not _newcomers.acquire(blocking=False):
        raise ApiError(
            429,
            "rate_limited",
            "Door is busy with other new accounts; try again in a few seconds.",
            headers={"Retry-After": "2"},
        )
    try:
        yield
    finally:
        _newcomers.release()


@functools.cache
def _dummy_hash():
    """A hash to verify against for unknown names, to spend the same time on them (made when first needed:
    a hash takes 19 MiB while it is made)."""
    return hasher.hash("a password nobody has, to spend the same time on unknown names")


def verify_secret(stored_hash, secret):
    """True when `secret` matches; an absent hash costs the same time as a wrong secret."""
    with hashing_slot():
        try:
            return hasher.verify(stored_hash or _dummy_hash(), secret) and stored_hash is not None
        except (VerificationError, InvalidHashError):
            return False


def rehashed(stored_hash, secret):
    """A new hash of `secret` (just verified against `stored_hash`) when that was made with other
    parameters than `hasher`'s; else None."""
    return hash_secret(secret) if hasher.check_needs_rehash(stored_hash) else None
