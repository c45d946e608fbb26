"""The expert bot: determinized Monte Carlo search with sequential halving over its candidate cards.

Each playout deals the cards this seat has not seen (48, less its hand, less the cards
played this hand) at random to the other two seats, in the numbers the public view shows
they hold; plays one candidate card; and plays the rest of the hand out with every seat
following the greedy policy (:mod:`service.bots.playout`). A playout is scored by
:func:`standing`, this seat's chance of winning the game judged from the scores, which
counts reaching the target first as a win outright. All candidates are tried on the same
deals, and after each round of deals the worse half is dropped.
"""

from __future__ import annotations

import math
import random
import time

from service.engine import PrivateView

from .bits import bits_in, card_of
from .knowledge import Knowledge, knowledge_of
from .playout import play_out
from .protocol import Decision, check_turn

__all__ = ["ExpertBot", "DEFAULT_PLAYOUTS", "standing", "candidates", "deal_unseen"]

DEFAULT_PLAYOUTS = 400
"""Playouts per decision at the start of a hand; later in the hand, with less to play out, more."""

MAX_SCALE = 6  # late in a hand, at most this many times the playouts
SPREAD = 1.5  # points: how fast a lead turns into a likely win, in :func:`standing` (1.5 beat 3)


class ExpertBot:
    """Searches playouts of the rest of the hand; decides the same way for the same RNG state."""

    def __init__(
        self, seat: int, rng: random.Random, *, playouts: int = DEFAULT_PLAYOUTS, max_seconds: float | None = None
    ) -> None:
        if type(playouts) is not int or playouts < 1:
            raise ValueError(f"playouts must be a whole number, at least 1, not {playouts!r}")
        if max_seconds is not None and not max_seconds > 0:
            raise ValueError(f"max_seconds must be positive, not {max_seconds!r}")
        self.seat = seat
        self.rng = rng
        self.playouts = playouts
        self.max_seconds = max_seconds  # a CPU-time cap: decisions then depend on the machine's speed

    def decide(self, view: PrivateView) -> Decision:
        check_turn(self.seat, view)
        know = knowledge_of(view)
        options = candidates(know)
        if len(options) == 1:
            return Decision(card_of(options[0]), "has only one card worth considering")
        deadline = None if self.max_seconds is None else time.thread_time() + self.max_seconds
        best, value, deals = _halve(know, options, self._budget(know), self.rng, deadline)
        reason = f"best of {len(options)} distinct cards over {deals} simulated deals (win chance ~{value:.0%})"
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


def standing(scores: list[int], winner: int | None, seat: int, target: int) -> float:
    """``seat``'s chance of winning the game, judged from the scores: 1 or 0 once someone has won."""
    if winner is not None:
        return 1.0 if winner == seat else 0.0
    weights = [math.exp((score - target) / SPREAD) for score in scores]
    return weights[seat] / sum(weights)


def _halve(
    know: Knowledge, options: list[int], budget: int, rng: random.Random, deadline: float | None
) -> tuple[int, float, int]:
    """Sequential halving: return the best option, its mean value and the number of deals.

    Past the ``deadline`` (a :func:`time.thread_time` value: this thread's CPU time) it stops after
    the current deal.
    """
    rounds = max(1, math.ceil(math.log2(len(options))))
    alive = list(options)
    totals = dict.fromkeys(options, 0.0)
    deals = 0
    for _ in range(rounds):
        per_option = max(1, budget // (rounds * len(alive)))
        for _ in range(per_option):
            hands = deal_unseen(know, rng)
            for option in alive:
                totals[option] += _playout(know, hands, option)
            deals += 1  # the options still alive were all played out on every deal so far
            if deadline is not None and time.thread_time() > deadline:
                break
        alive.sort(key=totals.__getitem__, reverse=True)  # stable: the cheaper card first on ties
        alive = alive[: max(1, (len(alive) + 1) // 2)]
        if deadline is not None and time.thread_time() > deadline:
            break
    best = alive[0]  # every option still alive was played out on every deal
    return best, totals[best] / deals, deals


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
