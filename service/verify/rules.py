"""The rules the verifier replays by: the deal of docs/fair-deals.md, tricks and their points, seats.

Written again here, on purpose, rather than imported from service.engine: see the package's docstring.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

FORMAT = "coins-record"
FORMAT_VERSION = 1
SUITS = ("cups", "coins", "swords", "clubs")  # each beats the next; clubs beat cups
RANKS = ("ace", "king", "knight", "knave", "9", "8", "7", "6", "5", "4", "3", "2")  # high to low
DECK = tuple(f"{rank}-{suit}" for suit in SUITS for rank in RANKS)
CARDS_EACH = 16
CAUSES = ("player", "bot", "auto", "timeout")
FIRST_DEALER_CHOICES = ("named", "oldest", "drawn")


# -- the deal (docs/fair-deals.md) -------------------------------------------------------


def _stream(seed: bytes) -> Iterator[int]:
    """Step 1: SHA-256(seed || counter) read as big-endian 32-bit words, counter 0, 1, 2, …"""
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def _draw(words: Iterator[int], n: int) -> int:
    """Step 2: a uniform integer in [0, n), discarding words at or above the rejection limit."""
    limit = 2**32 - (2**32 % n)
    word = next(words)
    while word >= limit:
        word = next(words)
    return word % n


def deal(seed: bytes, dealer: int) -> list[list[str]]:
    """Steps 3 to 5: the three hands, by seat, in the order dealt."""
    words = _stream(seed)
    deck = list(DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = _draw(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    cut = 1 + _draw(words, len(deck) - 1)
    deck = deck[cut:] + deck[:cut]
    return [[card for k, card in enumerate(deck) if (dealer + 1 + k) % 3 == seat] for seat in range(3)]


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


# -- the rules ---------------------------------------------------------------------------


def left_of(seat: int) -> int:
    return (seat + 1) % 3


def right_of(seat: int) -> int:
    return (seat + 2) % 3


def _suit(card: str) -> str:
    return card.rpartition("-")[2]


def _rank(card: str) -> int:
    """0 for an ace, up to 11 for a 2: lower is higher."""
    return RANKS.index(card.rpartition("-")[0])


def trick_winner(cards: Sequence[str]) -> int:
    """The position within ``cards`` of the winning card, by the three cases of the rules."""
    suits = [_suit(card) for card in cards]
    if len(set(suits)) == 3:
        absent = next(suit for suit in SUITS if suit not in suits)
        winning_suit = SUITS[(SUITS.index(absent) + 1) % 4]  # the suit the absent one beats
        return suits.index(winning_suit)
    shared = max(suits, key=suits.count)  # the pair's suit, or the one suit of all three
    contenders = [i for i, suit in enumerate(suits) if suit == shared]
    return min(contenders, key=lambda i: _rank(cards[i]))


def trick_points(cards: Sequence[str]) -> int:
    return sum(1 for card in cards if _suit(card) == "coins")
