"""The worker's probe of a pass (:meth:`.DueWork.owed`): one statement says which of the pass's steps
may find work, each step with work is said to have it, and a pass that finds nothing runs three
statements (the due games, the probe, the next due time), not one read per step."""

from __future__ import annotations

from datetime import timedelta

from flask import Flask
from sqlalchemy import event

from service.games import GameService
from service.store import Owed
from service.worker import Worker
from tests.support.every_event import Clock
from tests.support.rated_games import rated_game_played
from tests.support.working_client import bare_client

NOTHING = Owed(feeds=False, results=False, tickets=False, reviews=False)


def _owed(app: Flask) -> Owed:
    games: GameService = app.extensions["coins.games"]
    return games.store.due.owed()


def test_a_new_database_owes_nothing(app: Flask) -> None:
    assert _owed(app) == NOTHING


def test_each_step_with_work_is_owed_until_a_pass_has_done_it(app: Flask, worker: Worker, clock: Clock) -> None:
    stopped = bare_client(app)  # no worker behind it: what the requests owe stays owed
    game_id, ana, _, finished = rated_game_played(stopped)
    assert finished["status"] == "finished"
    owed = _owed(app)
    assert owed.feeds  # the players' events of the game, in its outbox
    assert owed.results  # its rated result, pending
    assert not owed.tickets and not owed.reviews

    worker.run_due(clock())  # its own read finds no result finished before now: the same instant
    assert _owed(app).results  # (the probe may say a step has work its read then finds not yet)
    clock.now += timedelta(milliseconds=1)
    worker.run_due(clock())  # applies the result, delivers the feeds and the result's game_result
    assert _owed(app) == NOTHING

    assert stopped.get(f"/v1/games/{game_id}/review").status_code == 202  # asked for: the worker computes it
    assert _owed(app) == NOTHING._replace(reviews=True)
    worker.review_seconds = 60.0
    for _ in range(20):  # a few plays a pass, within its CPU allowance
        if not _owed(app).reviews:
            break
        worker.run_due(clock())
    assert _owed(app) == NOTHING
    assert stopped.get(f"/v1/games/{game_id}/review").status_code == 200

    ticket = stopped.post("/v1/queue", json={"bots_after": None}, headers=ana.auth)
    assert ticket.status_code == 201, ticket.json
    assert _owed(app).tickets  # a waiting ticket: each wave looks at it
    worker.run_due(clock())
    assert _owed(app).tickets  # alone in the queue, still waiting
    assert stopped.delete(f"/v1/queue/{ticket.json['id']}", headers=ana.auth).status_code < 300
    worker.run_due(clock())
    assert _owed(app) == NOTHING


def test_a_pass_that_finds_nothing_runs_three_statements(app: Flask, worker: Worker, clock: Clock) -> None:
    statements: list[str] = []
    engine = app.extensions["coins.db"].engine

    def counted(_connection: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(statement.split()[0])

    event.listen(engine, "before_cursor_execute", counted)
    try:
        worker.run_due(clock())
        worker.pause()
    finally:
        event.remove(engine, "before_cursor_execute", counted)
    assert statements == ["SELECT"] * 3
