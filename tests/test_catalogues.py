"""The browser app's words (doorapp/static/locales/*.js) cannot drift: every language has every key with the
same placeholders, every key the code asks for exists, every key exists because the code (or the API's list
of codes and event types) asks for it. The rendered screens are scanned for English in tests/browser."""

import json
import re
from pathlib import Path

import pytest

from doorapp.api.events import PEOPLE_COLUMNS as EVENT_COLUMNS
from doorapp.api.imports import ImportNames
from doorapp.api.summary import PEOPLE_COLUMNS
from doorapp.errors import CODES
from doorapp.imports.decode import FOUND
from doorapp.imports.formats import FORMATS, PROBLEMS, STATUSES
from doorapp.models import AuditType
from doorapp.models.audit import EVENTS
from doorapp.models.tags import COLORS

STATIC = Path(__file__).resolve().parents[1] / "doorapp" / "static"
LANGUAGES = sorted(p.stem for p in (STATIC / "locales").glob("*.js"))
# A string literal that names a catalogue key ("door.checkIn"), or a key built at run time (`event.${type}`).
KEY = re.compile(r"[\"'`]([a-z][a-zA-Z]*(?:\.[a-zA-Z0-9_]+)+)[\"'`]")
BUILT = re.compile(r"`([a-z][a-zA-Z]*(?:\.[a-zA-Z]+)*)\.\$\{")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# Keys made at run time from the API's own lists, or from the app's small fixed sets.
BUILT_FROM = {
    "error": set(CODES) | {"network_error", "http", "account_changed"},
    "event": {t.value for t in AuditType},
    "door.pending": {"checkin", "undo", "exit", "reenter"},
    "color": set(COLORS),  # a tag's colour (doorapp/models/tags.py)
    # an import's report (docs/api.md): its format, statuses, problem kinds, counts, column roles, names
    "import.format": set(FORMATS),
    "import.status": set(STATUSES),
    "import.problem": set(PROBLEMS),
    "import.found": set(FOUND),
    "import.count": {
        "expected",
        "waitlisted",
        "not_expected",
        "added",
        "cancelled",
        "updated",
        "unchanged",
        "kept",
        "checked_in",
    },
    "import.role": {"id", "email", "status", "guests"},
    "import.who": set(ImportNames.__annotations__),
    # the detail keys each audit type declares (a detail an older version wrote shows as it comes)
    "detail": {key for event in EVENTS.values() for key in event.details},
    # a CSV made for people (doorapp/spreadsheet.py): its column names and its word for yes
    "csv": {*PEOPLE_COLUMNS, *EVENT_COLUMNS, "yes"},
}


def catalogue(language):
    """A catalogue file is `export default {...};` around a JSON object."""
    text = (STATIC / "locales" / f"{language}.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("export default") + len("export default") : text.rindex(";")])


def placeholders(value):
    forms = value.values() if isinstance(value, dict) else [value]
    return set().union(*(PLACEHOLDER.findall(form) for form in forms))


def code():
    app = [p for p in STATIC.rglob("*.js") if p.relative_to(STATIC).parts[0] not in ("locales", "swagger-ui")]
    sources = {p.relative_to(STATIC).as_posix(): p.read_text(encoding="utf-8") for p in app}
    used = {key for name, text in sources.items() for key in KEY.findall(text) if not key.endswith(".js")}
    built = {prefix for text in sources.values() for prefix in BUILT.findall(text)}
    return used, built


def test_there_are_english_and_spanish():
    assert LANGUAGES == ["en", "es"]


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_language_has_every_key_with_the_same_placeholders(language):
    english, other = catalogue("en"), catalogue(language)
    assert sorted(set(english) - set(other)) == [], f"missing in {language}"
    assert sorted(set(other) - set(english)) == [], f"only in {language}"
    for key, value in english.items():
        assert placeholders(other[key]) == placeholders(value), key
        if isinstance(other[key], dict):
            assert "other" in other[key], key


def test_every_key_the_code_uses_is_in_the_catalogue():
    english = catalogue("en")
    used, built = code()
    assert sorted(used - set(english)) == []
    for prefix in built:
        assert prefix in BUILT_FROM or prefix in ("field", "role"), f"`{prefix}.${{...}}`: where from?"
    for prefix, names in BUILT_FROM.items():
        assert sorted(n for n in names if f"{prefix}.{n}" not in english) == [], prefix


def test_every_key_in_the_catalogue_is_used(client):
    used, built = code()
    unused = []
    for key in catalogue("en"):
        prefix, _, name = key.rpartition(".")
        if key in used or name in BUILT_FROM.get(prefix, ()):
            continue
        if prefix == "field" and "field" in built and name in body_fields(client):
            continue  # the label of a field a 422 names
        unused.append(key)
    assert unused == []


def body_fields(client):
    """Every property of every request body the API declares (the names a 422's `loc` can end with)."""
    document = client.get("/openapi.json").json
    names = set()
    for path in document["paths"].values():
        for operation in path.values():
            for media in operation.get("requestBody", {}).get("content", {}).values():
                names |= set(media["schema"].get("properties", {}))
    return names


def test_every_error_code_of_the_api_speaks_every_language():
    for language in LANGUAGES:
        words = catalogue(language)
        assert sorted(c for c in CODES if f"error.{c}" not in words) == [], language
