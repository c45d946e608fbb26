"""Game ids: 26 characters of Crockford base32, sortable by creation time (48-bit milliseconds, 80 random bits)."""

from __future__ import annotations

import secrets
import threading
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


_last = 0
_last_lock = threading.Lock()


def new_game_id() -> str:
    """A new id; ids made later sort after ids made earlier: across processes to the
    millisecond, and within one process strictly (within a millisecond, the random part of
    the next id is at least the previous one's plus one)."""
    global _last
    value = (time.time_ns() // 1_000_000) << 80 | secrets.randbits(80)
    with _last_lock:
        value = _last = max(value, _last + 1)
    chars = []
    for _ in range(26):
        value, digit = divmod(value, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def is_game_id(text: str) -> bool:
    return len(text) == 26 and all(char in _ALPHABET for char in text)
