"""No test depends on today's date. The modules whose rules compare a time with now (a door_time's 24 hours,
upcoming or over, a pass's end, a token's or a recovery code's expiry, the log's order) pass with the clock a
year ahead (conftest's DOOR_TEST_DAYS_AHEAD), as they will on a clean checkout next year."""

import os
import subprocess
import sys
import time

import pytest

DATE_SENSITIVE = [
    "tests/test_clock.py::test_the_clock_is_where_the_run_asked",
    "tests/test_attendance.py",
    "tests/test_auth.py",
    "tests/test_door_offline.py",
    "tests/test_door_time.py",
    "tests/test_events.py",
    "tests/test_meetups.py",
    "tests/test_passes.py",
    "tests/test_people_csv.py",
    "tests/test_staff.py",
    "tests/test_upcoming.py",
    "tests/test_walkin_matches.py",
]


@pytest.mark.timeout(900)
def test_the_date_sensitive_modules_pass_with_the_clock_a_year_ahead(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'run'}"]
        + ["-k", "not postgresql", *DATE_SENSITIVE],  # the clock moves in this process: SQLite's half
        cwd=root,
        env={**os.environ, "DOOR_TEST_DAYS_AHEAD": "365"},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout.splitlines()[-1]


def test_the_clock_is_where_the_run_asked(tmp_path):
    """A file's time comes from the kernel, which no test moves: this process's clock is as many days
    ahead of it as DOOR_TEST_DAYS_AHEAD says (none by default)."""
    marker = tmp_path / "now"
    marker.touch()
    ahead = time.time() - marker.stat().st_mtime
    assert abs(ahead - int(os.environ.get("DOOR_TEST_DAYS_AHEAD", "0")) * 86400) < 3600
