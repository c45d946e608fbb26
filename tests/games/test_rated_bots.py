"""In a rated game an expert searches its full, fixed budget whatever the worker step's CPU budget: its
moves are the same on a slow machine as on a fast one (the budget only moves them to later steps)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service import bots
from service.games import server_moves
from service.games.domain_events import EventLog
from service.games.server_moves import Pace, make_due_moves, new_stored_game, start_full_table
from service.games.transactions import restore
from service.store import StoredGame, StoredSeat

NOW = datetime(2026, 12, 2, tzinfo=UTC)
MOVES = 12  # enough for several expert decisions, few enough to be quick at the full budget


def _bots_game(*, rated: bool) -> StoredGame:
    """A table of three bots, an expert among them (the seed fixes the deals; the API never rates a
    seeded game, but the server's moves do not look at that)."""
    seats = [
        StoredSeat(number, f"Bot {number}", None, None, strength, NOW)
        for number, strength in enumerate(("random", "basic", "expert"))
    ]
    return new_stored_game(
        "01jf3v9k2m8q4r6t0w5x7y9z1a", seats, NOW, target_score=10, auto_deal=True, seed="rated-bots",
        first_dealer=0, turn_timeout_seconds=None, rated=rated,
    )  # fmt: skip


def _moves(*, rated: bool) -> list[tuple[int, str | None]]:
    """The game's first :data:`MOVES` actions, made over as many of the worker's steps as the budget needs."""
    stored = _bots_game(rated=rated)
    start_full_table(stored, NOW, Pace())
    for _ in range(10 * MOVES):  # a step makes the move due, and more while the budget is not spent
        if len(stored.new_actions) >= MOVES:
            break
        game = restore(stored)
        assert game is not None
        make_due_moves(stored, game, NOW, EventLog(), Pace())
    return [(action.seat, action.card) for action in stored.new_actions[:MOVES]]


def test_a_rated_experts_moves_do_not_depend_on_the_cpu_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    normal = _moves(rated=True)
    monkeypatch.setattr(server_moves, "SERVER_MOVE_SECONDS", 0.001)  # a move or two a request
    assert _moves(rated=True) == normal
    assert len(normal) == MOVES and sum(1 for _, card in normal if card is not None) > 3


def test_a_rated_expert_searches_its_full_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    options: list[dict[str, object]] = []
    made = bots.make_bot

    def recording(strength: str, seat: int, rng: object, **given: object) -> object:
        if strength == "expert":
            options.append(given)
        return made(strength, seat, rng, **given)  # type: ignore[arg-type]

    monkeypatch.setattr(server_moves, "make_bot", recording)
    _moves(rated=True)
    assert options and all(given == {} for given in options)  # DEFAULT_PLAYOUTS, no max_seconds
    options.clear()
    _moves(rated=False)
    assert options and all("max_seconds" in given for given in options)  # unrated: capped, as before
