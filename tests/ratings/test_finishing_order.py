"""The finishing order of a finished game: the winner first, the others by score, leavers last."""

from __future__ import annotations

import random

import pytest

from service.engine import Game, GameSetup, Status
from service.ratings import finishing_order


@pytest.mark.parametrize(
    ("winner", "scores", "left", "places"),
    [
        (0, (15, 7, 3), (), (1, 2, 3)),
        (2, (3, 9, 16), (), (3, 2, 1)),
        (1, (4, 10, 6), (), (3, 1, 2)),
        (0, (15, 7, 7), (), (1, 2, 2)),  # equal scores tie for second
        (1, (0, 15, 0), (), (2, 1, 2)),
        (1, (10, 10, 3), (), (2, 1, 3)),  # the engine never ends so, but the winner stays first
        (0, (15, 9, 2), (1,), (1, 3, 2)),  # a leaver is last, whatever the bot on their seat scored
        (0, (15, 2, 9), (2,), (1, 2, 3)),
        (0, (15, 9, 2), (1, 2), (1, 2, 2)),  # two leavers tie for last
        (0, (15, 2, 9), (2, 1), (1, 2, 2)),
        (0, (15, 9, 2), (0,), (3, 1, 2)),  # the bot playing on for the leaver won: the leaver is still last
        (0, (15, 4, 4), (0,), (3, 1, 1)),  # ... and the other two, level, tie for first
        (1, (3, 20, 9), (1, 0), (2, 2, 1)),
        (2, (3, 9, 20), (0, 1, 2), (1, 1, 1)),  # all three left: no one finished ahead
    ],
)
def test_finishing_order(
    winner: int, scores: tuple[int, int, int], left: tuple[int, ...], places: tuple[int, ...]
) -> None:
    assert finishing_order(winner, scores, left) == places


@pytest.mark.parametrize(
    ("winner", "scores", "left", "message"),
    [
        (3, (15, 0, 0), (), "the winner must be a seat"),
        (-1, (15, 0, 0), (), "the winner must be a seat"),
        (0, (15, 0), (), "3 scores, not 2"),
        (0, (15, 0, 0, 0), (), "3 scores, not 4"),
        (0, (15, 0, 0), (3,), "the seats that left"),
    ],
)
def test_finishing_order_refuses_what_is_not_a_finished_game(
    winner: int, scores: tuple[int, ...], left: tuple[int, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        finishing_order(winner, scores, left)


def test_in_games_the_engine_plays_the_winner_alone_is_first() -> None:
    """The engine ends a game at the trick that takes one total to the target: the winner's score is above the rest."""
    rng = random.Random(23)
    for number in range(60):
        game = Game(GameSetup(target_score=rng.choice([1, 5, 10, 15]), first_dealer=number % 3, seed=f"order {number}"))
        while game.status is not Status.FINISHED:
            if game.status is Status.WAITING_FOR_DEAL:
                game.deal(game.dealer, None)
            else:
                seat = game.turn
                assert seat is not None
                game.play(seat, rng.choice(game.legal_cards(seat)))
        assert game.winner is not None
        places = finishing_order(game.winner, game.scores)
        assert places[game.winner] == 1 and places.count(1) == 1
        assert all(game.scores[game.winner] > score for seat, score in enumerate(game.scores) if seat != game.winner)
