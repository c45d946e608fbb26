"""Pagination cursors: opaque to clients, a kind and a position inside (``t:12`` for tricks after 12)."""

from __future__ import annotations

import base64
import binascii

from .errors import InvalidCursor

__all__ = ["MAX_POSITION", "decode_cursor", "encode_cursor", "number_cursor"]

TRICKS = "t"
ACTIONS = "a"
GAMES = "g"

#: The largest number a position column holds (an INTEGER: 32 bits on PostgreSQL). A cursor carrying
#: more was not issued here, and the database would refuse to compare with it.
MAX_POSITION = 2**31 - 1


def encode_cursor(kind: str, value: str) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{value}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str, kind: str) -> str:
    """The position inside a cursor of ``kind``; :class:`InvalidCursor` for any other text."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidCursor("the cursor is not one this service issued") from None
    prefix, _, value = text.partition(":")
    if prefix != kind or not value:
        raise InvalidCursor("the cursor is not one this service issued")
    return value


def number_cursor(cursor: str | None, kind: str) -> int:
    """The number inside a cursor of ``kind`` (0 without a cursor: from the start), at most :data:`MAX_POSITION`."""
    if not cursor:
        return 0
    value = decode_cursor(cursor, kind)
    if not (value.isascii() and value.isdigit()):  # str.isdigit() also holds for "²", which int() refuses
        raise InvalidCursor("the cursor is not one this service issued")
    number = int(value)
    if number > MAX_POSITION:
        raise InvalidCursor("the cursor is not one this service issued")
    return number
