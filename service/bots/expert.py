"""The expert bot: determinized Monte Carlo search with sequential halving, inference-weighted deals
and an exact endgame.

Each playout deals the cards this seat has not seen (48, less its hand, less the cards
played this hand) at random to the other two seats, in the numbers the public view shows
they hold; plays one candidate card; and plays the rest of the hand out with every seat
following the greedy policy (:mod:`service.bots.playout`). A playout is scored by
:func:`standing`, this seat's chance of winning the game judged from the scores, which
counts reaching the target first as a win outright. All candidates are tried on the same
deals, and after each round of deals the worse half is dropped.

Each deal counts with the weight :func:`~service.bots.inference.likelihood` gives it: how well it
explains the other seats' plays this hand. From :data:`ENDGAME_CARDS` cards left in the three hands
on, nothing is sampled: every deal of the unseen cards is enumerated and each candidate is valued
by exact play with every hand seen (:mod:`service.bots.endgame`), weighted the same way.

The search is a fixed amount of work (playouts, deals), so a decision is the same on any machine.
``max_seconds`` is a safety net only: when it bites the search stops early, which is logged and
counted in :data:`CAPPED` (read it with :func:`capped_decisions`).
"""

from __future__ import annotations

import itertools
import logging
import math
import random
import time
from collections.abc import Callable

from service.engine import PrivateView

from .bits import bits_in, card_of
from .endgame import SPREAD, Memo, standing, value_of_play
from .inference import Clue, Weigher, clues
from .knowledge import Knowledge, knowledge_of
from .playout import play_out
from .protocol import Decision, check_turn

__all__ = [
    "ExpertBot", "DEFAULT_PLAYOUTS", "ENDGAME_CARDS", "SPREAD", "standing", "candidates", "deal_unseen",
    "capped_decisions",
]  # fmt: skip

DEFAULT_PLAYOUTS = 400
"""Playouts per decision at the start of a hand; later in the hand, with less to play out, more."""

MAX_SCALE = 6  # late in a hand, at most this many times the playouts
ENDGAME_CARDS = 9  # from this many cards left in the three hands (three tricks), the exact endgame

_log = logging.getLogger(__name__)
CAPPED = [0]
"""Decisions of this process whose search the ``max_seconds`` safety net cut short (one counter)."""


def capped_decisions() -> int:
    """How many decisions of this process the ``max_seconds`` safety net has cut short."""
    return CAPPED[0]


class ExpertBot:
    """Searches playouts of the rest of the hand; decides the same way for the same RNG state."""

    def __init__(
        self,
        seat: int,
        rng: random.Random,
        *,
        playouts: int = DEFAULT_PLAYOUTS,
        max_seconds: float | None = None,
        inference: bool = True,
        endgame: bool = True,
        clock: Callable[[], float] = time.thread_time,
    ) -> None:
        if type(playouts) is not int or playouts < 1:
            raise ValueError(f"playouts must be a whole number, at least 1, not {playouts!r}")
        if max_seconds is not None and not max_seconds > 0:
            raise ValueError(f"max_seconds must be positive, not {max_seconds!r}")
        self.seat = seat
        self.rng = rng
        self.playouts = playouts
        self.max_seconds = max_seconds  # a safety net: once it bites, decisions depend on the machine's speed
        self.inference = inference  # False: every deal counts alike (the expert before issue 35)
        self.endgame = endgame  # False: greedy playouts to the last trick (the expert before issue 35)
        self.clock = clock  # this thread's CPU time; injected by tests

    def decide(self, view: PrivateView) -> Decision:
        check_turn(self.seat, view)
        know = knowledge_of(view)
        options = candidates(know)
        if len(options) == 1:
            return Decision(card_of(options[0]), "has only one card worth considering")
        found = clues(know) if self.inference else ()
        if self.endgame and sum(know.cards_in_hand) <= ENDGAME_CARDS:
            best, value, deals = _solve_all(know, options, found)
            reason = f"best of {len(options)} distinct cards, played out exactly on all {deals} possible deals"
            return Decision(card_of(best), f"{reason} (win chance ~{value:.0%})")
        cap = None if self.max_seconds is None else _Cap(self.clock, self.max_seconds)
        best, value, deals = _halve(know, options, self._budget(know), self.rng, found, cap)
        reason = f"best of {len(options)} distinct cards over {deals} simulated deals (win chance ~{value:.0%})"
        if cap is not None and cap.bitten:
            CAPPED[0] += 1
            _log.warning("expert search cut short by its %s s safety net after %d deals", self.max_seconds, deals)
            reason += ", cut short by its time cap"
        return Decision(card_of(best), reason)

    def _budget(self, know: Knowledge) -> int:
        to_play = sum(know.cards_in_hand)
        return self.playouts * min(MAX_SCALE, max(1, 48 // max(to_play, 1)))


def candidates(know: Knowledge) -> list[int]:
    """The legal cards, one for each run of cards that no unseen card separates (they play alike)."""
    unseen = know.unseen
    chosen: list[int] = []
    last_of_suit: dict[int, int] = {}
    for bit in bits_in(know.legal):
        last = last_of_suit.get(bit & 3)
        last_of_suit[bit & 3] = bit
        if last is None or not _alike(last, bit, unseen):
            chosen.append(bit)
    return chosen


def _alike(low: int, high: int, unseen: int) -> bool:
    """Of one suit, with no unseen card between them: every card between is this seat's or played."""
    between = 0
    for bit in range(low + 4, high, 4):
        between |= 1 << bit
    return not between & unseen


class _Cap:
    """The safety net: a CPU-time limit on one decision, on an injected clock; ``bitten`` once passed."""

    def __init__(self, clock: Callable[[], float], seconds: float) -> None:
        self.clock = clock
        self.deadline = clock() + seconds
        self.bitten = False

    def passed(self) -> bool:
        if not self.bitten and self.clock() > self.deadline:
            self.bitten = True
        return self.bitten


def _halve(
    know: Knowledge, options: list[int], budget: int, rng: random.Random, found: tuple[Clue, ...], cap: _Cap | None
) -> tuple[int, float, int]:
    """Sequential halving: return the best option, its weighted mean value and the number of deals.

    Each deal counts with its :func:`likelihood` given the clues ``found``. Once the ``cap`` has
    passed it stops after the current deal.
    """
    rounds = max(1, math.ceil(math.log2(len(options))))
    weigh = Weigher(found)
    alive = list(options)
    totals = dict.fromkeys(options, 0.0)
    weights = 0.0
    deals = 0
    for _ in range(rounds):
        per_option = max(1, budget // (rounds * len(alive)))
        for _ in range(per_option):
            hands = deal_unseen(know, rng)
            weight = weigh(hands) if found else 1.0
            for option in alive:
                totals[option] += weight * _playout(know, hands, option)
            weights += weight
            deals += 1  # the options still alive were all played out on every deal so far
            if cap is not None and cap.passed():
                break
        alive.sort(key=totals.__getitem__, reverse=True)  # stable: the cheaper card first on ties
        alive = alive[: max(1, (len(alive) + 1) // 2)]
        if cap is not None and cap.passed():
            break
    best = alive[0]  # every option still alive was played out on every deal
    return best, totals[best] / weights, deals


def _solve_all(know: Knowledge, options: list[int], found: tuple[Clue, ...]) -> tuple[int, float, int]:
    """The exact endgame: every deal of the unseen cards, each option valued by max-n play seeing every hand."""
    left, right = (know.seat + 1) % 3, (know.seat + 2) % 3
    unseen = list(bits_in(know.unseen))
    totals = dict.fromkeys(options, 0.0)
    weigh = Weigher(found)
    weights = 0.0
    deals = 0
    for chosen in itertools.combinations(unseen, know.cards_in_hand[left]):
        hands = [0, 0, 0]
        hands[know.seat] = know.hand
        hands[left] = sum(1 << bit for bit in chosen)
        hands[right] = know.unseen & ~hands[left]
        weight = weigh(hands) if found else 1.0
        position = (hands[0], hands[1], hands[2])
        memo: Memo = {}
        for option in options:
            value = value_of_play(position, know.trick, know.leader, know.scores, know.target, option, memo)
            totals[option] += weight * value[know.seat]
        weights += weight
        deals += 1
    best = max(options, key=totals.__getitem__)  # the first, the cheapest card, on ties
    return best, totals[best] / weights, deals


def deal_unseen(know: Knowledge, rng: random.Random) -> list[int]:
    """One deal of the unseen cards to the other two seats, consistent with what this seat knows."""
    unseen = list(bits_in(know.unseen))
    rng.shuffle(unseen)
    left, right = (know.seat + 1) % 3, (know.seat + 2) % 3
    count = know.cards_in_hand[left]
    hands = [0, 0, 0]
    hands[know.seat] = know.hand
    hands[left] = sum(1 << bit for bit in unseen[:count])
    hands[right] = sum(1 << bit for bit in unseen[count:])
    return hands


def _playout(know: Knowledge, hands: list[int], option: int) -> float:
    seat = know.seat
    hands = hands.copy()
    hands[seat] ^= 1 << option
    trick = [*know.trick, option]
    scores = list(know.scores)
    played = know.played | 1 << option
    winner = play_out(hands, played, trick, know.leader, scores, know.target)
    return standing(scores, winner, seat, know.target)
