"""Quick play across two gunicorn instances, each with a worker beside it, on one PostgreSQL: many
players queue at once through both, and read their tickets through both, with no coordinator: every ticket is matched exactly
once, no player sits in two new games, and no compatible tickets are left waiting once the
window (``QUEUE_MATCH_SECONDS``, 2 s here rather than 60) has passed, however far apart their ratings.

Skipped on SQLite (one host, no shared database).
"""

from __future__ import annotations

import functools
import os
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from tests.events.test_streams import call, gunicorn
from tests.support.server import worker_beside
from tests.support.tickets import check_every_ticket_matched_once, run_at_once, spread_ratings, wait_until_started

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]

PLAYERS = 45
POLL_ROUNDS = 200  # each player reads their ticket at most this many times
POLL_SECONDS = 0.1


def test_players_queueing_through_two_instances_are_matched_each_once(database_url: str, tmp_path: Path) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL (TEST_DATABASE_URL): two instances share one database")
    with ExitStack() as running:
        env = {"RATE_LIMITS": "off", "QUEUE_MATCH_SECONDS": "2", "GUNICORN_CMD_ARGS": "--no-control-socket"}
        ports = [running.enter_context(gunicorn(database_url, tmp_path, **env)).port for _ in range(2)]
        workers = {**os.environ, **env, "DATABASE_URL": database_url, "WORKER_POLL_MS": "100", "LOG_LEVEL": "WARNING"}
        for number in range(2):  # a worker beside each instance: the waves after the window are theirs
            running.enter_context(worker_beside(workers, cwd=ROOT, log=tmp_path / f"worker-{number}.log"))
        players = [call(ports[n % 2], "POST", "/v1/players", {"name": f"P{n}"}) for n in range(PLAYERS)]
        engine = create_engine(database_url)
        spread_ratings(engine, [player["id"] for player in players], seed=5)

        def play(number: int, key: str) -> None:
            ticket = call(ports[number % 2], "POST", "/v1/queue", {"bots_after": None}, key)
            for round_ in range(POLL_ROUNDS):  # through each instance in turn
                read = call(ports[(number + round_) % 2], "GET", f"/v1/queue/{ticket['id']}", None, key)
                if read["status"] != "waiting":
                    return
                time.sleep(POLL_SECONDS)

        run_at_once([functools.partial(play, n, p["key"]) for n, p in enumerate(players)])
        wait_until_started(engine)  # a reader sees its ticket matched as the wave commits, before its game
        check_every_ticket_matched_once(engine, {p["id"] for p in players}, expected_games=PLAYERS // 3)
        engine.dispose()
