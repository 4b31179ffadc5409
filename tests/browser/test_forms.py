"""Forms take their limits from the server's OpenAPI document (a limit is declared once, on the server), and a
422 is worded by the app from each entry's machine-readable `type` and `ctx`, in the user's language."""

import json

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SPANISH = "es-ES"


def attributes(page, selector):
    return page.locator(selector).evaluate("(e) => [e.minLength, e.maxLength, e.getAttribute('pattern')]")


def test_the_registration_form_has_the_limits_the_server_declares(browser):
    page = browser.page(path="/#/register")
    expect(page.get_by_role("heading", name="Create an account")).to_be_visible()
    assert attributes(page, "input[name=username]") == [1, 64, None]
    assert attributes(page, "input[name=password]") == [15, 128, None]


def test_a_limit_changed_on_the_server_is_the_forms_limit(browser):
    """What a newcomer does: change a limit where the server declares it; the form follows."""
    page = browser.page(path=None)

    def changed(route):
        document = route.fetch().json()
        body = document["paths"]["/auth/register"]["post"]["requestBody"]["content"]["application/json"]
        # the schemas moved to components, as a later version may do: the form follows the $ref
        document.setdefault("components", {}).setdefault("schemas", {})["RegisterIn"] = body["schema"]
        body["schema"] = {"$ref": "#/components/schemas/RegisterIn"}
        body_schema = document["components"]["schemas"]["RegisterIn"]
        body_schema["properties"]["username"]["maxLength"] = 40
        body_schema["properties"]["password"] |= {"minLength": 20, "pattern": "[^ ]+"}
        route.fulfill(json=document)

    page.route("**/openapi.json", changed)
    page.goto("/#/register")
    expect(page.get_by_role("heading", name="Create an account")).to_be_visible()
    assert attributes(page, "input[name=username]") == [1, 40, None]
    assert attributes(page, "input[name=password]") == [20, 128, "[^ ]+"]


# Every kind of 422 entry the server sends: (entry, how a Spanish screen words it).
ENTRIES = [
    ({"loc": ["body", "username"], "type": "missing", "ctx": {}}, "Nombre de usuario: falta"),
    (
        {"loc": ["body", "reason"], "type": "type", "ctx": {"expected": "string"}},
        "Motivo: tiene que ser texto",
    ),
    ({"loc": ["body", "reason"], "type": "blank", "ctx": {}}, "Motivo: no puede estar vacío"),
    (
        {"loc": ["body", "password"], "type": "too_short", "ctx": {"min": 15}},
        "Contraseña: tiene que tener al menos 15 caracteres",
    ),
    (
        {"loc": ["body", "username"], "type": "too_long", "ctx": {"max": 64}},
        "Nombre de usuario: puede tener como mucho 64 caracteres",
    ),
    (
        {"loc": ["body", "slug"], "type": "pattern", "ctx": {"pattern": "[a-z0-9-]{2,64}"}},
        "Identificador: no tiene el formato correcto",
    ),
    (
        {"loc": ["query", "limit"], "type": "too_small", "ctx": {"min": 1}},
        "limit: tiene que ser como mínimo 1",
    ),
    (
        {"loc": ["query", "limit"], "type": "too_large", "ctx": {"max": 200}},
        "limit: puede ser como mucho 200",
    ),
    (
        {"loc": ["body", "role"], "type": "choice", "ctx": {"choices": ["STAFF", "ADMIN"]}},
        "role: tiene que ser uno de estos: STAFF, ADMIN",
    ),
    (
        {"loc": ["query", "since"], "type": "datetime", "ctx": {}},
        "since: tiene que ser una fecha y hora como 2026-11-21T19:04:05Z, o una fecha",
    ),
    (
        {"loc": ["body", "username"], "type": "invalid", "ctx": {"rule": "visible_name"}},
        "Nombre de usuario: no puede contener espacios ni caracteres invisibles, de control o de formato",
    ),
    (
        {"loc": ["body", "username"], "type": "invalid", "ctx": {"rule": "no_leading_mark"}},
        "Nombre de usuario: no puede empezar por un signo diacrítico suelto",
    ),
    (
        {"loc": ["body", "reason"], "type": "invalid", "ctx": {"rule": "control_characters"}},
        "Motivo: no puede contener caracteres de control",
    ),
    (
        {"loc": ["body", "username"], "type": "invalid", "ctx": {"rule": "username_confusable"}},
        "Nombre de usuario: no puede mezclar alfabetos, como un nombre que imita a otro "
        "(rооt con o cirílica); escríbelo en un solo alfabeto",
    ),
    # a rule this version has no words for: the server's own sentence
    (
        {"loc": ["body", "username"], "type": "invalid", "ctx": {"rule": "something_new"}},
        "Nombre de usuario: Must be something new.",
    ),
]


@pytest.mark.parametrize(("entry", "spanish"), ENTRIES, ids=[f"{e['type']}-{e['ctx']}" for e, _ in ENTRIES])
def test_a_validation_entry_is_worded_from_its_type_and_limits(browser, entry, spanish):
    page = browser.page(locale=SPANISH, path="/#/signin")
    expect(page.get_by_role("heading", name="Iniciar sesión")).to_be_visible()
    problem = {
        "code": "validation_error",
        "status": 422,
        "detail": "The request is not valid.",
        "errors": [{**entry, "msg": "Must be something new."}],
    }
    worded = page.evaluate(
        """async (problem) => {
      const { problemText } = await import("/static/core/i18n.js");
      return problemText(problem);
    }""",
        problem,
    )
    assert worded == spanish, json.dumps(entry)


def test_a_password_too_short_is_refused_in_spanish_with_the_servers_limit(browser):
    """Waits for the server's machine-readable 422 (`type`, `ctx`): until then it shows the English msg."""
    page = browser.page(locale=SPANISH, path="/#/register")
    page.get_by_label("Nombre de usuario").fill("nuevo")
    page.locator("input[name=password]").fill("corta")
    page.locator("input[name=again]").fill("corta")
    page.get_by_role("button", name="Crear la cuenta").click()
    expect(page.get_by_role("alert")).to_contain_text("Contraseña: tiene que tener al menos 15 caracteres")
