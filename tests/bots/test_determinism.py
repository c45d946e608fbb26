"""The same strength, the same RNG seed and the same position give the same decision."""

from __future__ import annotations

import random

import pytest

from service.bots import STRENGTHS, make_bot
from service.engine import private_view

from .conftest import game_at


@pytest.mark.parametrize("strength", STRENGTHS)
@pytest.mark.parametrize("plays", [0, 1, 2, 17, 31])
def test_same_seed_same_state_same_decision(strength: str, plays: int) -> None:
    game = game_at(f"determinism/{plays}", plays)
    seat = game.turn
    assert seat is not None
    view = private_view(game, seat)
    decisions = {make_bot(strength, seat, random.Random("seed-7")).decide(view) for _ in range(3)}
    assert len(decisions) == 1


def test_the_random_bot_varies_with_its_seed() -> None:
    game = game_at("determinism/varies", 0)
    seat = game.turn
    assert seat is not None
    view = private_view(game, seat)
    cards = {make_bot("random", seat, random.Random(seed)).decide(view).card for seed in range(50)}
    assert len(cards) > 5


def test_a_bot_draws_on_from_its_rng_across_moves() -> None:
    game = game_at("determinism/stream", 3)
    seat = game.turn
    assert seat is not None
    view = private_view(game, seat)
    rng, replay = random.Random(11), random.Random(11)
    bot, twin = make_bot("expert", seat, rng, playouts=30), make_bot("expert", seat, replay, playouts=30)
    assert [bot.decide(view) for _ in range(3)] == [twin.decide(view) for _ in range(3)]
