"""The worker role on both databases: the moves a clock makes due are made by a pass at time T, with
nobody reading the game; once across two workers; a game of bots alone only while it is followed;
and /readyz says whether a worker is up."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text

from service.games import GameService
from service.store import DatabaseUnavailable, Owed
from service.worker import Worker

TURN = 30  # seconds a turn


def _stored(app: Flask, game_id: str) -> tuple[int, int]:
    """The game's version and its count of actions, read from the tables (a read of the API would
    itself make the moves it finds due)."""
    with app.extensions["coins.db"].engine.connect() as connection:
        row = connection.execute(text("SELECT version, action_count FROM games WHERE id = :id"), {"id": game_id}).one()
    return int(row[0]), int(row[1])


def _causes(client: Any, game_id: str) -> list[tuple[int, str]]:
    return [(a["seat"], a["cause"]) for a in client.get(f"/v1/games/{game_id}/actions?limit=500").json["items"]]


def test_a_pass_after_the_deadline_makes_the_stand_ins_move_without_a_reader(app, client, new_table, clock, worker):
    table = new_table(seed="due", first_dealer=0, turn_timeout_seconds=TURN)
    assert table.deal(0).status_code == 201
    before = _stored(app, table.id)
    assert worker.run_due(clock.now + timedelta(seconds=TURN - 1)) == 0  # not yet due
    clock.now += timedelta(seconds=TURN + 1)
    assert worker.run_due(clock.now) == 1
    version, actions = _stored(app, table.id)
    assert version > before[0] and actions == before[1] + 1  # made by the worker: nobody read the game
    assert worker.run_due(clock.now) == 0  # made once: its next deadline is TURN seconds away
    assert _causes(client, table.id)[-1] == (1, "timeout")


def test_two_workers_make_a_due_move_once(app, client, new_table, clock, worker):
    games: GameService = app.extensions["coins.games"]
    other = Worker(games, games.store.due, clock, poll=0.01, instance="test:2")
    table = new_table(seed="due-twice", first_dealer=0, turn_timeout_seconds=TURN)
    table.deal(0)
    clock.now += timedelta(seconds=TURN + 1)
    barrier = threading.Barrier(2)
    made: list[int] = []

    def run(each: Worker) -> None:
        barrier.wait(10)
        made.append(each.run_due(clock.now))

    threads = [threading.Thread(target=run, args=(each,)) for each in (worker, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(made) == [0, 1]
    assert _causes(client, table.id).count((1, "timeout")) == 1


def test_a_game_of_bots_alone_moves_only_while_followed(app, client, clock, worker):
    bots = [{"bot": "random"}] * 3
    game_id = client.post("/v1/games", json={"seats": bots, "target_score": 100}).json["id"]
    before = _stored(app, game_id)  # its creation made the moves one request may; the rest are owed
    assert worker.run_due(clock.now) == 0
    assert _stored(app, game_id) == before
    due = app.extensions["coins.games"].store.due
    due.mark_followed([game_id], clock.now + timedelta(seconds=15))
    assert worker.run_due(clock.now) == 1
    assert _stored(app, game_id)[1] > before[1]
    clock.now += timedelta(seconds=16)  # nobody follows it any more: it pauses
    paused = _stored(app, game_id)
    assert worker.run_due(clock.now) == 0 and _stored(app, game_id) == paused


def test_a_lapse_the_worker_finds_is_a_leave_the_second_time(app, client, new_table, clock, worker):
    table = new_table(seed="due-lapse", first_dealer=0, turn_timeout_seconds=TURN)
    table.deal(0)
    for _ in range(2):  # seat 1's turn lapses; the others play at once until it is seat 1's again
        for _ in range(6):
            state = table.state()
            if state["turn"] == 1:
                break
            table.play(state["turn"], table.hand(state["turn"])[0])
        clock.now += timedelta(seconds=TURN + 1)
        assert worker.run_due(clock.now) == 1
    assert table.state()["seats"][1]["bot"] == "basic"


def test_readyz_says_whether_a_worker_is_up(client, clock, worker):
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json["roles"]["worker"] == "down"  # down shows; the probe holds
    worker.beat()
    assert client.get("/readyz").json["roles"]["worker"] == "up"


def test_readyz_says_whether_the_workers_listener_is_lost(app, client, clock):
    """A worker whose listener for the changes of games is lost (reconnecting) shows in /readyz's body
    and in coins_role_listening, while the probe holds: the proxy routes on it."""
    games: GameService = app.extensions["coins.games"]
    listening = [False]
    worker = Worker(games, games.store.due, clock, poll=0.01, instance="test:deaf", listening=lambda: listening[0])
    assert client.get("/readyz").json["listeners"]["worker"] == "unknown"  # no worker seen
    worker.beat()
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json["roles"]["worker"] == "up"
    assert ready.json["listeners"]["worker"] == "lost"
    assert _gauge(client, "coins_role_listening", "worker") == 0.0
    listening[0] = True
    worker.beat()  # the same process, listening again
    assert client.get("/readyz").json["listeners"] == {"worker": "listening", "realtime": "unknown"}
    assert _gauge(client, "coins_role_listening", "worker") == 1.0


def _gauge(client: Any, name: str, role: str) -> float:
    line = f'{name}{{role="{role}"}} '
    found = [row for row in client.get("/metrics").text.splitlines() if row.startswith(line)]
    assert len(found) == 1, found
    return float(found[0].removeprefix(line))


def test_a_pass_runs_quick_plays_due_wave_with_nobody_reading(app, client, clock):
    games: GameService = app.extensions["coins.games"]
    worker = Worker(games, games.store.due, clock, poll=0.01, queue=app.extensions["coins.queue"], instance="test:3")
    created = client.post("/v1/players", json={"name": "Ana"}).json
    auth = {"Authorization": f"Bearer {created['key']}"}
    ticket = client.post("/v1/queue", json={"bots_after": 5}, headers=auth).json
    assert ticket["status"] == "waiting"
    worker.run_due(clock.now)  # bots join after 5 s: not yet
    with app.extensions["coins.db"].engine.connect() as connection:
        status = text("SELECT status FROM queue_tickets WHERE id = :id")
        assert connection.execute(status, {"id": ticket["id"]}).scalar() == "waiting"
        clock.now += timedelta(seconds=6)
        worker.run_due(clock.now)
        connection.rollback()
        assert connection.execute(status, {"id": ticket["id"]}).scalar() == "matched"


def test_a_worker_that_cannot_reach_the_database_backs_off_and_goes_on(app, clock, caplog):
    games: GameService = app.extensions["coins.games"]
    real = games.store.due
    passes: list[datetime] = []

    class Unreachable:  # the database away for the first two passes
        def due_games(self, now: datetime, limit: int) -> list[str]:
            passes.append(now)
            if len(passes) <= 2:
                raise DatabaseUnavailable("connection refused")
            return real.due_games(now, limit)

        def beat(self, role: str, instance: str, now: datetime, *, listening: bool = True) -> None:
            real.beat(role, instance, now, listening=listening)

        def next_due(self, now: datetime) -> datetime | None:
            return real.next_due(now)

        def owed(self) -> Owed:
            return real.owed()

    worker = Worker(games, Unreachable(), clock, poll=0.01, instance="test:4")  # type: ignore[arg-type]
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while len(passes) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join(10)
    assert len(passes) >= 4 and not thread.is_alive()
    assert caplog.text.count("the database does not answer") == 1  # as the outage begins, not every try
    assert "the database answers again" in caplog.text


def test_a_mark_skips_a_game_another_transaction_holds(app, client, clock):
    """On PostgreSQL a mark waits for no game's lock (two processes' marks of the same games deadlocked,
    each UPDATE locking its rows in its scan's order); the game held is marked at the next mark."""
    if app.extensions["coins.db"].is_sqlite:
        pytest.skip("SQLite's writers take turns: no lock to skip")
    bots = [{"bot": "random"}] * 3
    held, free = (client.post("/v1/games", json={"seats": bots}).json["id"] for _ in range(2))
    due = app.extensions["coins.games"].store.due
    engine = app.extensions["coins.db"].engine
    until = clock.now + timedelta(days=30)  # later than any mark the test client made
    marked = threading.Event()
    with engine.connect() as holder:
        holder.execution_options(isolation_level="READ COMMITTED")  # a transaction: the pool's are autocommit
        holder.begin()
        holder.execute(text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": held})
        mark = threading.Thread(target=lambda: (due.mark_followed([held, free], until), marked.set()))
        mark.start()
        finished = marked.wait(5)
        holder.rollback()
    mark.join(30)
    assert finished  # it did not wait for the lock
    with engine.connect() as connection:
        rows = dict(
            connection.execute(
                text("SELECT id, followed_until FROM games WHERE id IN (:a, :b)"), {"a": held, "b": free}
            ).all()
        )
    assert rows[held] != until and rows[free] == until
    due.mark_followed([held, free], until)  # the next mark, the lock let go: the game held is marked now
    with engine.connect() as connection:
        marked_now = connection.execute(text("SELECT followed_until FROM games WHERE id = :id"), {"id": held})
        assert marked_now.scalar() == until
