"""Bots play only legal cards, in whole games through the engine, in every seat and mixture."""

from __future__ import annotations

import itertools

import pytest

from service.engine import Status

from .conftest import bots_for, new_game, play_game

MIXES = sorted(set(itertools.product(["random", "basic"], repeat=3)))


@pytest.mark.parametrize("mix", MIXES)
def test_random_and_basic_bots_finish_games_with_legal_cards(mix: tuple[str, str, str]) -> None:
    for number in range(40):
        game = new_game(f"legal/{mix}/{number}", target=15, first_dealer=number % 3)
        for view in play_game(game, bots_for(mix, number)):
            assert view.legal_cards == view.hand
        assert game.status is Status.FINISHED


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_expert_finishes_games_with_legal_cards(seat: int) -> None:
    mix = ["basic", "random", "basic"]
    mix[seat] = "expert"
    for number in range(2):
        game = new_game(f"legal/expert/{seat}/{number}", target=12, first_dealer=(seat + number) % 3)
        plays = sum(1 for _ in play_game(game, bots_for((mix[0], mix[1], mix[2]), number, playouts=40)))
        assert game.status is Status.FINISHED and plays > 0


def test_expert_at_its_default_budget_plays_a_legal_game() -> None:
    game = new_game("legal/expert/default", target=6)
    assert sum(1 for _ in play_game(game, bots_for(("expert", "basic", "random"), "default"))) > 0
    assert game.status is Status.FINISHED
