"""Every problem code a route can answer is declared: OpenAPI lists what the route's declaration implies
(its Rule, path, body, query) and its `errors=`, and this test reads each handler and everything it calls
(with `ast`, through Door's functions, model methods and modules, however deep) and fails on an ApiError
code that the route does not declare, or on a declared code nothing raises."""

import ast
import inspect
import textwrap
import types

import pytest

from doorapp import openapi, platforms
from doorapp.api import ROUTES
from doorapp.errors import ApiError


def _source_tree(function):
    return ast.parse(textwrap.dedent(inspect.getsource(function)))


def _door_function(value):
    """The plain function behind `value` when it is Door's own (a function, method or classmethod)."""
    value = getattr(value, "__func__", value)
    if isinstance(value, types.FunctionType) and value.__module__.startswith("doorapp"):
        return value
    return None


def _resolve(node, names, owner):
    """What a call's callee names: a global function, a module's function, a class's method."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        base = owner if node.value.id in ("cls", "self") else names.get(node.value.id)
        if isinstance(base, (type, types.ModuleType)):
            return getattr(base, node.attr, None)
    return None


def raised_codes(function, seen=None):
    """The codes of every ApiError built by `function` or by Door's functions it calls."""
    seen = set() if seen is None else seen
    if function in seen:
        return set()
    seen.add(function)
    names, owner = function.__globals__, _owner(function)
    codes = set()
    for node in ast.walk(_source_tree(function)):
        if not isinstance(node, ast.Call):
            continue
        callee = _resolve(node.func, names, owner)
        if callee is ApiError:
            codes.add(node.args[1].value)
        elif (called := _door_function(callee)) is not None:
            codes |= raised_codes(called, seen)
    return codes


def _owner(function):
    """The class a method is defined in (for `cls.x` and `self.x`), or None."""
    cls_name = function.__qualname__.rpartition(".")[0]
    return function.__globals__.get(cls_name) if cls_name and "<" not in cls_name else None


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_a_route_declares_every_code_its_handler_raises(route, app):
    [bottle_route] = [r for r in app.routes if r.callback is route.handler]
    found = raised_codes(route.handler)
    assert found - openapi.error_codes(bottle_route) == set()


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_a_route_declares_no_code_nothing_raises(route):
    """The platform's codes are raised by whichever adapter runs: a route that calls it declares them all."""
    declared = set(route.config["errors"]) - set(platforms.ERRORS)
    assert declared - raised_codes(route.handler) == set()


def test_the_walk_follows_calls_into_model_methods():
    """Meetup.open (a model method that calls get_or_404) gives both of its codes to the door's routes."""
    [check_in] = [r for r in ROUTES if r.path.endswith("/checkin")]
    assert {"not_found", "meetup_finalized", "not_on_list", "already_checked_in"} <= raised_codes(
        check_in.handler
    )
