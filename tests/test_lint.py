"""The house style's mechanical part: ruff (pyflakes, pycodestyle) over the whole tree."""

import subprocess
import sys
from pathlib import Path


def test_ruff_finds_nothing():
    root = Path(__file__).parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
