"""Provably fair dealing: the shuffle and the cut as a pure function of a seed.

The algorithm, so that anyone can re-implement and check a deal:

1. **Stream.** ``block(i) = SHA-256(seed || i)``, with ``i`` a 64-bit big-endian counter
   from 0. The blocks are concatenated and read four bytes at a time as big-endian
   unsigned 32-bit integers.
2. **Uniform draw** of an integer in ``[0, n)``: take the next integer ``x``; if
   ``x >= 2**32 - (2**32 % n)`` discard it and take the next (rejection sampling, so there
   is no modulo bias); otherwise the draw is ``x % n``.
3. **Shuffle** (the player on the dealer's right): start from the canonical deck
   (cups, coins, swords, clubs; each from ace down to 2) and run Fisher–Yates: for
   ``i`` from 47 down to 1, draw ``j`` uniformly in ``[0, i]`` and swap cards ``i`` and ``j``.
4. **Cut** (the player on the dealer's left): draw ``c`` uniformly in ``[0, 47)`` and add
   one, so ``1 <= c <= 47``; the deck becomes ``deck[c:] + deck[:c]``.
5. **Deal**: card ``k`` of the cut deck (from 0) goes to seat ``(dealer + 1 + k) % 3``:
   one card at a time, clockwise, starting with the dealer's left; sixteen each.

The **commitment** published when a hand is dealt is ``SHA-256(seed)`` in hex; the seed is
revealed when the hand is over, and anyone can then check both the commitment and the deal.

A game created with a caller's seed string derives each hand's 32-byte seed as
``SHA-256("coins/v1/hand/" || game_seed || "/" || hand_number)`` (UTF-8, the hand number in
decimal), and when it must draw its first dealer it makes one uniform draw below 3 (step 2)
from the stream of step 1 over ``"coins/v1/first-dealer/" || game_seed`` (UTF-8, not hashed
first). A game without one takes each hand's seed and that draw from :mod:`secrets`.

``docs/fair-deals.md`` states the same for players, with test vectors.
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from collections.abc import Iterator

from .cards import DECK, Card

__all__ = [
    "SEED_BYTES",
    "DealStream",
    "new_hand_seed",
    "derive_hand_seed",
    "commitment",
    "shuffle",
    "cut",
    "deal_order",
    "deal_hands",
]

SEED_BYTES = 32
_TWO_32 = 1 << 32
_DECK_SIZE = len(DECK)
_BLOCK_WORDS = struct.Struct(">8I").unpack  # one SHA-256 block as eight big-endian 32-bit words
# The rejection limit of step 2 for every n a deal draws with (1 .. 48).
_LIMITS = tuple(_TWO_32 - (_TWO_32 % n) if n else 0 for n in range(_DECK_SIZE + 1))


def _words(seed: bytes) -> Iterator[int]:
    """Step 1: the 32-bit big-endian words of SHA-256(seed || counter), counter 0, 1, 2, …"""
    sha256 = hashlib.sha256
    counter = 0
    while True:
        yield from _BLOCK_WORDS(sha256(seed + counter.to_bytes(8, "big")).digest())
        counter += 1


class DealStream:
    """Uniform integers drawn from SHA-256 in counter mode over a seed."""

    __slots__ = ("_words",)

    def __init__(self, seed: bytes) -> None:
        self._words = _words(seed)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by rejection sampling (no modulo bias)."""
        if not 0 < n <= _TWO_32:
            raise ValueError("n must be in 1 .. 2**32")
        limit = _LIMITS[n] if n <= _DECK_SIZE else _TWO_32 - (_TWO_32 % n)
        for x in self._words:
            if x < limit:
                return x % n
        raise AssertionError("a deal stream never runs dry")


def new_hand_seed() -> bytes:
    """A fresh secret seed for one hand."""
    return secrets.token_bytes(SEED_BYTES)


def derive_hand_seed(game_seed: str, hand_number: int) -> bytes:
    """The seed of hand ``hand_number`` (from 1) of a game created with a seed string."""
    return hashlib.sha256(f"coins/v1/hand/{game_seed}/{hand_number}".encode()).digest()


def commitment(seed: bytes) -> str:
    """The public commitment to a hand's seed: its SHA-256 in hex."""
    return hashlib.sha256(seed).hexdigest()


def shuffle(stream: DealStream) -> list[Card]:
    """Fisher–Yates over the canonical deck, driven by ``stream``."""
    deck = list(DECK)
    words = stream._words  # stream.below(i + 1), inlined: this loop is the cost of a deal
    for i in range(_DECK_SIZE - 1, 0, -1):
        limit = _LIMITS[i + 1]
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def cut(deck: list[Card], stream: DealStream) -> list[Card]:
    """Cut the deck at a uniform position that leaves at least one card in each packet."""
    at = 1 + stream.below(len(deck) - 1)
    return deck[at:] + deck[:at]


def deal_order(seed: bytes) -> list[Card]:
    """The deck after the shuffle and the cut for ``seed``, top card first."""
    stream = DealStream(seed)
    return cut(shuffle(stream), stream)


def deal_hands(seed: bytes, dealer: int) -> tuple[list[Card], list[Card], list[Card]]:
    """The three hands, indexed by seat, in the order dealt: one card at a time from the dealer's left."""
    deck = deal_order(seed)
    hands: list[list[Card]] = [[], [], []]
    # Card k goes to seat (dealer + 1 + k) % 3: every third card, starting with the dealer's left.
    for offset in range(3):
        hands[(dealer + 1 + offset) % 3] = deck[offset::3]
    return hands[0], hands[1], hands[2]
