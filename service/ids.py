"""Game ids: 26 characters of Crockford base32, sortable by creation time (48-bit milliseconds, 80 random bits)."""

from __future__ import annotations

import secrets
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def new_game_id() -> str:
    """A new id; ids made later sort after ids made earlier (to the millisecond)."""
    value = (time.time_ns() // 1_000_000) << 80 | secrets.randbits(80)
    chars = []
    for _ in range(26):
        value, digit = divmod(value, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def is_game_id(text: str) -> bool:
    return len(text) == 26 and all(char in _ALPHABET for char in text)
