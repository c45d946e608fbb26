"""Cards as bits of a 48-bit mask, weakest first, with the trick tables the bots search with.

A card's *bit* is ``strength * 4 + suit``: ``strength`` runs from 0 (a 2) to 11 (an ace)
and ``suit`` is the engine's cycle index (cups 0, coins 1, swords 2, clubs 3). So the
lowest set bit of a mask is its cheapest card and ``mask.bit_length() - 1`` its strongest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from service.engine import DECK, Card

__all__ = [
    "ALL_CARDS",
    "COINS",
    "SUIT_MASKS",
    "bit_of",
    "card_of",
    "mask_of",
    "cards_in",
    "bits_in",
    "lowest",
    "trick_winner_bits",
    "winning_thirds",
    "winning_seconds",
    "resolve",
]

ALL_CARDS = (1 << 48) - 1
SUIT_MASKS = tuple(sum(1 << (strength * 4 + suit) for strength in range(12)) for suit in range(4))
COINS = SUIT_MASKS[1]


def bit_of(card: Card) -> int:
    """The bit index of an engine card."""
    return (11 - card.rank_index) * 4 + card.suit_index


_CARD_OF_BIT: tuple[Card, ...] = tuple(sorted(DECK, key=bit_of))


def card_of(bit: int) -> Card:
    """The engine card of a bit index."""
    return _CARD_OF_BIT[bit]


def mask_of(cards: Iterable[Card]) -> int:
    """The mask holding ``cards``."""
    mask = 0
    for card in cards:
        mask |= 1 << bit_of(card)
    return mask


def bits_in(mask: int) -> Iterator[int]:
    """The bit indexes set in ``mask``, cheapest card first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_in(mask: int) -> list[Card]:
    """The engine cards of ``mask``, cheapest first."""
    return [_CARD_OF_BIT[bit] for bit in bits_in(mask)]


def lowest(mask: int) -> int:
    """The bit index of the cheapest card in a non-empty ``mask``."""
    return (mask & -mask).bit_length() - 1


def trick_winner_bits(a: int, b: int, c: int) -> int:
    """The position (0, 1 or 2) of the winning card among three bit indexes (the rules, spelt out)."""
    sa, sb, sc = a & 3, b & 3, c & 3
    if sa == sb == sc:
        return max((a, 0), (b, 1), (c, 2))[1]
    if sa == sb:
        return 0 if a > b else 1
    if sa == sc:
        return 0 if a > c else 2
    if sb == sc:
        return 1 if b > c else 2
    winning_suit = (7 - sa - sb - sc) % 4  # the suit the absent one beats
    return (sa, sb, sc).index(winning_suit)


def _table(position: int) -> tuple[int, ...]:
    """For each pair (a, b) at ``a * 48 + b``: the mask of third cards c where ``position`` wins."""
    table = []
    for a in range(48):
        for b in range(48):
            mask = 0
            if a != b:
                for c in range(48):
                    if c not in (a, b) and trick_winner_bits(a, b, c) == position:
                        mask |= 1 << c
            table.append(mask)
    return tuple(table)


_WIN_THIRD = _table(2)
_WIN_SECOND = _table(1)


def winning_thirds(lead: int, second: int) -> int:
    """The mask of cards that win the trick when played third after ``lead`` and ``second``."""
    return _WIN_THIRD[lead * 48 + second]


def winning_seconds(lead: int, second: int) -> int:
    """The mask of third cards after which ``second`` wins the trick."""
    return _WIN_SECOND[lead * 48 + second]


def resolve(a: int, b: int, c: int) -> int:
    """The position (0, 1 or 2) of the trick's winner, by table look-up."""
    pair = a * 48 + b
    if _WIN_THIRD[pair] >> c & 1:
        return 2
    return 1 if _WIN_SECOND[pair] >> c & 1 else 0
