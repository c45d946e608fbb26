"""A database outage, seen by each of the worker's threads: tried again at a short, bounded pace (the
owed moves resume within MAX_BACKOFF_SECONDS of the database's return), logged once as it begins
and once as it ends. The pauses are recorded, not waited (no sleeping)."""

from __future__ import annotations

import logging
from datetime import datetime

import pytest
from flask import Flask

from service.games import GameService
from service.store import DatabaseUnavailable, Owed
from service.worker import Worker
from service.worker.due import MAX_BACKOFF_SECONDS
from tests.support.every_event import Clock
from tests.support.pauses import Pauses

TRIES_DOWN = 12  # at a doubling pause from 0.5 s with no cap, the last would wait over half an hour


def _said(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage().split(":")[0]) for r in caplog.records if "the database" in r.getMessage()]


def test_the_passes_retry_within_the_cap_and_say_so_twice(app: Flask, clock: Clock, caplog) -> None:
    games: GameService = app.extensions["coins.games"]
    real = games.store.due
    stop = Pauses()
    tries: list[datetime] = []

    class Away:  # the database away for TRIES_DOWN passes, then back
        def due_games(self, now: datetime, limit: int) -> list[str]:
            tries.append(now)
            if len(tries) <= TRIES_DOWN:
                raise DatabaseUnavailable("connection refused")
            stop.set()
            worker.wake()  # the pause after this pass returns at once
            return real.due_games(now, limit)

        def beat(self, role: str, instance: str, now: datetime, *, listening: bool = True) -> None:
            real.beat(role, instance, now, listening=listening)

        def next_due(self, now: datetime) -> datetime | None:
            return real.next_due(now)

        def owed(self) -> Owed:
            return real.owed()

    # (no signal gap: the wake that ends it adds no pause)
    worker = Worker(games, Away(), clock, poll=0.5, instance="test:outage", signal_gap=0)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO):
        worker.run(stop)
    assert len(tries) == TRIES_DOWN + 1
    assert stop.waits == [0.5] + [MAX_BACKOFF_SECONDS] * (TRIES_DOWN - 1)
    assert MAX_BACKOFF_SECONDS <= 1.0  # back within 1 s of the database: inside the 2 s an owed move has
    assert _said(caplog) == [
        (logging.WARNING, "the database does not answer (DatabaseUnavailable)"),
        (logging.INFO, "the database answers again"),
    ]


def test_the_deliveries_thread_backs_off_too_and_says_so_twice(app: Flask, clock: Clock, caplog) -> None:
    games: GameService = app.extensions["coins.games"]
    stop = Pauses()
    rounds: list[datetime] = []

    class Deliveries:
        def deliver_due(self, now: datetime, patience: float | None = None) -> int:
            rounds.append(now)
            if len(rounds) <= TRIES_DOWN:
                raise DatabaseUnavailable("connection refused")
            stop.set()
            return 1  # one sent: the next round follows at once (the loop sees stop)

    worker = Worker(games, games.store.due, clock, poll=0.5, instance="test:deliveries", webhooks=Deliveries())
    with caplog.at_level(logging.INFO):
        worker._deliver(Deliveries(), stop)
    assert len(rounds) == TRIES_DOWN + 1
    assert stop.waits == [0.5] + [MAX_BACKOFF_SECONDS] * (TRIES_DOWN - 1)
    assert _said(caplog) == [
        (logging.WARNING, "the database does not answer (DatabaseUnavailable)"),
        (logging.INFO, "the database answers again"),
    ]
