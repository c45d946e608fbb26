"""The use cases' frozen values as plain JSON values, and back, by their declared types.

How a domain event is kept in the events table (:mod:`.domain_events`): a dataclass becomes an
object of its fields (in their order), a named tuple (a :class:`~service.engine.Play`) and a tuple
a list, a card its code, a timestamp its ISO 8601 text; ints, strings, booleans and None stay as
they are. Reading back follows the field types, so what comes back equals what went in. Derived
values (a trick's ``complete``) are not kept: the API derives them when it renders.

Written by orjson's own dataclass encoder (:func:`service.jsonio.dumps_values`; a tenth of the
time a walk in Python takes), read by readers built once per type from its hints.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Any, TypeVar, cast

from .. import jsonio
from ..engine import CARD_BY_CODE, Card

__all__ = ["from_plain", "plain_json"]

T = TypeVar("T")
_SCALARS = (int, str, bool, type(None))


def plain_json(value: Any) -> str:
    """``value`` (a dataclass, a tuple, a card, a timestamp or a scalar) as JSON text of plain values."""
    return jsonio.dumps_values(value, default=_plain)


def _plain(value: Any) -> Any:
    """What orjson does not encode itself: a card (its code), a named tuple (a list)."""
    if isinstance(value, Card):
        return value.code
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"no plain form for {type(value).__name__}")


def from_plain(kind: type[T], plain: Any) -> T:
    """The value of type ``kind`` whose plain form is ``plain`` (parsed :func:`plain_json`; its
    objects are changed in place, so hand it a freshly parsed one)."""
    value: T = _reader(cast(Hashable, kind))(plain)
    return value


@functools.cache
def _reader(kind: Any) -> Callable[[Any], Any]:
    """A function reading a plain value as a value of the type ``kind`` (a type hint)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind in _SCALARS:
        return _itself
    if kind is Card:
        return CARD_BY_CODE.__getitem__
    if kind is datetime:
        return datetime.fromisoformat
    if origin in (typing.Union, types.UnionType):
        [inner] = [arg for arg in args if arg is not type(None)]  # only "X | None" is used
        read = _reader(inner)
        return _itself if read is _itself else _optional(read)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _many(_reader(args[0]))
        return _fixed(tuple(_reader(arg) for arg in args))
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        names = tuple(field.name for field in dataclasses.fields(kind))
        return _record(kind, {name: _reader(hints[name]) for name in names})
    if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"):  # a named tuple
        hints = typing.get_type_hints(kind)
        return _named_tuple(kind, tuple(_reader(hints[name]) for name in kind._fields))
    raise TypeError(f"no plain form for {kind!r}")


def _itself(plain: Any) -> Any:
    return plain


def _optional(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda plain: None if plain is None else read(plain)


def _many(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda plain: tuple(read(item) for item in plain)


def _fixed(reads: tuple[Callable[[Any], Any], ...]) -> Callable[[Any], Any]:
    return lambda plain: tuple(read(item) for read, item in zip(reads, plain, strict=True))


def _record(kind: type, reads: dict[str, Callable[[Any], Any]]) -> Callable[[Any], Any]:
    converted = tuple((name, read) for name, read in reads.items() if read is not _itself)  # others as they are

    def record(plain: dict[str, Any]) -> Any:
        for name, read in converted:
            if name in plain:  # a field added since the value was stored takes its default
                plain[name] = read(plain[name])
        return kind(**plain)

    return record


def _named_tuple(kind: type, reads: tuple[Callable[[Any], Any], ...]) -> Callable[[Any], Any]:
    return lambda plain: kind(*(read(item) for read, item in zip(reads, plain, strict=True)))
