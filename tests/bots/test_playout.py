"""The playout simulator plays a hand exactly as the engine does with basic bots in every seat."""

from __future__ import annotations

import pytest

from service.bots import Bot
from service.bots.bits import bit_of, mask_of
from service.bots.playout import play_out
from service.engine import Game, Status, private_view

from .conftest import bots_for, new_game

STRENGTHS = ("basic", "basic", "basic")


def simulate_from(game: Game) -> tuple[list[int], int | None]:
    """Scores and winner when the playout simulator finishes the hand in progress."""
    hands = [mask_of(game.hand(seat)) for seat in range(3)]
    trick = [bit_of(play.card) for play in game.trick]
    played = mask_of(play.card for done in game.hand_tricks for play in done.plays) | mask_of(
        play.card for play in game.trick
    )
    assert game.leader is not None
    scores = list(game.scores)
    winner = play_out(hands, played, trick, game.leader, scores, game.target_score)
    return scores, winner


def play_card(game: Game, bots: list[Bot]) -> None:
    seat = game.turn
    assert seat is not None
    game.play(seat, bots[seat].decide(private_view(game, seat)).card)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("target", [5, 15])
def test_playouts_finish_a_hand_as_the_engine_does(seed: int, target: int) -> None:
    game = new_game(f"playout/{seed}", target=target, first_dealer=seed % 3)
    bots = bots_for(STRENGTHS, seed)
    game.deal(game.dealer)
    for _ in range(seed % 3 + 3 * (seed % 5)):  # start mid-trick, some tricks in
        play_card(game, bots)
    scores, winner = simulate_from(game)
    while game.status is Status.PLAYING:
        play_card(game, bots)
    assert scores == list(game.scores)
    assert winner == game.winner
