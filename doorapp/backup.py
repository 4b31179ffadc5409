"""Online copies of the SQLite database (SQLite's backup API: safe while the service runs)."""

import sqlite3
from datetime import datetime
from pathlib import Path


def backup(database_path, dest):
    """Copy the database to `dest` (a file, or a folder to put a dated file in); returns the file written."""
    dest = Path(dest)
    if dest.is_dir():
        dest = dest / f"door-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.db"
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".partial")
    source = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(tmp)
        with target:
            source.backup(target)
        target.close()
    finally:
        source.close()
    tmp.replace(dest)
    return dest
