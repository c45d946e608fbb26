"""A review of one play: every card the seat could have played, each valued by the points it was worth.

The search is the expert's (:mod:`service.bots.expert`): deals of the cards this seat had not seen,
each played out with the greedy policy. Here every candidate card is played out on every deal
(no halving), so each gets an estimate of the same precision, on the same deals: the points this
seat can expect from this trick to the end of the hand (or to the game's end, if a seat reaches the
target first). It reads only the seat's :class:`~service.engine.PrivateView`: its own hand and the
cards played so far, never another seat's cards. A fixed number of deals and an injected RNG make
a review the same every time it is computed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from service.engine import Card, PrivateView

from .bits import bit_of, bits_in, card_of
from .expert import candidates, deal_unseen
from .knowledge import Knowledge, knowledge_of
from .playout import play_out
from .protocol import check_turn

__all__ = ["REVIEW_DEALS", "CardValue", "PlayReview", "review_play"]

REVIEW_DEALS = 240
"""Deals of the unseen cards per reviewed play, every candidate played out on each: about 0.3 s of
CPU for a play early in a hand on the machine of docs/benchmarks.md, less later."""


@dataclass(frozen=True, slots=True)
class CardValue:
    """A card the seat could play, and the points it could expect in the rest of the hand with it."""

    card: Card
    points: float


@dataclass(frozen=True, slots=True)
class PlayReview:
    """One play judged: the card played, the search's choice, and every legal card's value
    (strongest first; cards that play alike share their value)."""

    seat: int
    played: Card
    choice: Card
    values: tuple[CardValue, ...]
    loss: float  # points: the choice's value less the played card's (0 when it was as good)


def review_play(view: PrivateView, played: Card, rng: random.Random, *, deals: int = REVIEW_DEALS) -> PlayReview:
    """Judge ``played`` against every other card of ``view.legal_cards``, over ``deals`` deals."""
    check_turn(view.seat, view)
    if played not in view.legal_cards:
        raise ValueError(f"{played} was not a card seat {view.seat} could play")
    if type(deals) is not int or deals < 1:
        raise ValueError(f"deals must be a whole number, at least 1, not {deals!r}")
    know = knowledge_of(view)
    options = candidates(know)
    totals = dict.fromkeys(options, 0)
    for _ in range(deals):
        hands = deal_unseen(know, rng)
        for option in options:
            totals[option] += _points(know, hands, option)
    represented = _representatives(know, options)
    points = {bit: totals[represented[bit]] / deals for bit in represented}
    ranked = sorted(points, key=lambda bit: (-points[bit], bit))  # on ties, the cheaper card first
    values = tuple(CardValue(card_of(bit), round(points[bit], 2)) for bit in ranked)
    best = ranked[0]
    loss = max(0.0, points[best] - points[bit_of(played)])
    return PlayReview(view.seat, played, card_of(best), values, round(loss, 2))


def _representatives(know: Knowledge, options: list[int]) -> dict[int, int]:
    """Each legal card's candidate: the cheapest card of the run it plays alike with."""
    chosen = set(options)
    represented: dict[int, int] = {}
    last_of_suit: dict[int, int] = {}
    for bit in bits_in(know.legal):
        if bit in chosen:
            last_of_suit[bit & 3] = bit
        represented[bit] = last_of_suit[bit & 3]
    return represented


def _points(know: Knowledge, hands: list[int], option: int) -> int:
    """The points this seat wins from the trick in progress to the end of the hand, playing ``option``."""
    seat = know.seat
    hands = hands.copy()
    hands[seat] ^= 1 << option
    scores = list(know.scores)
    play_out(hands, know.played | 1 << option, [*know.trick, option], know.leader, scores, know.target)
    return scores[seat] - know.scores[seat]
