"""The dumpers compiled from the schemas (service.api.compiled_dumpers) give exactly what the schemas dump.

One generic test holds every schema of the app that is dumped compiled (the responses', found
from the blueprints, and the events') to marshmallow's ``dump``: Hypothesis builds objects from
each schema's own fields, with values no game produces (odd names, naive datetimes, wrong types,
dicts), and the use cases' results with any values. A field type the compiler does not know
fails at start-up, naming the schema and the field.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from datetime import UTC
from types import SimpleNamespace
from typing import Any

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import service.api
from service.api import compiled_dumpers
from service.api.fields import CardField, Itself
from service.api.flask_smorest_overrides import Blueprint
from service.api.resources.events.schemas import EVENT_SCHEMAS
from service.engine import DECK, Card
from service.games import results


def _blueprints() -> list[Blueprint]:
    """Every Blueprint of service.api's modules, its resources' included."""
    found = []
    for module_info in pkgutil.walk_packages(service.api.__path__, "service.api."):
        module = importlib.import_module(module_info.name)
        found += [value for value in vars(module).values() if isinstance(value, Blueprint)]
    return found


def _response_schemas(blueprints: list[Blueprint]) -> dict[type[ma.Schema], ma.Schema]:
    return {type(schema): schema for blueprint in blueprints for schema in blueprint.response_schemas}


RESPONSE_SCHEMAS = _response_schemas(_blueprints())
COMPILED_SCHEMAS = {**RESPONSE_SCHEMAS, **{schema: schema() for schema in EVENT_SCHEMAS.values()}}


def _outcome(dump: Any, obj: Any) -> Any:
    """What ``dump(obj)`` gives, or (the type and text of) what it raises."""
    try:
        return dump(obj)
    except Exception as error:
        return (type(error), str(error))


def assert_same_outcome(schema: ma.Schema, obj: Any) -> None:
    """The compiled dumper and marshmallow give the same dict, or raise the same error."""
    expected = _outcome(lambda o: type(schema).dump(schema, o), obj)
    actual = _outcome(compiled_dumpers.build_dumper(schema), obj)
    assert actual == expected, f"{type(schema).__name__} of {obj!r}"
    assert json.dumps(actual, default=repr) == json.dumps(expected, default=repr), "key order or types differ"


# -- the tests ------------------------------------------------------------------------------


def test_every_view_response_schema_is_compiled(app):
    """The views' documented response schemas are the ones found in the blueprints, each dumped
    by a compiled dumper."""
    documented = set()
    for view in app.view_functions.values():
        view_class = getattr(view, "view_class", None)
        for method in getattr(view_class, "methods", None) or ():
            doc = getattr(getattr(view_class, method.lower()), "_apidoc", {})
            for status in doc.get("success_status_codes", ()):
                for response in doc["response"]["responses"][status]:
                    if isinstance(response, dict) and isinstance(response.get("schema"), ma.Schema):
                        documented.add(type(response["schema"]))
    in_app = _response_schemas([bp for bp in app.blueprints.values() if isinstance(bp, Blueprint)])
    assert documented == set(in_app) == set(RESPONSE_SCHEMAS)
    for schema in in_app.values():
        assert "compiled by service.api.compiled_dumpers" in (schema.dump.__doc__ or ""), type(schema).__name__


# -- objects no game produces -----------------------------------------------------------------

texts = st.text(max_size=8)
ints = st.integers(-(2**40), 2**40)
datetimes = st.datetimes(timezones=st.none() | st.timezones() | st.just(UTC))
cards = st.sampled_from(DECK)
odd = st.none() | st.booleans() | st.floats(allow_nan=False) | st.binary(max_size=4) | st.dates()


def _value(declared: ma.fields.Field[Any], depth: int) -> st.SearchStrategy[Any]:
    """Values for a field: mostly of its type, sometimes odd ones (None, a bool for an int …)."""
    if isinstance(declared, ma.fields.Nested):
        one = _object(declared.schema, depth + 1) if depth < 3 else st.none()
        many = declared.many or declared.schema.many
        return st.none() | (st.lists(one, max_size=3) if many else one)
    if isinstance(declared, ma.fields.List):
        return st.none() | st.lists(_value(declared.inner, depth), max_size=3)
    usual = {
        ma.fields.String: texts,
        ma.fields.Integer: ints,
        ma.fields.Float: st.floats(allow_nan=False) | ints,
        ma.fields.Boolean: st.booleans(),
        ma.fields.DateTime: datetimes,
        CardField: cards,
        ma.fields.Raw: texts | ints,
    }
    for field_type, values in usual.items():
        if isinstance(declared, field_type):
            return st.one_of(values, values, values, odd)
    raise AssertionError(f"{type(declared).__name__}: add a strategy for it here")


def _object(schema: ma.Schema, depth: int = 0) -> st.SearchStrategy[Any]:
    """Objects with the attributes a schema reads (``attribute`` paths included), as attributes
    (the use cases' results) or, sometimes, as a dict (which marshmallow reads by key)."""

    def build(values: dict[str, Any], as_dict: bool) -> Any:
        tree: dict[str, Any] = {}
        for name, value in sorted(values.items(), key=lambda item: item[0].count(".")):  # plain names first
            *path, last = name.split(".")
            node: Any = tree
            for part in path:  # into a dict or an object drawn for a plain name; else drop the value
                node = node.setdefault(part, {}) if isinstance(node, dict) else getattr(node, part, None)
            if isinstance(node, dict):
                node[last] = value
            elif isinstance(node, SimpleNamespace):
                setattr(node, last, value)
        return tree if as_dict else _namespace(tree)

    itself = [name for name, f in schema.dump_fields.items() if isinstance(f, Itself)]
    attributes = {
        (f.attribute or name): _value(f, depth) for name, f in schema.dump_fields.items() if name not in itself
    }
    for name in itself:  # the object is also read through the nested schema's fields
        for inner_name, inner in schema.dump_fields[name].schema.dump_fields.items():
            attributes.setdefault(inner.attribute or inner_name, _value(inner, depth))
    return st.builds(build, st.fixed_dictionaries(attributes), st.booleans().map(lambda b: b and depth > 0))


def _namespace(tree: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(**{k: _namespace(v) if type(v) is dict else v for k, v in tree.items()})


st.register_type_strategy(Card, cards)  # interned: built from the deck, not from its attributes
result_types = [getattr(results, name) for name in results.__all__ if isinstance(getattr(results, name), type)]


@pytest.mark.parametrize("schema_class", sorted(COMPILED_SCHEMAS, key=lambda s: s.__name__))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_compiled_dumpers_dump_what_the_schemas_dump(schema_class, data):
    """Objects built from the schema's fields, or any result of the use cases (the ones that do not
    fit fall back to marshmallow): the compiled dumper gives marshmallow's answer, or its error."""
    schema = COMPILED_SCHEMAS[schema_class]
    results_of_use_cases = st.sampled_from(result_types).flatmap(st.from_type)
    assert_same_outcome(schema, data.draw(_object(schema) | results_of_use_cases))


class _Unknown(ma.fields.String):
    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return "?"


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        (ma.fields.Float(as_string=True), "Float"),
        (ma.fields.Function(lambda obj: 1), "Function"),
        (ma.fields.Dict(), "Dict"),
        (ma.fields.Pluck("GameSchema", "id"), "Pluck"),
        (_Unknown(), "_Unknown"),
        (ma.fields.List(ma.fields.Decimal()), "Decimal"),
        (ma.fields.Integer(as_string=True), "Integer"),
    ],
)
def test_a_field_the_compiler_does_not_know_is_refused_at_start_up(declared, message):
    schema = ma.Schema.from_dict({"ok": ma.fields.String(), "new": declared}, name="NewSchema")()
    with pytest.raises(compiled_dumpers.Uncompilable, match=rf"NewSchema\.new.*{message}"):
        compiled_dumpers.build_dumper(schema)
