"""The expert's search is a fixed amount of work; its time cap is a safety net, counted and logged when it bites.

The clock is injected: no test here depends on how fast the machine is.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

import pytest

from service.bots import ExpertBot, make_bot
from service.bots.expert import ENDGAME_CARDS, capped_decisions
from service.engine import PrivateView, private_view

from .conftest import bots_for, game_at, new_game, play_game


def ticking(step: float) -> Callable[[], float]:
    """A clock that moves ``step`` seconds each time it is read."""
    now = [0.0]

    def clock() -> float:
        now[0] += step
        return now[0]

    return clock


def test_the_cap_is_counted_and_logged_when_it_bites(caplog: pytest.LogCaptureFixture) -> None:
    game = game_at("cap/bites", 0)
    seat = game.turn
    assert seat is not None
    before = capped_decisions()
    bot = ExpertBot(seat, random.Random(0), max_seconds=0.5, clock=ticking(1.0))
    with caplog.at_level(logging.WARNING, logger="service.bots.expert"):
        decision = bot.decide(private_view(game, seat))
    assert decision.card in game.legal_cards(seat)
    assert "cut short" in decision.reason
    assert capped_decisions() == before + 1
    assert any("safety net" in record.getMessage() for record in caplog.records)


def test_a_cap_that_does_not_bite_changes_nothing() -> None:
    game = game_at("cap/idle", 5)
    seat = game.turn
    assert seat is not None
    view = private_view(game, seat)
    before = capped_decisions()
    capped = ExpertBot(seat, random.Random(3), playouts=60, max_seconds=0.5, clock=ticking(0.0))
    free = ExpertBot(seat, random.Random(3), playouts=60)
    assert capped.decide(view) == free.decide(view)
    assert capped_decisions() == before


def endgame_view(seed: str) -> tuple[int, PrivateView]:
    """A position with at most ENDGAME_CARDS cards left in the hands, and the seat to play."""
    game = new_game(seed, target=40)
    game.deal(game.dealer)
    for view in play_game(game, bots_for(("basic", "basic", "basic"), seed)):
        if sum(view.public.cards_in_hand) <= ENDGAME_CARDS and len(view.legal_cards) > 1:
            return view.seat, view
    raise AssertionError("no endgame position")


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_the_same_seed_gives_the_same_move_in_the_endgame_too(seed: str) -> None:
    seat, view = endgame_view(f"endgame/{seed}")
    decisions = {make_bot("expert", seat, random.Random(seed)).decide(view) for _ in range(2)}
    assert len(decisions) == 1
    (decision,) = decisions
    assert "exactly" in decision.reason
