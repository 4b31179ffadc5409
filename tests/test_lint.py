"""The house style's mechanical part over the whole tree: ruff's checks (pyproject.toml selects them:
pyflakes, pycodestyle, import order, pyupgrade, bugbear, simplify, complexity at most 10) and its format."""

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


def test_ruff_format_changes_nothing():
    root = Path(__file__).parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=root, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
