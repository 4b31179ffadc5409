"""The browser app's layout stays as it is meant to be: static/ by role (the shell app.js; core/, door/,
screens/, shared/, locales/, css/), imports that point inward and never in a circle, small modules, no form
limit typed again in the JS, and a service worker that keeps every file of it."""

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[1] / "doorapp" / "static"
VENDORED = "swagger-ui"
ENTRIES = {"app.js", "docs.js"}  # loaded by a page (index.html, docs.html), imported by no module
ROLES = {"core", "door", "screens", "shared", "locales", "css", VENDORED}
# role -> the roles its modules may import from (their own included)
MAY_IMPORT = {
    "core": {"core", "locales"},
    "shared": {"core", "shared"},
    "door": {"core", "shared", "door"},
    "screens": {"core", "shared", "screens"},
    "": {"core", "door", "screens", "shared"},  # the shell
}
MAX_LINES = {"door": 350}  # the door screen's modules; any other module
MAX_LINES_ELSEWHERE = 400
IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']""", re.M
)
DYNAMIC = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")


def modules():
    return sorted(
        p.relative_to(STATIC) for p in STATIC.rglob("*.js") if p.relative_to(STATIC).parts[0] != VENDORED
    )


def role(path):
    return path.parts[0] if len(path.parts) > 1 else ""


def imports(path):
    """The modules `path` imports, as paths under static/."""
    text = (STATIC / path).read_text(encoding="utf-8")
    found = [a or b for a, b in IMPORT.findall(text)] + DYNAMIC.findall(text)
    resolved = []
    for target in found:
        assert target.startswith("./") or target.startswith("../"), f"{path}: {target} is not relative"
        resolved.append(Path((STATIC / path).parent.joinpath(target).resolve().relative_to(STATIC)))
    return resolved


def graph():
    return {path: imports(path) for path in modules() if role(path) != "locales"}


def test_static_holds_only_the_shell_and_the_roles():
    top = {p.name for p in STATIC.iterdir()}
    assert top == ENTRIES | ROLES


def test_every_import_names_a_file_that_exists():
    missing = [
        (str(path), str(target))
        for path, targets in graph().items()
        for target in targets
        if not (STATIC / target).is_file()
    ]
    assert missing == []


def test_the_entry_points_are_imported_by_nothing_and_every_module_by_something():
    imported = {target for targets in graph().values() for target in targets}
    assert {str(p) for p in imported} & ENTRIES == set()
    orphans = [str(p) for p in modules() if str(p) not in ENTRIES and p not in imported]
    assert orphans == []


def test_imports_point_inward():
    wrong = [
        (str(path), str(target))
        for path, targets in graph().items()
        for target in targets
        if role(target) not in MAY_IMPORT[role(path)]
    ]
    assert wrong == []
    # a screen imports no other screen: only helpers of its own (screens/summary-chart.js for summary.js)
    across = [
        (str(path), str(target))
        for path, targets in graph().items()
        for target in targets
        if role(path) == role(target) == "screens" and not target.stem.startswith(path.stem + "-")
    ]
    assert across == []


def test_there_is_no_import_circle():
    edges, done, circles = graph(), set(), []

    def visit(path, trail):
        if path in trail:
            circles.append(" -> ".join(str(p) for p in trail[trail.index(path) :] + [path]))
            return
        if path in done:
            return
        for target in edges.get(path, []):
            visit(target, trail + [path])
        done.add(path)

    for path in edges:
        visit(path, [])
    assert circles == []


@pytest.mark.parametrize("path", modules(), ids=str)
def test_a_module_stays_small(path):
    lines = len((STATIC / path).read_text(encoding="utf-8").splitlines())
    limit = MAX_LINES.get(role(path), MAX_LINES_ELSEWHERE)
    if role(path) != "locales":
        assert lines <= limit, f"{path}: {lines} lines, split it by concern"


def test_no_form_limit_is_typed_in_the_javascript():
    """Limits come from /openapi.json (core/openapi.js): a literal here would be a second copy."""
    literal = re.compile(r"""\b(?:maxlength|minlength|pattern|min|max)\s*:\s*(?:\d|["'])""", re.I)
    typed = [
        f"{path}:{n}"
        for path in modules()
        if role(path) not in ("locales",)
        for n, line in enumerate((STATIC / path).read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line.split("//")[0])
    ]
    assert typed == []


def test_no_screen_knows_a_platform_by_name():
    """GET /platform says what differs (guest_lookup, example_urls); no module compares the adapter's name."""
    named = [
        str(path)
        for path in modules()
        if re.search(r"\badapter\b", (STATIC / path).read_text(encoding="utf-8"))
    ]
    assert named == []


def test_the_door_keys_are_one_table():
    """Every shortcut of the door is a row of door/keys.js's SHORTCUTS; no other module names a key."""
    keys = (STATIC / "door" / "keys.js").read_text(encoding="utf-8")
    assert "export const SHORTCUTS = [" in keys
    key = re.compile(r"[\"'](?:Enter|Escape|ArrowUp|ArrowDown|Backspace)[\"']")
    others = [
        str(p) for p in modules() if p != Path("door/keys.js") and key.search((STATIC / p).read_text("utf-8"))
    ]
    assert others == []


def test_the_service_worker_keeps_every_file_of_the_app(client):
    worker = client.get("/sw.js").text
    shell = set(re.findall(r'"(/static/[^"]+)"', worker))
    files = {
        f"/static/{p.relative_to(STATIC).as_posix()}"
        for p in STATIC.rglob("*")
        if p.is_file() and p.relative_to(STATIC).parts[0] != VENDORED
    }
    assert shell == files
