"""A play's review: every legal card valued on the same deals, the best one chosen, the loss against it."""

from __future__ import annotations

import random

import pytest

from service.bots import DEFAULT_PLAYOUTS, MASTER_PLAYOUTS, ExpertBot, make_bot, review_play
from service.engine import private_view

from .conftest import game_at


@pytest.mark.parametrize("plays", [0, 7, 23, 40])
def test_every_legal_card_is_valued_best_first_and_the_loss_is_against_the_best(plays: int) -> None:
    game = game_at("review/values", plays)
    seat = game.turn
    assert seat is not None
    view = private_view(game, seat)
    played = view.legal_cards[0]
    judged = review_play(view, played, random.Random(1), deals=30)
    assert sorted(value.card.code for value in judged.values) == sorted(card.code for card in view.legal_cards)
    points = [value.points for value in judged.values]
    assert points == sorted(points, reverse=True)
    assert judged.choice == judged.values[0].card
    by_card = {value.card: value.points for value in judged.values}
    assert judged.loss == pytest.approx(max(0.0, by_card[judged.choice] - by_card[played]), abs=0.011)
    assert all(0 <= value.points <= 12 for value in judged.values)  # a hand holds 12 points


def test_a_review_is_the_same_for_the_same_seed() -> None:
    game = game_at("review/seeded", 10)
    seat = game.turn
    assert seat is not None
    view = private_view(game, seat)
    first, again = (review_play(view, view.legal_cards[1], random.Random("s"), deals=25) for _ in range(2))
    assert first == again


def test_a_review_refuses_a_card_the_seat_could_not_play_and_another_seats_view() -> None:
    game = game_at("review/refusals", 5)
    seat = game.turn
    assert seat is not None
    someone_else = game.hand((seat + 1) % 3)[0]
    with pytest.raises(ValueError, match="was not a card seat"):
        review_play(private_view(game, seat), someone_else, random.Random(0))
    with pytest.raises(ValueError, match="deals must be a whole number"):
        review_play(private_view(game, seat), game.legal_cards(seat)[0], random.Random(0), deals=0)


def test_the_last_trick_s_points_are_known_exactly() -> None:
    game = game_at("review/last", 45)  # the last card of a hand is played with everything known
    seat = game.turn
    assert seat is not None and len(game.hand(seat)) == 1
    view = private_view(game, seat)
    judged = review_play(view, view.legal_cards[0], random.Random(0), deals=3)
    assert judged.loss == 0 and len(judged.values) == 1


def test_the_master_is_the_expert_s_search_with_more_playouts() -> None:
    bot = make_bot("master", 0, random.Random(0))
    assert isinstance(bot, ExpertBot) and bot.playouts == MASTER_PLAYOUTS >= 10 * DEFAULT_PLAYOUTS
    assert make_bot("master", 0, random.Random(0), playouts=40).playouts == 40
