"""Building bots: every strength by name, and a clear error for anything else."""

from __future__ import annotations

import random

import pytest

from service.bots import STRENGTHS, Bot, make_bot
from service.engine import NotYourTurn, private_view

from .conftest import game_at


@pytest.mark.parametrize("strength", STRENGTHS)
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_every_strength_builds_a_bot_for_its_seat(strength: str, seat: int) -> None:
    bot = make_bot(strength, seat, random.Random(0))
    assert isinstance(bot, Bot)
    assert bot.seat == seat


@pytest.mark.parametrize(
    ("strength", "seat", "options", "message"),
    [
        ("grandmaster", 0, {}, "unknown bot strength 'grandmaster'"),
        ("Expert", 0, {}, "unknown bot strength"),
        ("basic", 3, {}, "seat must be 0, 1 or 2"),
        ("basic", -1, {}, "seat must be 0, 1 or 2"),
        ("random", True, {}, "seat must be 0, 1 or 2"),
        ("basic", 0, {"playouts": 10}, "the basic bot takes no option playouts"),
        ("expert", 0, {"depth": 3}, "the expert bot takes no option depth"),
        ("expert", 0, {"playouts": 0}, "playouts must be a whole number, at least 1"),
        ("expert", 0, {"playouts": 2.5}, "playouts must be a whole number"),
        ("expert", 0, {"max_seconds": 0}, "max_seconds must be positive"),
    ],
)
def test_bad_requests_raise_value_error(strength: str, seat: int, options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(strength, seat, random.Random(0), **options)


@pytest.mark.parametrize("strength", STRENGTHS)
def test_a_bot_asked_out_of_turn_raises_not_your_turn(strength: str) -> None:
    game = game_at("out-of-turn", 4)
    waiting = (game.turn or 0) + 1
    bot = make_bot(strength, waiting % 3, random.Random(0))
    with pytest.raises(NotYourTurn, match="has no card to play now"):
        bot.decide(private_view(game, waiting % 3))


@pytest.mark.parametrize("strength", STRENGTHS)
def test_a_bot_refuses_another_seats_view(strength: str) -> None:
    game = game_at("wrong-seat", 4)
    assert game.turn is not None
    bot = make_bot(strength, (game.turn + 1) % 3, random.Random(0))
    with pytest.raises(ValueError, match="was given the view of seat"):
        bot.decide(private_view(game, game.turn))


@pytest.mark.parametrize("strength", STRENGTHS)
def test_decisions_give_a_reason(strength: str) -> None:
    game = game_at("reason", 7)
    assert game.turn is not None
    decision = make_bot(strength, game.turn, random.Random(0)).decide(private_view(game, game.turn))
    assert decision.reason and decision.card in game.legal_cards(game.turn)


def test_an_expert_with_a_time_cap_still_decides_legally() -> None:
    game = game_at("time-cap", 0)
    assert game.turn is not None
    bot = make_bot("expert", game.turn, random.Random(0), playouts=10**6, max_seconds=0.02)
    decision = bot.decide(private_view(game, game.turn))
    assert decision.card in game.legal_cards(game.turn)
