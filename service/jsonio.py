"""JSON in and out with orjson: stored game snapshots, events' text, stored responses, log lines.

orjson encodes and decodes several times faster than the standard library; a play decodes one
stored snapshot (about 2 KB) and encodes the new one. Datetimes and dataclasses are passed
through to the caller's ``default``. Request and response bodies are Flask's and webargs' own
business (the standard library's json): orjson there bought 3 to 4 % of a request's CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

__all__ = ["dumps", "dumps_values", "loads"]

# Keys that are not strings (marshmallow's errors index list items by int) become strings, as in json.
_OPTIONS = (
    orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_NON_STR_KEYS
)


def dumps(value: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    """``value`` as compact JSON text (UTF-8, not ASCII-escaped)."""
    return orjson.dumps(value, default=default, option=_OPTIONS).decode()


def dumps_values(value: Any, *, default: Callable[[Any], Any]) -> str:
    """``value`` as compact JSON text, orjson's own way for dataclasses (an object of their fields,
    in order) and datetimes (RFC 3339, as ``isoformat``); ``default`` answers for anything else."""
    return orjson.dumps(value, default=default).decode()


def loads(text: str | bytes | bytearray | memoryview) -> Any:
    """Parse JSON text; malformed input raises ``json.JSONDecodeError`` (a ``ValueError``)."""
    return orjson.loads(text)
