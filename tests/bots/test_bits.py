"""The bots' card masks and trick tables agree with the engine's cards and trick rules."""

from __future__ import annotations

import itertools

from service.bots.bits import (
    COINS,
    bit_of,
    card_of,
    cards_in,
    mask_of,
    resolve,
    trick_winner_bits,
    winning_seconds,
    winning_thirds,
)
from service.engine import DECK, trick_points, trick_winner


def test_every_card_has_its_own_bit() -> None:
    assert sorted(bit_of(card) for card in DECK) == list(range(48))
    assert all(card_of(bit_of(card)) is card for card in DECK)


def test_masks_list_cards_cheapest_first() -> None:
    cards = cards_in(mask_of(DECK))
    assert [card.rank_index for card in cards] == sorted((card.rank_index for card in DECK), reverse=True)
    assert {card for card in cards if card.is_coin} == set(cards_in(COINS))


def test_trick_resolution_agrees_with_the_engine_on_every_trick() -> None:
    for a, b, c in itertools.permutations(DECK, 3):
        bits = bit_of(a), bit_of(b), bit_of(c)
        expected = trick_winner((a, b, c))
        assert resolve(*bits) == expected, (a, b, c)
        assert trick_winner_bits(*bits) == expected, (a, b, c)


def test_tables_name_the_cards_that_win_in_second_and_third_place() -> None:
    for a, b in itertools.permutations(DECK, 2):
        lead, second = bit_of(a), bit_of(b)
        for c in DECK:
            if c in (a, b):
                continue
            winner = trick_winner((a, b, c))
            assert bool(winning_thirds(lead, second) >> bit_of(c) & 1) == (winner == 2)
            assert bool(winning_seconds(lead, second) >> bit_of(c) & 1) == (winner == 1)


def test_coins_mask_counts_trick_points() -> None:
    for trick in itertools.combinations(DECK[::5], 3):
        assert (mask_of(trick) & COINS).bit_count() == trick_points(trick)
