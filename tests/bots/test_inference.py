"""Deals weighted by what the other seats' plays reveal: a play the greedy policy explains keeps its deal's weight."""

from __future__ import annotations

from service.bots.bits import bit_of, mask_of
from service.bots.inference import MISMATCH, clues, likelihood
from service.bots.knowledge import Knowledge
from service.engine import parse_card


def bits(*codes: str) -> int:
    return mask_of(parse_card(code) for code in codes)


def test_a_lead_the_greedy_policy_explains_weighs_more() -> None:
    # Seat 1 led the 5 of swords; seat 2 and seat 0 (the searcher) followed.
    history = ((1, bit_of(parse_card("5-swords"))), (2, bit_of(parse_card("3-clubs"))))
    mine = bits("king-cups", "9-coins")
    know = Knowledge(0, mine, mine, bits("5-swords", "3-clubs"), (), 1, (0, 0, 0), 15, (2, 1, 1), history)
    found = clues(know)
    assert [(clue.seat, clue.later) for clue in found] == [(1, bits("5-swords")), (2, bits("3-clubs"))]
    low_cards = [0, bits("4-cups"), bits("ace-cups")]  # seat 1 held the 4 of cups too: the policy leads it, not the 5
    high_cards = [0, bits("ace-cups"), bits("4-cups")]  # seat 1 held only the ace of cups besides the 5: it leads the 5
    # Seat 2, second to play, dumped the 3 of clubs: the policy's cheapest plain card in both deals, so only seat 1's lead tells the deals apart.
    assert likelihood(found, high_cards) == 1.0
    assert likelihood(found, low_cards) == MISMATCH
