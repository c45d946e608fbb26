"""Trick resolution against an independent statement of the rules: every ordered triple, and the worked examples."""

from __future__ import annotations

import itertools

import pytest

from service.engine import parse_card, trick_points, trick_winner

# The rules page, restated with the test's own tables (not the engine's indices).
SUIT_CYCLE = ("cups", "coins", "swords", "clubs")  # each suit beats the next; clubs beat cups
RANKS_HIGH_TO_LOW = ("ace", "king", "knight", "knave", "9", "8", "7", "6", "5", "4", "3", "2")
BEATS = {suit: SUIT_CYCLE[(i + 1) % len(SUIT_CYCLE)] for i, suit in enumerate(SUIT_CYCLE)}
CODES = [f"{rank}-{suit}" for suit in SUIT_CYCLE for rank in RANKS_HIGH_TO_LOW]


def expected_winner(codes: tuple[str, str, str]) -> int:
    """The position of the winning card, straight from the rules page."""
    ranks = [code.split("-")[0] for code in codes]
    suits = [code.split("-")[1] for code in codes]
    present = set(suits)
    if len(present) == 3:
        # The present suits form a chain A > B > C: A beats B, B beats C. A wins.
        (a,) = [s for s in present if BEATS[s] in present and BEATS[BEATS[s]] in present]
        return suits.index(a)
    if len(present) == 2:
        (pair_suit,) = [s for s in present if suits.count(s) == 2]
        contenders = [i for i in range(3) if suits[i] == pair_suit]  # the odd card never wins
    else:
        contenders = [0, 1, 2]
    return min(contenders, key=lambda i: RANKS_HIGH_TO_LOW.index(ranks[i]))


def test_the_test_tables_describe_the_deck() -> None:
    assert len(CODES) == len(set(CODES)) == 48
    assert BEATS == {"cups": "coins", "coins": "swords", "swords": "clubs", "clubs": "cups"}


def test_every_ordered_triple_of_distinct_cards() -> None:
    cards = {code: parse_card(code) for code in CODES}
    checked = 0
    for triple in itertools.permutations(CODES, 3):
        played = (cards[triple[0]], cards[triple[1]], cards[triple[2]])
        want = expected_winner(triple)
        got = trick_winner(played)
        if got != want:
            pytest.fail(f"{triple}: engine says position {got} wins, the rules say {want}")
        if trick_points(played) != sum(code.endswith("-coins") for code in triple):
            pytest.fail(f"{triple}: wrong points {trick_points(played)}")
        checked += 1
    assert checked == 48 * 47 * 46


WORKED_EXAMPLES = [
    # (the three cards, the winner): from the rules page
    (("2-cups", "ace-coins", "ace-swords"), "2-cups"),  # clubs absent: cups win
    (("2-cups", "ace-coins", "3-clubs"), "3-clubs"),  # swords absent: clubs win
    (("ace-clubs", "king-cups", "knight-cups"), "king-cups"),  # pair of cups: king beats knight
    (("9-coins", "knave-coins", "2-coins"), "knave-coins"),  # one suit: highest rank
]


@pytest.mark.parametrize(
    ("order", "winner"),
    [
        pytest.param(order, winner, id="-then-".join(order))
        for cards, winner in WORKED_EXAMPLES
        for order in itertools.permutations(cards)
    ],
)
def test_worked_examples_in_every_play_order(order: tuple[str, str, str], winner: str) -> None:
    played = [parse_card(code) for code in order]
    assert order[trick_winner(played)] == winner
    assert order[expected_winner(order)] == winner  # the test's own statement agrees with the page


@pytest.mark.parametrize(
    ("cards", "points"),
    [
        (("2-cups", "ace-swords", "3-clubs"), 0),
        (("2-cups", "ace-coins", "3-clubs"), 1),
        (("2-coins", "ace-coins", "3-clubs"), 2),
        (("9-coins", "knave-coins", "2-coins"), 3),
    ],
)
def test_each_coins_card_is_worth_one_point(cards: tuple[str, str, str], points: int) -> None:
    assert trick_points([parse_card(code) for code in cards]) == points
