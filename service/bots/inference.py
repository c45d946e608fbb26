"""What the other seats' plays this hand reveal about their cards: a weight for each sampled deal.

Every card another seat played this hand was chosen from the hand it held then, which a sampled
deal fixes (its cards now plus the cards it has played since). The greedy policy
(:mod:`service.bots.policy`) stands in for how seats play: a deal in which a seat's play is the
one the policy would have made from that hand is likelier than one in which it is not. Each play
the policy would not have made (nor one of a card that plays alike) multiplies the deal's weight by
:data:`MISMATCH`, so the policy is a soft guide, never a proof: seats that search do not play
greedily, but they lead low, dump low and take coins when they can often enough for the clue to
count (policy-based inference, as in Skat programs).
"""

from __future__ import annotations

from dataclasses import dataclass

from .bits import ALL_CARDS, SUIT_MASKS
from .knowledge import Knowledge
from .policy import choose

__all__ = ["MISMATCH", "Clue", "clues", "likelihood", "Weigher"]

MISMATCH = 0.5
"""The weight a deal keeps for each play of another seat that the greedy policy would not have made."""


@dataclass(frozen=True, slots=True)
class Clue:
    """One play of another seat this hand, with what the seat knew when it made it."""

    seat: int
    bit: int
    trick: tuple[int, ...]  # the trick's cards before this play
    before: int  # the cards played this hand before this play
    later: int  # the cards this seat played this hand from this play on, this one included


def clues(know: Knowledge) -> tuple[Clue, ...]:
    """The other seats' plays this hand, each with the trick and the cards gone when it was made."""
    found: list[Clue] = []
    before = 0
    history = know.history
    for index, (seat, bit) in enumerate(history):
        if seat != know.seat:
            start = index - index % 3  # a hand's plays come three to a trick
            trick = tuple(card for _, card in history[start:index])
            later = 0
            for other, card in history[index:]:
                if other == seat:
                    later |= 1 << card
            found.append(Clue(seat, bit, trick, before, later))
        before |= 1 << bit
    return tuple(found)


def likelihood(found: tuple[Clue, ...], hands: list[int]) -> float:
    """How well the deal ``hands`` (one mask per seat, cards held now) explains the plays ``found``."""
    weight = 1.0
    for clue in found:
        held = hands[clue.seat] | clue.later
        chosen = choose(held, ALL_CARDS & ~held & ~clue.before, clue.trick)[0]
        if chosen != clue.bit and not _alike(chosen, clue.bit, held | clue.before):
            weight *= MISMATCH
    return weight


class Weigher:
    """:func:`likelihood` for many deals of one decision, remembering each seat's factor for each hand it is dealt.

    A seat's plays depend on its own hand only, so a deal's weight is the product of one factor
    per seat; late in a hand few hands are possible and most deals repeat one already weighed.
    """

    def __init__(self, found: tuple[Clue, ...]) -> None:
        self.by_seat = {seat: tuple(clue for clue in found if clue.seat == seat) for seat in {c.seat for c in found}}
        self.known: dict[tuple[int, int], float] = {}

    def __call__(self, hands: list[int]) -> float:
        weight = 1.0
        for seat, found in self.by_seat.items():
            key = (seat, hands[seat])
            factor = self.known.get(key)
            if factor is None:
                factor = self.known[key] = likelihood(found, hands)
            weight *= factor
        return weight


def _alike(one: int, other: int, known: int) -> bool:
    """Of one suit, with every card between them known to the seat (its own or played): they play alike."""
    if (one ^ other) & 3:
        return False
    low, high = min(one, other), max(one, other)
    between = ((1 << high) - (2 << low)) & SUIT_MASKS[low & 3]
    return not between & ~known
