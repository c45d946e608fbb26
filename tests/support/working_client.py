"""The test client as the service runs: a worker keeps up with every request.

In production the worker role (``coins-worker``) makes what a change owes happen within a moment of
its commit (woken by the change's signal), and what time makes due within ``WORKER_POLL_MS`` of its
time: the moves a clock or a bot makes due, the players' events of a change, the rating of a
finished game. A test cannot wait for a moment, so :class:`WorkingClient` runs the worker's passes
(:meth:`.Worker.run_due`, at the service's clock) itself: one after each request that may change
something (any but GET, HEAD and OPTIONS: the signal's), and one before a request when the
service's clock has moved on by more than a pause since the last pass (a test that moves the clock
on moves the worker's time too). A test that waits for the worker without writing (bots playing
on, say) calls :func:`keep_up`. Tests of what a request does alone, without a worker (a read
changes nothing, say), use :func:`bare_client`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from service import DELIVERER_EXTENSION
from service.api.context import EXTENSION, QUEUE_EXTENSION
from service.store import DatabaseUnavailable
from service.worker.due import Worker

__all__ = ["NO_PACE", "WorkingClient", "bare_client", "follow", "keep_up"]

_WORKER = "coins.test_worker"
_LAST_PASS = "coins.test_worker_last_pass"
PAUSE = timedelta(milliseconds=500)  # the worker's pause between passes (WORKER_POLL_MS's default)
READS = ("GET", "HEAD", "OPTIONS")
# The settings of tests' apps: the server's moves due at once (no pace, no trick pause), so that the
# pass after a request makes them.
NO_PACE: dict[str, Any] = {
    "bot_pace_ms": 0,
    "trick_pause_ms": 0,
}  # requests that change nothing: no signal, no pass after them


class WorkingClient(FlaskClient):
    """A Flask test client around whose requests the worker runs what is due."""

    def open(self, *args: Any, **kwargs: Any) -> Any:
        app = self.application
        last = app.extensions.get(_LAST_PASS)
        if last is not None and _now(app) - last > PAUSE:
            _pass(app)
        response = super().open(*args, **kwargs)
        if response.request.method not in READS:
            _pass(app)
        return response


def keep_up(app: Flask) -> int:
    """One worker pass over ``app``'s database at the service's clock: what it did (see :meth:`.Worker.run_due`)."""
    worker = app.extensions.get(_WORKER)
    if worker is None:
        games = app.extensions[EXTENSION]
        worker = Worker(
            games, games.store.due, lambda: games.clock(), poll=0.01, queue=app.extensions[QUEUE_EXTENSION],
            instance="tests", webhooks=app.extensions.get(DELIVERER_EXTENSION),
        )  # fmt: skip
        app.extensions[_WORKER] = worker
    now = _now(app)
    app.extensions[_LAST_PASS] = now
    return worker.run_due(now)


def follow(app: Flask, game_ids: Collection[str], *, hours: int = 1) -> None:
    """Mark the games followed for ``hours``, as the real-time role does while someone follows their
    events: a game of bots alone moves only then (contract 1.3)."""
    games = app.extensions[EXTENSION]
    games.store.due.mark_followed(game_ids, games.clock() + timedelta(hours=hours))


def bare_client(app: Flask) -> FlaskClient:
    """A test client with no worker behind it: only what the requests do themselves."""
    return FlaskClient(app, app.response_class, use_cookies=True)


def _pass(app: Flask) -> None:
    """A pass beside a request: the worker's own business when the database does not answer (it
    backs off and tries again), never the request's."""
    with contextlib.suppress(DatabaseUnavailable):
        keep_up(app)


def _now(app: Flask) -> datetime:
    return app.extensions[EXTENSION].clock()  # type: ignore[no-any-return]
