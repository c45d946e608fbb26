"""A fast simulator of the rest of a hand over masks, every seat following the greedy policy.

The expert's playouts run here, never through the engine's :class:`~service.engine.Game`,
which checks and records far more than a playout needs. Tests hold it to the engine's rules.
"""

from __future__ import annotations

from .bits import ALL_CARDS, COINS, resolve
from .policy import close, follow, lead

__all__ = ["play_out"]


def play_out(
    hands: list[int],
    played: int,
    trick: list[int],
    leader: int,
    scores: list[int],
    target: int,
) -> int | None:
    """Play the hand to its end (or the game's); return the game's winner, if any.

    ``hands`` (one mask per seat), ``trick`` (bits in play order, led by ``leader``) and
    ``scores`` are updated in place; ``played`` holds the cards played this hand so far.
    """
    seat = (leader + len(trick)) % 3
    while True:
        while len(trick) < 3:
            hand = hands[seat]
            if not hand:
                return None  # the sixteenth trick is over
            if not trick:
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
