"""Where Door's files live: bundled resources (read-only) and the data directory (writable)."""

import os
import sys
from pathlib import Path

FROZEN = getattr(sys, "frozen", False)  # the one-file executable (door.spec) for a club organizer
PROG = "door" if FROZEN else "doorapp"  # the command that starts Door, as --help and the Phones screen say


def resource_dir() -> Path:
    """The package folder: templates/ and static/ (inside the PyInstaller bundle when frozen)."""
    return Path(__file__).resolve().parent


def default_data_dir() -> Path:
    """`door-data` beside the executable when frozen, else in the working directory."""
    if FROZEN:
        return Path(sys.executable).resolve().parent / "door-data"
    return Path("door-data")


def private_dir(path) -> Path:
    """`path` as a folder only its owner can enter (0700): made so, or tightened when it exists."""
    path = Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def private_file(path) -> Path:
    """`path` as a file only its owner can read (0600): created empty so, or tightened when it exists.
    SQLite gives a database's -wal and -shm files the database file's mode."""
    path = Path(path)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)
    return path
