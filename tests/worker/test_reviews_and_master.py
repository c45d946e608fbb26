"""The worker's lowest priorities: reviews come after a pass's moves (and wait while the moves fill a
batch), and a master's plays are made by the worker alone, never by a request that finds one due."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from service.games import GameService
from service.worker import Worker
from service.worker import due as worker_due
from tests.api.test_record import play_to_end
from tests.support.every_event import Clock
from tests.support.working_client import bare_client

PEOPLE = [{"name": "Ana", "age": 29}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 61}]
TURN = 30


@pytest.fixture
def clock(app: Flask) -> Clock:
    clock = Clock()
    app.extensions["coins.games"].clock = clock
    return clock


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A client with no worker behind it: the passes counted are the test's own workers'."""
    return bare_client(app)


@pytest.fixture
def calls(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The order in which a pass calls the games' moves and reviews."""
    games: GameService = app.extensions["coins.games"]
    order: list[str] = []
    moves, reviews = games.make_due_moves, games.review_due

    def make_due_moves(game_id: str) -> bool:
        order.append("moves")
        return moves(game_id)

    def review_due(seconds: float) -> int:
        order.append("reviews")
        return reviews(seconds)

    monkeypatch.setattr(games, "make_due_moves", make_due_moves)
    monkeypatch.setattr(games, "review_due", review_due)
    return order


def _worker(app: Flask, clock: Clock) -> Worker:
    games: GameService = app.extensions["coins.games"]
    return Worker(games, games.store.due, clock, poll=0.01, instance="test:review", review_seconds=0.2)


def _action_count(app: Flask, game_id: str) -> int:
    with app.extensions["coins.db"].engine.connect() as connection:
        return int(connection.execute(text("SELECT action_count FROM games WHERE id = :id"), {"id": game_id}).scalar())


def _reviewed(app: Flask, game_id: str) -> int:
    with app.extensions["coins.db"].engine.connect() as connection:
        found = connection.execute(text("SELECT reviewed FROM reviews WHERE game_id = :id"), {"id": game_id})
        return int(found.scalar() or 0)


def _due_and_asked(client: Any, new_table: Any, clock: Clock) -> tuple[str, str]:
    """A finished game whose review is asked for, and a game whose stand-in move is due."""
    finished = new_table(seats=PEOPLE, target_score=2, seed="worker-review", first_dealer=0)
    play_to_end(finished)
    assert client.get(f"/v1/games/{finished.id}/review").status_code == 202
    waiting = new_table(seats=PEOPLE, seed="worker-due", first_dealer=0, turn_timeout_seconds=TURN)
    waiting.deal(0)
    clock.now += timedelta(seconds=TURN + 1)
    return finished.id, waiting.id


def test_a_pass_makes_the_due_moves_before_it_judges_a_review(app, client, new_table, clock, calls):
    finished, waiting = _due_and_asked(client, new_table, clock)
    before = _action_count(app, waiting)
    assert _worker(app, clock).run_due(clock.now) == 1
    assert calls == ["moves", "reviews"]
    assert _action_count(app, waiting) == before + 1 and _reviewed(app, finished) >= 1


def test_reviews_wait_while_the_moves_fill_a_batch(app, client, new_table, clock, calls, monkeypatch):
    finished, _waiting = _due_and_asked(client, new_table, clock)
    monkeypatch.setattr(worker_due, "BATCH", 1)  # the one due game fills the batch
    assert _worker(app, clock).run_due(clock.now) == 1
    assert calls == ["moves"] and _reviewed(app, finished) == 0
    assert _worker(app, clock).run_due(clock.now) == 0  # nothing due now: the review's turn
    assert calls == ["moves", "reviews"] and _reviewed(app, finished) >= 1


def test_a_masters_play_is_made_by_the_worker_alone(app, client, new_table, clock):
    seats = [{"name": "Ana", "age": 41}, {"bot": "master"}, {"name": "Cy", "age": 29}]
    table = new_table(seats=seats, seed="worker-master", first_dealer=0)
    table.deal(0)  # seat 1, the master, leads: its play is owed at once
    game = table.state()
    assert game["turn"] == 1 and game["seats"][1]["bot"] == "master"
    owed = _action_count(app, table.id)
    for _ in range(3):  # reads and a refused play find it due, and leave it
        assert table.state()["turn"] == 1
        assert table.play(2, table.hand(2)[0]).json["code"] == "not_your_turn"
    assert _action_count(app, table.id) == owed
    assert _worker(app, clock).run_due(clock.now) == 1
    assert _action_count(app, table.id) == owed + 1
    last = client.get(f"/v1/games/{table.id}/actions?limit=500").json["items"][-1]
    assert (last["seat"], last["kind"], last["cause"]) == (1, "play", "bot")


def test_a_review_that_fails_is_passed_over_and_the_next_ones_go_on(app, client, new_table, clock, monkeypatch, caplog):
    from service.games import reviews as game_reviews

    broken, sound = (new_table(seats=PEOPLE, target_score=2, seed=f"review-{n}", first_dealer=0) for n in (1, 2))
    for table in (broken, sound):
        play_to_end(table)
        assert client.get(f"/v1/games/{table.id}/review").status_code == 202  # asked for in this order
        clock.now += timedelta(seconds=1)
    replay = game_reviews.review_entries

    def review_entries(game_id: str, *args: Any, **kwargs: Any) -> Any:
        if game_id == broken.id:
            raise RuntimeError("a bug in this game's replay")
        return replay(game_id, *args, **kwargs)

    monkeypatch.setattr(game_reviews, "review_entries", review_entries)
    _worker(app, clock).run_due(clock.now)
    assert _reviewed(app, broken.id) == 0 and _reviewed(app, sound.id) >= 1
    assert f"the review of game {broken.id} failed" in caplog.text
    monkeypatch.setattr(game_reviews, "review_entries", replay)  # fixed: tried again, it goes on
    _worker(app, clock).run_due(clock.now)
    assert _reviewed(app, broken.id) >= 1
