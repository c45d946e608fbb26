"""Game and player ids: 26 characters of Crockford base32, sortable by creation time (48-bit
milliseconds, 80 random bits); and the fixed ids of the bot strengths' players."""

from __future__ import annotations

import hashlib
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
    return _encode(value)


def derived_game_id(milliseconds: int, name: str) -> str:
    """The id of a game that several requests may create, the same for all of them: the time
    part is ``milliseconds`` (since the epoch), the rest the first 80 bits of SHA-256 of ``name``."""
    digest = hashlib.sha256(name.encode()).digest()
    return _encode(milliseconds << 80 | int.from_bytes(digest[:10], "big"))


def _encode(value: int) -> str:
    chars = []
    for _ in range(26):
        value, digit = divmod(value, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def is_game_id(text: str) -> bool:
    return len(text) == 26 and all(char in _ALPHABET for char in text)


def is_player_id(text: str) -> bool:
    """Player ids have the shape of game ids (made by :func:`new_game_id`)."""
    return is_game_id(text)


#: Each bot strength's player, made by the schema's migrations (0009, 0015) with these ids: time part 0,
#: so they sort before every other player's.
BOT_PLAYER_IDS = {
    "random": "00000000000000000000000001",
    "basic": "00000000000000000000000002",
    "expert": "00000000000000000000000003",
    "master": "00000000000000000000000004",  # made by 0016
}
