"""Who wins a trick of three cards, and what it is worth."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card

__all__ = ["trick_winner", "trick_points"]


def trick_winner(cards: Sequence[Card]) -> int:
    """The position (0, 1 or 2) within ``cards`` of the card that wins the trick.

    1. Three suits: the suit the absent suit would beat wins (cups > coins > swords >
       clubs > cups, so with clubs absent cups win). Ranks do not matter.
    2. A pair and an odd card: the higher card of the pair wins; the odd card never does.
    3. One suit: the highest card wins.
    """
    a, b, c = cards
    sa, sb, sc = a.suit_index, b.suit_index, c.suit_index
    if sa == sb:
        if sa == sc:  # one suit: highest rank (lowest rank index) wins
            if a.rank_index < b.rank_index:
                return 0 if a.rank_index < c.rank_index else 2
            return 1 if b.rank_index < c.rank_index else 2
        return 0 if a.rank_index < b.rank_index else 1
    if sa == sc:
        return 0 if a.rank_index < c.rank_index else 2
    if sb == sc:
        return 1 if b.rank_index < c.rank_index else 2
    # Three different suits: suit indexes sum to 6 over all four, so the absent one is
    # 6 - the sum, and the winning suit is the one it beats (the next in the cycle).
    winning_suit = (7 - sa - sb - sc) % 4
    if sa == winning_suit:
        return 0
    return 1 if sb == winning_suit else 2


def trick_points(cards: Sequence[Card]) -> int:
    """The number of coins cards in the trick: one point each."""
    return sum(1 for card in cards if card.suit_index == 1)
