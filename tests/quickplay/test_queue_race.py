"""Sixty players queue at once, on threads of one process (SQLite or PostgreSQL): every ticket is
matched exactly once, every player sits in one new game, and every three compatible tickets match."""

from __future__ import annotations

import functools
import time

import pytest
from flask import Flask

from service.games import GameService
from service.quickplay import QueueRequest, QueueService
from tests.support.tickets import check_every_ticket_matched_once, run_at_once, spread_ratings, wait_until_started

pytestmark = pytest.mark.slow

PLAYERS = 60
POLL_ROUNDS = 300  # each thread reads its ticket at most this many times
POLL_SECONDS = 0.02


def new_players(app: Flask, count: int) -> list[tuple[str, str]]:
    """``count`` players (id, key), their ratings spread wide apart (a mu from 0 to 50)."""
    client = app.test_client()
    players = []
    for number in range(count):
        created = client.post("/v1/players", json={"name": f"P{number}"})
        assert created.status_code == 201, created.json
        players.append((created.json["id"], created.json["key"]))
    spread_ratings(app.extensions["coins.db"].engine, [player_id for player_id, _ in players], seed=23)
    return players


def test_sixty_players_queueing_at_once_are_matched_each_once_into_twenty_games(app: Flask) -> None:
    games: GameService = app.extensions["coins.games"]
    queue = QueueService(games, window_seconds=1.0)  # any three match after a second: the test runs fast
    players = new_players(app, PLAYERS)

    def play(key: str) -> None:
        with games.unit_of_work() as uow:
            ticket = queue.enter(key, QueueRequest(target_score=15, rated=True, bots_after=None), uow=uow)
            uow.commit()
        for _ in range(POLL_ROUNDS):
            if queue.read(key, ticket.id).status != "waiting":
                return
            queue.match_due()  # what a worker's pass runs (a read no longer does): each thread one
            time.sleep(POLL_SECONDS)

    run_at_once([functools.partial(play, key) for _, key in players])
    engine = app.extensions["coins.db"].engine
    wait_until_started(engine)
    check_every_ticket_matched_once(engine, {player_id for player_id, _ in players}, expected_games=PLAYERS // 3)
