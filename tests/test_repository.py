"""The repository stands alone: every document its files name is in it, and the README's "Where things
live" table names every part of the package and nothing that is not there."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MD_NAME = re.compile(r"[\w./-]*\b[\w-]+\.md\b")


# The browser app's files are being reorganized by the browser side (issue 20); they join this check there.
def tracked_text_files():
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in names.split():
        path = ROOT / name
        if "swagger-ui" in name or not path.is_file():
            continue
        try:
            yield name, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def test_every_markdown_document_named_is_in_the_repository():
    missing = []
    for name, text in tracked_text_files():
        here = (ROOT / name).parent
        for mention in set(MD_NAME.findall(text)):
            candidates = [here / mention, ROOT / mention, ROOT / "docs" / mention]
            if not any(c.resolve().is_file() for c in candidates):
                missing.append(f"{name}: {mention}")
    assert missing == []


def where_things_live():
    """The README table's paths: {path: what}."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.M)
    return {path: what for cell, what in rows for path in re.findall(r"`([^`]+)`", cell)}


def test_the_readme_table_names_only_paths_that_exist():
    table = where_things_live()
    assert table and [path for path in table if not (ROOT / path).exists()] == []


def test_the_readme_table_names_every_part_of_the_package():
    table = where_things_live()
    parts = {
        f"doorapp/{p.name}" + ("/" if p.is_dir() else "")
        for p in (ROOT / "doorapp").iterdir()
        if p.name not in ("__init__.py", "__pycache__")
    }
    assert sorted(parts - set(table)) == []
