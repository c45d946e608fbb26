"""A fast simulator of the rest of a hand over masks, every seat following the greedy policy.

The expert's playouts run here, never through the engine's :class:`~service.engine.Game`,
which checks and records far more than a playout needs. Tests hold it to the engine's rules.
With ``noise``, the seats other than the searching one sometimes play a random card instead
(an epsilon-greedy playout), so that a search does not count on its opponents playing greedily.
"""

from __future__ import annotations

import random

from .bits import ALL_CARDS, COINS, bits_in, resolve
from .policy import close, follow, lead

__all__ = ["play_out"]


def play_out(
    hands: list[int],
    played: int,
    trick: list[int],
    leader: int,
    scores: list[int],
    target: int,
    *,
    noise: float = 0.0,
    rng: random.Random | None = None,
    searcher: int | None = None,
) -> int | None:
    """Play the hand to its end (or the game's); return the game's winner, if any.

    ``hands`` (one mask per seat), ``trick`` (bits in play order, led by ``leader``) and
    ``scores`` are updated in place; ``played`` holds the cards played this hand so far.
    With ``noise`` and an ``rng``, every seat but ``searcher`` plays, with that chance at each
    card, a card drawn uniformly from its hand instead of the greedy one.
    """
    if rng is None:
        noise = 0.0
    seat = (leader + len(trick)) % 3
    while True:
        while len(trick) < 3:
            hand = hands[seat]
            if not hand:
                return None  # the sixteenth trick is over
            if noise and seat != searcher and rng is not None and rng.random() < noise:
                bits = list(bits_in(hand))
                bit = bits[rng.randrange(len(bits))]
            elif not trick:
                bit = lead(hand)[0]
            elif len(trick) == 1:
                bit = follow(hand, ALL_CARDS & ~played & ~hand, trick[0])[0]
            else:
                bit = close(hand, trick[0], trick[1])[0]
            card = 1 << bit
            hands[seat] = hand ^ card
            played |= card
            trick.append(bit)
            seat = (seat + 1) % 3
        a, b, c = trick
        winner = (leader + resolve(a, b, c)) % 3
        scores[winner] += ((1 << a | 1 << b | 1 << c) & COINS).bit_count()
        if scores[winner] >= target:
            return winner
        trick.clear()
        leader = seat = winner
