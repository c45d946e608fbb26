"""The greedy policy's shortcuts agree with the rules they stand for."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from service.bots.bits import bits_in, winning_seconds
from service.bots.policy import sure_seconds


def sure_by_definition(hand: int, unseen: int, lead_bit: int) -> int:
    """Cards of ``hand`` that win second after the lead against every unseen third card."""
    return sum(
        1 << second
        for second in bits_in(hand)
        if all(winning_seconds(lead_bit, second) >> third & 1 for third in bits_in(unseen))
    )


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32), hand_size=st.integers(1, 16), unseen_size=st.integers(1, 32))
def test_sure_seconds_are_the_cards_no_unseen_card_beats(seed: int, hand_size: int, unseen_size: int) -> None:
    cards = list(range(48))
    random.Random(seed).shuffle(cards)
    lead_bit, hand_bits, unseen_bits = cards[0], cards[1 : 1 + hand_size], cards[17 : 17 + unseen_size]
    hand, unseen = sum(1 << bit for bit in hand_bits), sum(1 << bit for bit in unseen_bits)
    assert sure_seconds(hand, unseen, lead_bit) == sure_by_definition(hand, unseen, lead_bit)
