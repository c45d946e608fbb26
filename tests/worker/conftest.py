"""The worker's tests: the service's clock driven by hand, and a worker on it (no sleeping)."""

from __future__ import annotations

import pytest
from flask import Flask

from service.games import GameService
from service.worker import Worker
from tests.support.every_event import Clock


@pytest.fixture
def clock(app: Flask) -> Clock:
    clock = Clock()
    service: GameService = app.extensions["coins.games"]
    service.clock = clock
    return clock


@pytest.fixture
def worker(app: Flask, clock: Clock) -> Worker:
    games: GameService = app.extensions["coins.games"]
    return Worker(games, games.store.due, clock, poll=0.01, instance="test:1")
