"""What wakes the worker's threads: a signalled change starts the next pass at once, but no sooner
than the signal gap after the last pass began (under load one pass serves the changes of a gap);
and a pass wakes the webhooks' deliveries only when it delivered events to the players' feeds (which
queues what webhooks are owed). The pauses are recorded, not waited (no sleeping)."""

from __future__ import annotations

from datetime import datetime

from flask import Flask

from service.games import GameService
from service.store import Owed
from service.worker import Worker
from tests.support.every_event import Clock
from tests.support.pauses import Pauses
from tests.support.players import new_player
from tests.support.working_client import bare_client

GAP = 5.0  # far longer than a pass on any machine


def _worker(app: Flask, clock: Clock, stop: Pauses, passes: list[datetime], *, signalled: bool, last: int) -> Worker:
    """A worker whose every pass is told of a change while it runs (``signalled``), stopped after ``last`` passes."""
    games: GameService = app.extensions["coins.games"]
    real = games.store.due

    class Counted:
        def due_games(self, now: datetime, limit: int) -> list[str]:
            passes.append(now)
            if len(passes) == last:
                stop.set()
            if signalled:
                worker.wake()
            return real.due_games(now, limit)

        def beat(self, role: str, instance: str, now: datetime, *, listening: bool = True) -> None:
            real.beat(role, instance, now, listening=listening)

        def next_due(self, now: datetime) -> datetime | None:
            return real.next_due(now)

        def owed(self) -> Owed:
            return real.owed()

    worker = Worker(games, Counted(), clock, poll=0.01, instance="test:gap", signal_gap=GAP)  # type: ignore[arg-type]
    return worker


def test_a_change_signalled_during_a_pass_waits_out_the_gap(app: Flask, clock: Clock) -> None:
    stop, passes = Pauses(), []
    _worker(app, clock, stop, passes, signalled=True, last=3).run(stop)
    assert len(passes) == 3
    assert len(stop.waits) == 3  # after each pass, the rest of the gap
    assert all(GAP - 1.0 < wait <= GAP for wait in stop.waits), stop.waits


def test_a_pass_that_no_signal_woke_waits_no_gap(app: Flask, clock: Clock) -> None:
    stop, passes = Pauses(), []
    _worker(app, clock, stop, passes, signalled=False, last=2).run(stop)  # each pause (0.01 s) runs out
    assert len(passes) == 2
    assert stop.waits == []


class Deliveries:
    def deliver_due(self, now: datetime, patience: float | None = None) -> int:
        return 0


def test_a_pass_wakes_the_webhooks_deliveries_only_when_it_delivered_events(app: Flask, clock: Clock) -> None:
    games: GameService = app.extensions["coins.games"]
    worker = Worker(games, games.store.due, clock, poll=0.01, instance="test:hooks", webhooks=Deliveries())
    worker._webhooks_beside = True  # as once run() started their thread
    worker.run_due(clock())
    assert not worker._webhooks_woken.is_set()  # nothing delivered: their thread sleeps on

    client = bare_client(app)
    ana = new_player(client, "Ana")
    body = {"seats": [{"player": "me"}, {"bot": "basic"}, {"bot": "random"}]}
    assert client.post("/v1/games", json=body, headers=ana.auth).status_code == 201  # owes Ana's feed
    assert worker.run_due(clock()) > 0
    assert worker._webhooks_woken.is_set()
