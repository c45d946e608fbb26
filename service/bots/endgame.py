"""Exact play of a hand's last tricks with every hand seen (double dummy), for the expert's endgame.

With no duty to follow suit any card may be played, but by the last three tricks at most nine
cards are left, so the whole tree is small: at most 3·3·3·2·2·2 plays. Three players make it a
*max-n* tree: each seat plays the card that leaves it the best :func:`standing`, its own chance
of winning the game judged from the scores at the end of the hand (certain once a seat reaches
the target, which ends the game at once). Ties go to the cheapest card, as in the greedy policy.
"""

from __future__ import annotations

import math

from .bits import COINS, SUIT_MASKS, resolve

__all__ = ["SPREAD", "Memo", "standing", "standings", "solve", "value_of_play", "distinct"]

SPREAD = 1.5  # points: how fast a lead turns into a likely win, in :func:`standing` (1.5 beat 3)

Values = tuple[float, float, float]
Memo = dict[tuple[tuple[int, int, int], tuple[int, ...], int, tuple[int, int, int]], Values]


def standing(scores: list[int] | tuple[int, ...], winner: int | None, seat: int, target: int) -> float:
    """``seat``'s chance of winning the game, judged from the scores: 1 or 0 once someone has won."""
    if winner is not None:
        return 1.0 if winner == seat else 0.0
    weights = [math.exp((score - target) / SPREAD) for score in scores]
    return weights[seat] / sum(weights)


def standings(scores: tuple[int, int, int], target: int) -> Values:
    """Every seat's :func:`standing` at the end of a hand that nobody won the game in."""
    weights = [math.exp((score - target) / SPREAD) for score in scores]
    total = sum(weights)
    return weights[0] / total, weights[1] / total, weights[2] / total


def solve(
    hands: tuple[int, int, int], trick: tuple[int, ...], leader: int, scores: tuple[int, int, int], target: int
) -> Values:
    """Every seat's standing at the end of the hand when all play it out seeing every card."""
    return _value(hands, trick, leader, scores, target, {})


def value_of_play(
    hands: tuple[int, int, int],
    trick: tuple[int, ...],
    leader: int,
    scores: tuple[int, int, int],
    target: int,
    bit: int,
    memo: Memo,
) -> Values:
    """Every seat's standing once the seat to play has played ``bit`` and all play on seeing every card."""
    seat = (leader + len(trick)) % 3
    after = list(hands)
    after[seat] ^= 1 << bit
    played = (*trick, bit)
    if len(played) < 3:
        return _value((after[0], after[1], after[2]), played, leader, scores, target, memo)
    a, b, c = played
    winner = (leader + resolve(a, b, c)) % 3
    won = list(scores)
    won[winner] += ((1 << a | 1 << b | 1 << c) & COINS).bit_count()
    if won[winner] >= target:
        return (1.0 if winner == 0 else 0.0, 1.0 if winner == 1 else 0.0, 1.0 if winner == 2 else 0.0)
    return _value((after[0], after[1], after[2]), (), winner, (won[0], won[1], won[2]), target, memo)


def _value(
    hands: tuple[int, int, int],
    trick: tuple[int, ...],
    leader: int,
    scores: tuple[int, int, int],
    target: int,
    memo: Memo,
) -> Values:
    key = (hands, trick, leader, scores)
    known = memo.get(key)
    if known is not None:
        return known
    seat = (leader + len(trick)) % 3
    hand = hands[seat]
    if not hand:
        best = standings(scores, target)  # the sixteenth trick is over
    else:
        live = hands[0] | hands[1] | hands[2]
        for bit in trick:
            live |= 1 << bit
        best = (-1.0, -1.0, -1.0)
        for bit in distinct(hand, live & ~hand):
            value = value_of_play(hands, trick, leader, scores, target, bit, memo)
            if value[seat] > best[seat]:
                best = value
    memo[key] = best
    return best


def distinct(hand: int, others: int) -> list[int]:
    """The cards of ``hand``, one for each run of one suit that no card of ``others`` separates (they play alike)."""
    chosen: list[int] = []
    last_of_suit = [-1, -1, -1, -1]
    rest = hand
    while rest:
        low = rest & -rest
        rest ^= low
        bit = low.bit_length() - 1
        last = last_of_suit[bit & 3]
        last_of_suit[bit & 3] = bit
        if last < 0 or others & ((1 << bit) - (2 << last)) & SUIT_MASKS[bit & 3]:
            chosen.append(bit)
    return chosen
