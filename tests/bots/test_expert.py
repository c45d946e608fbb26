"""The expert's pieces: which cards it considers, how it judges a score line, and a plain good play."""

from __future__ import annotations

import random

import pytest

from service.bots import STRENGTHS, make_bot
from service.bots.bits import ALL_CARDS, bit_of, mask_of
from service.bots.expert import candidates, standing
from service.bots.knowledge import Knowledge
from service.engine import DECK, Game, from_snapshot, parse_card, private_view, snapshot

from .conftest import new_game


def knowing(hand: list[str], played: list[str]) -> Knowledge:
    mask = mask_of(parse_card(code) for code in hand)
    gone = mask_of(parse_card(code) for code in played)
    return Knowledge(0, mask, mask, gone, (), 0, (0, 0, 0), 15, (len(hand), 16, 16))


@pytest.mark.parametrize(
    ("hand", "played", "expected"),
    [
        (["7-cups", "5-cups"], ["6-cups"], ["5-cups"]),  # nothing unseen between: they play alike
        (["7-cups", "5-cups"], [], ["5-cups", "7-cups"]),  # the unseen 6 of cups tells them apart
        (["7-cups", "6-cups", "5-cups"], [], ["5-cups"]),
        (["5-cups", "5-coins"], [], ["5-cups", "5-coins"]),  # suits never play alike
        (["ace-swords", "2-swords"], [c.code for c in DECK if c.suit.value == "swords"][1:-1], ["2-swords"]),
    ],
)
def test_candidates_keep_one_card_of_each_run_that_plays_alike(
    hand: list[str], played: list[str], expected: list[str]
) -> None:
    assert candidates(knowing(hand, played)) == [bit_of(parse_card(code)) for code in expected]


def test_standing_is_certain_once_the_game_is_won() -> None:
    assert standing([15, 3, 3], 0, 0, 15) == 1.0
    assert standing([3, 15, 3], 1, 0, 15) == 0.0


@pytest.mark.parametrize("scores", [[0, 0, 0], [4, 9, 1], [14, 14, 0], [7, 7, 7]])
def test_standing_shares_the_chances_out_and_favours_the_leader(scores: list[int]) -> None:
    chances = [standing(scores, None, seat, 15) for seat in range(3)]
    assert sum(chances) == pytest.approx(1.0)
    order = sorted(range(3), key=scores.__getitem__)
    assert [chances[seat] for seat in order] == sorted(chances)


def table_with(lead: str, second: str, closer_holds: str) -> Game:
    """Seat 0 has led ``lead``, seat 1 played ``second``; seat 2, to play, holds ``closer_holds``."""
    on_table = {parse_card(lead), parse_card(second), parse_card(closer_holds)}
    rest = [card for card in DECK if card not in on_table]
    hands = [[parse_card(lead), *rest[:15]], [parse_card(second), *rest[15:30]], [parse_card(closer_holds), *rest[30:]]]
    data = snapshot(new_game("table"))
    data["state"].update(
        status="playing",
        hand_number=1,
        dealer=2,
        leader=0,
        turn=2,
        hands=[[card.code for card in hand[1:]] for hand in hands[:2]] + [[card.code for card in hands[2]]],
        trick=[[0, lead], [1, second]],
        seed="00",
        commitment="0" * 64,
    )
    return from_snapshot(data)


@pytest.mark.parametrize("strength", ["basic", "expert"])
def test_a_good_bot_takes_three_coins_when_only_its_coin_can(strength: str) -> None:
    game = table_with("2-coins", "3-coins", "ace-coins")
    assert (
        mask_of(game.hand(2))
        | mask_of(game.hand(0))
        | mask_of(game.hand(1))
        | mask_of(play.card for play in game.trick)
        == ALL_CARDS
    )
    decision = make_bot(strength, 2, random.Random(0)).decide(private_view(game, 2))
    assert decision.card == parse_card("ace-coins")


def test_strengths_are_listed_weakest_first() -> None:
    assert STRENGTHS == ("random", "basic", "expert", "master")
