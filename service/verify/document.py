"""Reading the record: the values it must hold, and the two ways a record fails."""

from __future__ import annotations

from typing import Any


class Discrepancy(Exception):
    """The record contradicts itself, the rules or a commitment: exit status 1."""


class InvalidRecord(Exception):
    """Not a record this verifier can read: exit status 2."""


# -- reading the document ----------------------------------------------------------------


def read_value(obj: Any, key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    """``obj[key]``, which must be of ``kinds`` (a bool is not taken for an int)."""
    if not isinstance(obj, dict) or key not in obj:
        raise InvalidRecord(f"{where}: '{key}' is missing")
    value = obj[key]
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise InvalidRecord(f"{where}: '{key}' has the wrong type")
    if not isinstance(value, kinds):
        raise InvalidRecord(f"{where}: '{key}' has the wrong type")
    return value


def read_seat(obj: Any, key: str, where: str) -> int:
    value = read_value(obj, key, int, where)
    if value not in (0, 1, 2):
        raise InvalidRecord(f"{where}: '{key}' is not a seat (0, 1 or 2)")
    return int(value)


def read_seed(hand: Any, where: str) -> bytes | None:
    if "seed" not in hand:
        return None
    try:
        seed = bytes.fromhex(read_value(hand, "seed", str, where))
    except ValueError:
        raise Discrepancy(f"{where}: the seed is not hexadecimal") from None
    if not seed:
        raise Discrepancy(f"{where}: the seed is empty")
    return seed
