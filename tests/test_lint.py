"""The house style's mechanical part over the whole tree: ruff's checks (pyproject.toml selects them:
pyflakes, pycodestyle, import order, pyupgrade, bugbear, simplify, complexity at most 10) and its format;
and over the browser app's JavaScript (doorapp/static, Swagger UI aside), ESLint's checks (eslint.config.mjs:
the same complexity ceiling, undefined and unused names, strict equality) and Prettier's format
(.prettierrc.json: the same line length). No line of the browser app's own files (JavaScript, CSS, templates;
the catalogues' sentences aside) is longer than that, comments and strings included.

ESLint and Prettier are installed from the npm registry at the versions below (.ci/run does it, as it does
Redocly's CLI) and found at DOOR_ESLINT and DOOR_PRETTIER (or on PATH). Without them their tests are skipped
with the command that installs them; with DOOR_REQUIRE_ESLINT=1 and DOOR_REQUIRE_PRETTIER=1 (CI) a missing
one fails them."""

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
STATIC = ROOT / "doorapp" / "static"
TEMPLATES = ROOT / "doorapp" / "templates"
ESLINT_VERSION = "10.15.0"  # .ci/run installs these
PRETTIER_VERSION = "3.10.1"


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def browser_code():
    """The browser app's modules, as paths from the root; Swagger UI is vendored."""
    return sorted(
        str(path.relative_to(ROOT))
        for path in STATIC.rglob("*.js")
        if path.relative_to(STATIC).parts[0] != "swagger-ui"
    )


def browser_files():
    """Every file of the browser app that is ours: its modules, its styles, and the pages and service worker
    Door fills in (doorapp/templates). The catalogues (locales/) are data, not code: JSON that spreadsheet.py
    reads too, a sentence to a line, as translators see them."""
    styles = (path for path in STATIC.rglob("*.css") if path.relative_to(STATIC).parts[0] != "swagger-ui")
    code = [path for path in browser_code() if "/locales/" not in path]
    return code + sorted(str(path.relative_to(ROOT)) for path in [*styles, *TEMPLATES.iterdir()])


def test_no_line_of_the_browser_app_is_longer_than_the_python_side_allows():
    """Prettier wraps the code at this width but not comments, strings or the CSS: this holds every line,
    in plain Python (it needs no npm)."""
    width = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["line-length"]
    assert json.loads((ROOT / ".prettierrc.json").read_text())["printWidth"] == width
    long = [
        f"{path}:{number}: {len(line)} characters"
        for path in browser_files()
        for number, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > width
    ]
    assert long == [], f"{len(long)} lines past {width} characters:\n" + "\n".join(long)


def node_tool(name, version):
    """The path of an npm-installed tool at DOOR_<NAME> or on PATH, at the pinned version."""
    variable = f"DOOR_{name.upper()}"
    found = os.environ.get(variable) or shutil.which(name)
    if not (found and Path(found).exists()):
        if os.environ.get(f"DOOR_REQUIRE_{name.upper()}") == "1":
            pytest.fail(f"DOOR_REQUIRE_{name.upper()}=1 but no {name} at {variable} or on PATH")
        pytest.skip(
            f"{name} not installed (npm install {name}@{version}; {variable}=its node_modules/.bin/{name})"
        )
    run = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip().lstrip("v") == version, f"{found} is {run.stdout.strip()}, not {version}"
    return found


def test_eslint_finds_nothing_in_the_browser_code():
    run = subprocess.run(
        [node_tool("eslint", ESLINT_VERSION), "--format", "json", "doorapp/static"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(run.stdout)
    assert sorted(str(Path(file["filePath"]).relative_to(ROOT)) for file in report) == browser_code()
    found = [
        f"{Path(file['filePath']).relative_to(ROOT)}:{said['line']} {said['message']} ({said['ruleId']})"
        for file in report
        for said in file["messages"]
    ]
    assert found == [], "\n".join(found)
    assert run.returncode == 0, run.stderr


def test_eslint_holds_the_browser_code_to_the_python_complexity_ceiling():
    run = subprocess.run(
        [node_tool("eslint", ESLINT_VERSION), "--print-config", "doorapp/static/app.js"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    ceiling = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]["mccabe"]
    assert json.loads(run.stdout)["rules"]["complexity"] == [2, ceiling["max-complexity"]]


def test_prettier_changes_nothing_in_the_browser_code():
    run = subprocess.run(
        [node_tool("prettier", PRETTIER_VERSION), "--check", *browser_code()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
