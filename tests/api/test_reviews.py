"""getReview: 202 while the worker computes a finished game's review, 200 once it has; 409 before the end
and for a game of bots alone, 404 for no game; limited per address; the master is never a hint."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text

from service import create_app
from service.api.hooks.limits import LIMITS
from service.config import Settings
from service.games import GameService
from service.worker import Worker
from tests.api.test_record import play_to_end
from tests.support.players import new_player

PEOPLE = [{"name": "Ana", "age": 29}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 61}]


@pytest.fixture
def worker(app: Flask) -> Worker:
    games: GameService = app.extensions["coins.games"]
    return Worker(games, games.store.due, games.clock, poll=0.01, instance="test:reviews", review_seconds=0.5)


@pytest.fixture
def finished(new_table: Any) -> Any:
    table = new_table(seats=PEOPLE, target_score=3, seed="review", first_dealer=0)
    assert play_to_end(table)["status"] == "finished"
    return table


def _review(client: Any, game_id: str) -> Any:
    return client.get(f"/v1/games/{game_id}/review")


def _plays(client: Any, game_id: str) -> list[dict[str, Any]]:
    actions = client.get(f"/v1/games/{game_id}/actions?limit=500").json["items"]
    return [action for action in actions if action["kind"] == "play"]


def _until_reviewed(client: Any, worker: Worker, game_id: str, passes: int) -> Any:
    """Worker passes until the review is answered (each pass judges at least one play)."""
    for _ in range(passes):
        worker.run_due(datetime.now(UTC))
        answer = _review(client, game_id)
        if answer.status_code == 200:
            return answer
    raise AssertionError(f"the review of {game_id} was not ready after {passes} passes")


def test_the_first_read_asks_for_the_review_and_the_worker_computes_it(client, finished, worker):
    plays = _plays(client, finished.id)
    first = _review(client, finished.id)
    assert first.status_code == 202, first.json
    assert int(first.headers["Retry-After"]) >= 1
    assert first.json == {"game_id": finished.id, "reviewed": 0, "total": len(plays)}
    assert _review(client, finished.id).status_code == 202  # no read computes it: the worker does
    review = _until_reviewed(client, worker, finished.id, passes=len(plays) + 1).json
    assert review["game_id"] == finished.id and review["strength"] == "master"
    assert [(p["seq"], p["seat"], p["card"]) for p in review["plays"]] == [
        (p["seq"], p["seat"], p["card"]) for p in plays
    ]
    for play in review["plays"]:
        values = {c["card"]: c["expected_points"] for c in play["candidates"]}
        assert play["card"] in values and play["choice"] == play["candidates"][0]["card"]
        assert list(values.values()) == sorted(values.values(), reverse=True)
        assert play["loss"] == pytest.approx(values[play["choice"]] - values[play["card"]], abs=0.011)
    assert _review(client, finished.id).json == review  # stored: the same answer again


def test_a_review_is_the_same_however_the_work_is_split(app, client, finished, worker):
    _review(client, finished.id)
    first = _until_reviewed(client, worker, finished.id, passes=200).json
    with app.extensions["coins.db"].engine.begin() as connection:
        connection.execute(text("DELETE FROM reviews"))
    games: GameService = app.extensions["coins.games"]
    whole = Worker(games, games.store.due, games.clock, poll=0.01, instance="test:whole", review_seconds=60)
    assert _review(client, finished.id).status_code == 202  # asked for again
    whole.run_due(datetime.now(UTC))  # the whole review in one pass this time
    assert _review(client, finished.id).json == first


def test_an_unfinished_game_is_409_game_not_finished(client, new_table):
    table = new_table(seats=PEOPLE, target_score=3, seed="review-early", first_dealer=0)
    answer = _review(client, table.id)
    assert answer.status_code == 409 and answer.json["code"] == "game_not_finished"
    assert answer.content_type == "application/problem+json"


def test_a_cancelled_game_is_409_game_cancelled(client):
    """A declined challenge never starts: there is nothing to review, now or ever."""
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    seats = [{"player": "me"}, {"player": bo.id}, {"bot": "basic"}]
    game = client.post("/v1/games", json={"seats": seats}, headers=ana.auth).json
    assert client.delete(f"/v1/games/{game['id']}/players/me", headers=bo.auth).status_code == 204
    answer = _review(client, game["id"])
    assert answer.status_code == 409 and answer.json["code"] == "game_cancelled"


def test_no_such_game_is_404(client):
    answer = _review(client, "0" * 26)
    assert answer.status_code == 404 and answer.json["code"] == "game_not_found"


def test_a_game_of_bots_alone_is_not_reviewed(app, client, worker):
    game_id = client.post("/v1/games", json={"seats": [{"bot": "random"}] * 3, "target_score": 1}).json["id"]
    due = app.extensions["coins.games"].store.due
    for _ in range(50):  # it moves while followed
        if client.get(f"/v1/games/{game_id}").json["status"] == "finished":
            break
        now = datetime.now(UTC)
        due.mark_followed([game_id], now + timedelta(seconds=30))
        worker.run_due(now)
    assert client.get(f"/v1/games/{game_id}").json["status"] == "finished"
    answer = _review(client, game_id)
    assert answer.status_code == 409 and answer.json["code"] == "review_needs_a_person"


def test_a_game_a_person_left_to_a_bot_is_reviewed(client, new_table):
    table = new_table(seats=PEOPLE, target_score=2, seed="review-leaver", first_dealer=0)
    assert client.post(f"/v1/games/{table.id}/players/1/leave", json={}, headers=table.auth(1)).status_code == 200
    play_to_end(table)
    assert _review(client, table.id).status_code == 202


def test_the_master_is_never_a_hint(client, new_table):
    table = new_table(seats=PEOPLE, target_score=3, seed="review-hint", first_dealer=0)
    table.deal(0)
    turn = table.state()["turn"]
    answer = client.get(f"/v1/games/{table.id}/hint?strength=master", headers=table.auth(turn))
    assert answer.status_code == 422 and answer.json["code"] == "validation_error"
    assert client.get(f"/v1/games/{table.id}/hint?strength=expert", headers=table.auth(turn)).status_code == 200


@pytest.fixture
def limited(settings: Settings) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, rate_limits="on"))
    yield app
    app.extensions["coins.db"].dispose()


def test_reviews_are_limited_per_address(limited: Flask):
    allowed = int(LIMITS["reviews"][0].split("/")[0])
    client = limited.test_client()

    def read(address: str) -> int:
        return client.get(f"/v1/games/{'0' * 26}/review", environ_base={"REMOTE_ADDR": address}).status_code

    assert [read("10.0.0.7") for _ in range(allowed)] == [404] * allowed
    assert read("10.0.0.7") == 429
    assert read("10.0.0.8") == 404  # another address has its own count
