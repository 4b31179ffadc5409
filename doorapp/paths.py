"""Where Door's files live: bundled resources (read-only) and the data directory (writable)."""

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
