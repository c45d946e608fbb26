"""Suits, ranks and the 48 cards of the Spanish deck, with the contract's card codes."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import ClassVar

from .errors import InvalidCard

__all__ = ["Suit", "Rank", "Card", "DECK", "CARD_CODES", "CARD_BY_CODE", "parse_card", "sort_cards"]


class Suit(enum.Enum):
    """The four suits, in cycle order: each suit beats the next one, and clubs beat cups."""

    CUPS = "cups"
    COINS = "coins"
    SWORDS = "swords"
    CLUBS = "clubs"

    @property
    def index(self) -> int:
        """Position in the cycle: cups 0, coins 1, swords 2, clubs 3."""
        return _SUIT_INDEX[self]

    @property
    def beats(self) -> Suit:
        """The suit this one beats: cups hold coins, coins buy swords, swords cut clubs, clubs smash cups."""
        return SUITS[(_SUIT_INDEX[self] + 1) % 4]


class Rank(enum.Enum):
    """The twelve ranks, from highest to lowest."""

    ACE = "ace"
    KING = "king"
    KNIGHT = "knight"
    KNAVE = "knave"
    NINE = "9"
    EIGHT = "8"
    SEVEN = "7"
    SIX = "6"
    FIVE = "5"
    FOUR = "4"
    THREE = "3"
    TWO = "2"

    @property
    def index(self) -> int:
        """Position from the top: ace 0 … two 11 (a lower index is a higher rank)."""
        return _RANK_INDEX[self]


SUITS: tuple[Suit, ...] = tuple(Suit)
RANKS: tuple[Rank, ...] = tuple(Rank)
_SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
_RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}


class Card:
    """One card. Cards are interned: ``Card(rank, suit)`` always returns the same object.

    ``order`` is the card's place in the canonical deck (suits in cycle order, ranks high
    to low), which is also the order hands are shown in. ``suit_index`` and
    ``rank_index`` are the small integers trick resolution works with.
    """

    __slots__ = ("rank", "suit", "code", "order", "suit_index", "rank_index")

    rank: Rank
    suit: Suit
    code: str
    order: int
    suit_index: int
    rank_index: int

    _interned: ClassVar[dict[tuple[Rank, Suit], Card]] = {}

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        try:
            return cls._interned[(rank, suit)]
        except KeyError:
            raise InvalidCard(f"{rank!r} of {suit!r} is not a card of the deck") from None

    @classmethod
    def _make(cls, rank: Rank, suit: Suit) -> Card:
        card = object.__new__(cls)
        set_ = object.__setattr__
        set_(card, "rank", rank)
        set_(card, "suit", suit)
        set_(card, "code", f"{rank.value}-{suit.value}")
        set_(card, "suit_index", suit.index)
        set_(card, "rank_index", rank.index)
        set_(card, "order", suit.index * 12 + rank.index)
        cls._interned[(rank, suit)] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        return self.code

    @property
    def is_coin(self) -> bool:
        """Coins cards are worth one point each."""
        return self.suit is Suit.COINS

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card for a code such as ``ace-coins`` or ``7-clubs``; :class:`InvalidCard` otherwise."""
        return parse_card(code)


DECK: tuple[Card, ...] = tuple(Card._make(rank, suit) for suit in SUITS for rank in RANKS)
"""The 48 cards in canonical order: cups, coins, swords, clubs; ace high to 2 low."""

CARD_CODES: tuple[str, ...] = tuple(card.code for card in DECK)
CARD_BY_CODE: Mapping[str, Card] = {card.code: card for card in DECK}
"""Each card by its exact code: a lookup for input already known to be well formed (stored
games, bodies checked elsewhere); :func:`parse_card` says what is wrong with any other."""
_RANK_CODES = ", ".join(rank.value for rank in RANKS)
_SUIT_CODES = ", ".join(suit.value for suit in SUITS)
_RANK_VALUES = frozenset(rank.value for rank in RANKS)
_SUIT_VALUES = frozenset(suit.value for suit in SUITS)
_FORM = "expected '<rank>-<suit>', such as 'ace-coins'"


def parse_card(code: str) -> Card:
    """Parse a card code; raise :class:`InvalidCard` saying exactly what is wrong."""
    if not isinstance(code, str):
        raise InvalidCard(f"a card code is a string such as 'ace-coins', not {type(code).__name__}")
    card = CARD_BY_CODE.get(code)
    if card is not None:
        return card
    hyphens = code.count("-")
    if hyphens == 0:
        raise InvalidCard(f"{code!r} is not a card code: {_FORM}")
    if hyphens > 1:
        raise InvalidCard(f"{code!r} is not a card code: it has {hyphens} hyphens; {_FORM}")
    lower = CARD_BY_CODE.get(code.lower())
    if lower is not None:
        raise InvalidCard(f"{code!r} is not a card code: card codes are lower case: {lower.code!r}")
    rank, _, suit = code.partition("-")
    problems = []
    if rank not in _RANK_VALUES:
        problems.append(f"rank {rank!r} is not one of {_RANK_CODES}")
    if suit not in _SUIT_VALUES:
        problems.append(f"suit {suit!r} is not one of {_SUIT_CODES}")
    raise InvalidCard(f"{code!r} is not a card code: " + "; ".join(problems))


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted by suit in cycle order, then rank high to low (how hands are shown)."""
    return sorted(cards, key=_order)


def _order(card: Card) -> int:
    return card.order
