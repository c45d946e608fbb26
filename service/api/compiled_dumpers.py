"""Response dumpers compiled from the schemas: what ``schema.dump(obj)`` gives, without its per-field cost.

The schemas (:mod:`service.api.schemas`) are the one description of every response: they
generate the OpenAPI document, and :func:`build_dumper` reads their declared fields once, at
start-up, and writes one plain Python function per schema: a dict display, keys in the
schema's order, ``data_key`` and ``attribute`` honoured, nested schemas inline (or functions
of their own where they read a dotted ``attribute`` or nest themselves). :func:`fast_schema`
gives flask-smorest a schema instance whose ``dump`` is that function, so nothing else of the
library changes.

Exactness. Every value goes the fast way only when it has the type the shortcut is exact
for (a ``str`` for ``String``, an ``int`` for ``Integer``, a ``datetime`` for an ISO
``DateTime``, a card for ``CardField``, None anywhere); any other value goes through the
field's own ``_serialize``. An object with ``__getitem__`` (which marshmallow reads by key; but a
tuple's), a missing attribute, or any error makes the whole dump start again as ``schema.dump``,
which gives marshmallow's answer or its exception. A schema the builder cannot compile (a field
type or ``get_value`` it does not know, an overridden ``Schema`` method) is refused with
:class:`Uncompilable` when the app starts, never dumped differently. Dump hooks are not looked
for (marshmallow keeps them in private state): tests/api/test_compiled_dumpers.py holds every
response and event schema of the app to ``schema.dump``, which is how a marshmallow upgrade that
dumps differently shows.

Why it is kept: it is the one fast path that buys more than a tenth of its request's CPU.
``bench/request_cpu.py --compare fast_dump`` (docs/benchmarks.md) measured a play among three
people at 2.9 ms of CPU compiled and 5.8 ms with ``schema.dump`` on SQLite (4.0 and 7.1 ms on
PostgreSQL), a read of a game at 1.8 and 2.6 ms. Since a play stores its domain events and no
longer renders them (the feed does, once per process, with these dumpers too), ``--compare
fast_dump --people-plays 1400 --rounds 5`` gives 2.0 and 2.5 ms for that play (18.8 %), 1.2 and
1.5 ms for the read (20.4 %), SQLite, 2026-12-02.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from datetime import datetime
from typing import Any

import marshmallow as ma

from ..engine import Card
from .fields import CardField, Itself

__all__ = ["Dumper", "Uncompilable", "build_dumper", "fast_schema"]

Dumper = Callable[..., Any]

_Field = ma.fields.Field
_SCHEMA_METHODS = ("dump", "_serialize", "get_attribute")  # overriding any of these changes what dump gives


# marshmallow reads ``obj[name]`` first from an object with ``__getitem__``; a tuple's (a named
# tuple's) refuses a name, and marshmallow then reads the attribute, as the compiled code does.
_PLAIN = "(not hasattr({object}, '__getitem__') or {object}.__class__.__getitem__ is _tuple_getitem)"


class Uncompilable(TypeError):
    """A schema whose dump the builder cannot reproduce exactly."""


class _Fallback(Exception):
    """Raised inside a compiled dumper: let ``schema.dump`` answer for this object."""


def _fallback() -> Any:
    raise _Fallback


_Key = tuple[type[ma.Schema], tuple[str, ...]]


def build_dumper(schema: ma.Schema, fallback: Dumper | None = None) -> Dumper:
    """A function ``dump(obj, *, many=None)`` returning what ``schema.dump(obj, many=many)`` returns.
    ``fallback`` answers (``fallback(obj, many=...)``) what the compiled code leaves to marshmallow:
    ``schema.dump`` unless given (tests give one that refuses, to see the fast path taken)."""
    compiler = _Compiler()
    if schema.many:
        body = f"[{compiler.dump_one(schema, '_each')} for _each in obj]"
    else:
        body = compiler.dump_one(schema, "obj")
    compiler.lines += [
        "def dump(obj, *, many=None):",
        "    if many is not None and bool(many) is not _many:",
        "        return _slow(obj, many=many)",
        "    try:",
        f"        return {body}",
        "    except Exception:  # anything unusual: marshmallow answers, or raises",
        "        return _slow(obj)",
    ]
    if fallback is None:

        def fallback(obj: Any, many: bool | None = None) -> Any:
            return type(schema).dump(schema, obj, many=many)  # the class's: the instance's may be this

    compiler.namespace.update(_many=schema.many, _slow=fallback)
    source = "\n".join(compiler.lines)
    exec(compile(source, f"<dumper of {type(schema).__name__}>", "exec"), compiler.namespace)
    dump: Dumper = compiler.namespace["dump"]
    dump.__doc__ = f"{type(schema).__name__}().dump, compiled by service.api.compiled_dumpers:\n\n{source}"
    return dump


def fast_schema(schema: Any) -> Any:
    """An instance of ``schema`` (a class or an instance) whose ``dump`` is :func:`build_dumper`'s.
    The class, and so the OpenAPI document, is unchanged. Anything else (None, a reference) as is."""
    if isinstance(schema, type) and issubclass(schema, ma.Schema):
        schema = schema()
    if not isinstance(schema, ma.Schema):
        return schema
    schema.dump = build_dumper(schema)  # type: ignore[method-assign]  # an instance attribute: the class's dump stays marshmallow's
    return schema


class _Compiler:
    """Writes the source of a dumper: nested schemas inline as dict displays, or as functions of
    their own when they read dotted attributes (into locals) or nest themselves."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {
            "_Fallback": _Fallback,
            "_fallback": _fallback,
            "_tuple_getitem": tuple.__getitem__,
            "_Card": Card,
            "_datetime": datetime,
        }
        self.functions: dict[_Key, str] = {}
        self.inlining: list[_Key] = []
        self.count = 0

    def fresh(self, prefix: str, value: Any = None) -> str:
        """A new name in the generated code, bound to ``value`` when one is given."""
        self.count += 1
        name = f"_{prefix}{self.count}"
        if value is not None:
            self.namespace[name] = value
        return name

    def dump_one(self, schema: ma.Schema, subject: str) -> str:
        """An expression dumping the object named ``subject`` with ``schema``."""
        key = (type(schema), tuple(schema.dump_fields))
        if key not in self.functions and key not in self.inlining:
            _check_schema(schema)
            if not any("." in (field.attribute or "") for field in schema.dump_fields.values()):
                self.inlining.append(key)
                display = self.display(schema, subject, {})
                self.inlining.pop()
                return f"({display} if {_PLAIN.format(object=subject)} else _fallback())"
        return f"{self.functions.get(key) or self.function(schema, key)}({subject})"

    def function(self, schema: ma.Schema, key: _Key) -> str:
        name = self.functions[key] = self.fresh(f"dump_{type(schema).__name__}_")
        prefixes: dict[str, tuple[str, str]] = {}  # a dotted attribute's path -> (local, expression)
        display = self.display(schema, "obj", prefixes)
        lines = [f"def {name}(obj):", f"    if not {_PLAIN.format(object='obj')}:", "        raise _Fallback"]
        for local, expression in prefixes.values():
            lines += [
                f"    {local} = {expression}",
                f"    if not {_PLAIN.format(object=local)}:",
                "        raise _Fallback",
            ]
        self.lines += [*lines, f"    return {display}", ""]
        return name

    def display(self, schema: ma.Schema, subject: str, prefixes: dict[str, tuple[str, str]]) -> str:
        """A dict display of the schema's fields for the object named ``subject``, in the schema's order."""
        items = []
        for name, field in schema.dump_fields.items():
            where = f"{type(schema).__name__}.{name}"
            source = self.value_source(field, subject, where, prefixes)
            key_name = field.data_key if field.data_key is not None else name
            items.append(f"{key_name!r}: {self.serialized(field, source, name, subject, where)}")
        return "{" + ", ".join(items) + "}"

    def value_source(self, field: _Field[Any], subject: str, where: str, prefixes: dict[str, tuple[str, str]]) -> str:
        """The expression marshmallow's ``get_value`` amounts to for an object read by attribute.
        Each object on a dotted ``attribute``'s path is read once, into a local (``prefixes``)."""
        get_value = type(field).get_value
        if type(field).serialize is not _Field.serialize:
            raise Uncompilable(f"{where}: {type(field).__name__} overrides serialize")
        if get_value is Itself.get_value:
            return subject
        if get_value is not _Field.get_value:
            raise Uncompilable(f"{where}: {type(field).__name__} overrides get_value")
        *path, last = (field.attribute or field.name or "").split(".")
        holder = subject
        for depth, name in enumerate(path):
            dotted = ".".join(path[: depth + 1])
            if dotted not in prefixes:
                prefixes[dotted] = (self.fresh("via"), _attribute(holder, name))
            holder = prefixes[dotted][0]
        return _attribute(holder, last)

    def serialized(self, field: _Field[Any], source: str, attr: str, subject: str, where: str) -> str:
        """An expression giving ``field._serialize(<source>, attr, <subject>)``."""
        serialize: Any = type(field)._serialize
        value = self.fresh("v")
        own = self.fresh("serialize", field._serialize)

        def unless(fast_type: str, result: str = value) -> str:
            # the shortcut for values of exactly ``fast_type`` (and None), the field's own code otherwise
            return (
                f"({result} if ({value} := {source}).__class__ is {fast_type} "
                f"else None if {value} is None else {own}({value}, {attr!r}, {subject}))"
            )

        if serialize is _Field._serialize:  # Raw, Boolean: the value as it is
            return source
        if serialize is ma.fields.String._serialize:
            return unless("str")
        if serialize is ma.fields.Number._serialize and _is_plain_number(field, int):
            return unless("int")
        if serialize is ma.fields.Number._serialize and _is_plain_number(field, float):
            return unless("float")
        if serialize is ma.fields.DateTime._serialize:
            if field.SERIALIZATION_FUNCS.get(field.format or field.DEFAULT_FORMAT) is datetime.isoformat:  # type: ignore[attr-defined]
                return unless("_datetime", f"{value}.isoformat()")
            return f"{own}({source}, {attr!r}, {subject})"
        if serialize is CardField._serialize:  # a Card's code is a str: str() of it is itself
            return unless("_Card", f"{value}.code")
        if serialize is ma.fields.Nested._serialize:
            nested = field.schema  # type: ignore[attr-defined]
            if nested.many or field.many:  # type: ignore[attr-defined]
                item = self.fresh("item")
                dumped = f"[{self.dump_one(nested, item)} for {item} in {value}]"
            else:
                dumped = self.dump_one(nested, value)
            return f"(None if ({value} := {source}) is None else {dumped})"
        if serialize is ma.fields.List._serialize:
            item = self.fresh("item")
            inner = self.serialized(field.inner, item, attr, subject, f"{where}[]")  # type: ignore[attr-defined]
            return f"(None if ({value} := {source}) is None else [{inner} for {item} in {value}])"
        raise Uncompilable(
            f"{where}: service.api.compiled_dumpers does not know how {type(field).__name__} dumps; "
            "teach _Compiler.serialized its shortcut (tests/api/test_compiled_dumpers.py then checks it)"
        )


def _check_schema(schema: ma.Schema) -> None:
    name = type(schema).__name__
    for method in _SCHEMA_METHODS:
        if getattr(type(schema), method) is not getattr(ma.Schema, method):
            raise Uncompilable(f"{name} overrides Schema.{method}")
    if schema.dict_class is not dict:
        raise Uncompilable(f"{name} dumps into {schema.dict_class.__name__}, not dict")


def _is_plain_number(field: _Field[Any], num_type: type) -> bool:
    """An Integer or Float field that dumps a value of exactly ``num_type`` as it is."""
    number = ma.fields.Number
    return (
        getattr(field, "num_type", None) is num_type
        and not getattr(field, "as_string", True)
        and type(field)._format_num is number._format_num  # type: ignore[attr-defined]
    )


def _attribute(holder: str, name: str) -> str:
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"{holder}.{name}"
    return f"getattr({holder}, {name!r})"
