"""JSON in and out with orjson: stored game snapshots, request and response bodies, log lines.

orjson encodes and decodes several times faster than the standard library; a play request
decodes one stored snapshot (about 2 KB), encodes the new one and encodes its response body,
so this is a measurable share of the service's CPU per request. Datetimes and dataclasses are
passed through to the caller's ``default`` (Flask's, for responses: see
:mod:`service.api.jsonprovider`), so what a body looks like does not depend on the encoder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

__all__ = ["dumps", "encode", "loads"]

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


def encode(value: Any, *, default: Callable[[Any], Any] | None = None) -> bytes:
    """``value`` as compact JSON, UTF-8 encoded (what :func:`dumps` gives, as bytes)."""
    return orjson.dumps(value, default=default, option=_OPTIONS)


def loads(text: str | bytes | bytearray | memoryview) -> Any:
    """Parse JSON text; malformed input raises ``json.JSONDecodeError`` (a ``ValueError``)."""
    return orjson.loads(text)
