"""The house's layout, kept true: module sizes, import directions, no import circle, every audit type in
one version bucket, no test module importing another, docs/architecture.md naming only files that exist.
Each check is a table or a small function over `MODULES`, so another part (the browser app's) adds its own
beside them."""

import ast
import re
from pathlib import Path

import pytest

from doorapp.models import AuditType
from doorapp.models.audit import EVENTS, Moves

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "doorapp"
MAX_LINES = 400


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def imports(name):
    """The doorapp modules `name` imports (at any depth of its code, lazy imports included)."""
    path, found = MODULES[name], set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base])
            found |= {
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names
            }
    return {m for m in found if m in MODULES and m != name}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_400_lines(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines: split it by what its parts are about"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith(("doorapp.models", "doorapp.db"))))
def test_the_database_layer_imports_no_api(name):
    assert {m for m in imports(name) if m.startswith("doorapp.api")} == set()


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("doorapp.api.")))
def test_an_api_module_imports_only_init_and_shapes_of_its_siblings(name):
    siblings = {m for m in imports(name) if m.startswith("doorapp.api.")}
    assert siblings <= {"doorapp.api.shapes", "doorapp.api.door_shapes"} - {name}, (
        f"{name} imports {siblings}: share through api/__init__ or a model"
    )


def test_the_platforms_and_migrations_import_no_handler_module():
    for name in [m for m in MODULES if m.startswith("doorapp.platforms")] + ["doorapp.migrations"]:
        assert {m for m in imports(name) if m.startswith("doorapp.api")} == set(), name


def test_there_is_no_import_circle():
    graph = {name: imports(name) for name in MODULES}
    # a package's __init__ importing its own submodules is how it exports them, not a circle
    graph = {name: {m for m in deps if not m.startswith(name + ".")} for name, deps in graph.items()}
    done, path = set(), []

    def visit(name):
        if name in path:
            pytest.fail("import circle: " + " -> ".join(path[path.index(name) :] + [name]))
        if name in done:
            return
        path.append(name)
        for dependency in sorted(graph[name]):
            visit(dependency)
        path.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)


def test_every_audit_type_is_in_exactly_one_version_bucket():
    buckets = {moves: {t for t, event in EVENTS.items() if event.moves is moves} for moves in Moves}
    assert sorted(t for members in buckets.values() for t in members) == sorted(AuditType)


TESTS = ROOT / "tests"


def imported_names(path):
    """Every module name `path` imports, as written (`from tests import test_x` as tests.test_x)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names |= {base} | {f"{base}.{alias.name}".lstrip(".") for alias in node.names}
    return names


def test_no_test_module_imports_another():
    """What tests share lives in helper modules (tests/helpers.py, tests/browser/support.py, tests/doors.py,
    the fakes, conftest's fixtures): a test module imported by another runs its tests' imports twice and
    ties the two together."""
    test_modules = {path.stem for path in TESTS.rglob("test_*.py")}
    found = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in TESTS.rglob("*.py")
        for name in imported_names(path)
        if test_modules & set(name.split("."))
    }
    assert found == set()


ARCHITECTURE = ROOT / "docs" / "architecture.md"
# where docs/architecture.md's names are written from: the repository, the package, the browser app
NAMED_FROM = (ROOT, PACKAGE, PACKAGE / "static")


def named_paths(text):
    """The file and folder names in backticks (`api/auth.py`, `core/`, `.ci/run`), not URLs (`/auth/`)."""
    names = re.findall(r"`([^`\s]+)`", text)
    return sorted(
        {
            n
            for n in names
            if not n.startswith(("/", ".../", "#")) and re.search(r"/|\.(py|js|css|md|html)$", n)
        }
    )


def test_every_file_the_architecture_page_names_exists():
    names = named_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    story = {"api/meetup_guests.py", "models/meetup_guests.py", "access/tokens.py", "core/queue.js"}
    assert story <= set(names)  # the check-in's story and the browser app's table are read
    missing = [n for n in names if not any((b / n).exists() or (b / f"{n}.py").exists() for b in NAMED_FROM)]
    assert missing == []
