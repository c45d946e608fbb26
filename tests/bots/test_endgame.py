"""The exact endgame: max-n play with every hand seen, held to a brute force over the engine's own rules."""

from __future__ import annotations

import random

import pytest

from service.bots.bits import bit_of, bits_in, card_of
from service.bots.endgame import distinct, solve, standing
from service.engine import DECK, trick_points, trick_winner

Values = tuple[float, float, float]


def brute_force(hands: list[list[int]], trick: list[int], leader: int, scores: list[int], target: int) -> Values:
    """Every card of every hand tried, tricks judged by the engine; each seat keeps its best (the cheapest on ties)."""
    seat = (leader + len(trick)) % 3
    if not hands[seat]:
        return tuple(standing(scores, None, s, target) for s in range(3))  # type: ignore[return-value]
    best: Values | None = None
    for bit in sorted(hands[seat]):
        rest = [list(hand) for hand in hands]
        rest[seat].remove(bit)
        played = [*trick, bit]
        if len(played) < 3:
            value = brute_force(rest, played, leader, scores, target)
        else:
            cards = [card_of(b) for b in played]
            winner = (leader + trick_winner(cards)) % 3
            won = list(scores)
            won[winner] += trick_points(cards)
            if won[winner] >= target:
                value = tuple(1.0 if s == winner else 0.0 for s in range(3))  # type: ignore[assignment]
            else:
                value = brute_force(rest, [], winner, won, target)
        if best is None or value[seat] > best[seat]:
            best = value
    assert best is not None
    return best


def position(seed: int) -> tuple[list[list[int]], list[int], int, list[int], int]:
    """A random end of a hand: two or three tricks left, perhaps a trick begun, near-target scores."""
    rng = random.Random(seed)
    tricks_left = rng.choice([2, 3])
    begun = rng.randrange(3)
    leader = rng.randrange(3)
    cards = rng.sample([bit_of(card) for card in DECK], tricks_left * 3)
    trick = cards[:begun]
    rest = cards[begun:]
    hands: list[list[int]] = [[], [], []]
    for offset in range(3):
        seat = (leader + offset) % 3
        count = tricks_left - (1 if offset < begun else 0)
        hands[seat], rest = rest[:count], rest[count:]
    scores = [rng.randrange(12) for _ in range(3)]
    return hands, trick, leader, scores, rng.choice([10, 12, 15])


@pytest.mark.parametrize("seed", range(40))
def test_the_solver_agrees_with_brute_force(seed: int) -> None:
    hands, trick, leader, scores, target = position(seed)
    masks = tuple(sum(1 << bit for bit in hand) for hand in hands)
    got = solve(masks, tuple(trick), leader, (scores[0], scores[1], scores[2]), target)  # type: ignore[arg-type]
    assert got == pytest.approx(brute_force(hands, trick, leader, scores, target))


def test_cards_no_other_card_separates_play_alike() -> None:
    cups = sorted(bit_of(card) for card in DECK if card.suit.value == "cups")  # the 2 of cups first
    hand = 1 << cups[0] | 1 << cups[1] | 1 << cups[3]
    assert distinct(hand, 0) == [cups[0]]
    assert distinct(hand, 1 << cups[2]) == [cups[0], cups[3]]
    assert list(bits_in(hand)) == sorted([cups[0], cups[1], cups[3]])
