"""The ratings' apply step on both databases: once per game however many run it at once, ties shared,
bots' pending games batched in finishing order, the worker's pass over the pending results, and
coins-purge keeping what the histories need."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, text

from service.games.ids import BOT_PLAYER_IDS
from service.ratings.apply import RatingApplier
from service.store import RatingTransaction
from service.store.models import GameResultRow
from service.store.purge import purge
from service.worker import Worker
from tests.support.players import new_player
from tests.support.rated_games import play_out, rated_game_played
from tests.support.working_client import bare_client

RANDOM_BOT = BOT_PLAYER_IDS["random"]


@pytest.fixture
def stopped(app: Flask) -> FlaskClient:
    """A client with no worker behind it: the results of the games it plays stay pending (as while
    every worker is down) for the test to apply."""
    return bare_client(app)


def _applier(app) -> RatingApplier:
    return RatingApplier(app.extensions["coins.games"].store.ratings, lambda: datetime.now(UTC))


def _rows(app, sql, **params):
    with app.extensions["coins.db"].engine.connect() as connection:
        return connection.execute(text(sql), params).all()


def _player(app, player_id):
    [row] = _rows(app, "SELECT mu, sigma, rated_games FROM players WHERE id = :id", id=player_id)
    return row


def _set_places(app, game_id, places):
    """Rewrite a pending result's places (as a game with that finish would have recorded them)."""
    results = GameResultRow.__table__
    with app.extensions["coins.db"].engine.begin() as connection:
        entries = connection.execute(select(results.c.entries).where(results.c.game_id == game_id)).scalar_one()
        for entry, place in zip(entries, places, strict=True):
            entry["place"] = place
        connection.execute(results.update().where(results.c.game_id == game_id).values(entries=entries))


def test_two_processes_racing_apply_a_result_once(client, app, stopped):
    game_id, ana, bo, _ = rated_game_played(stopped)
    assert _player(app, ana.id).rated_games == 0  # nothing applied yet: the result is pending
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            applier = _applier(app)
            barrier.wait(timeout=10)
            applier.apply([game_id])
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    for player in (ana.id, bo.id, RANDOM_BOT):
        assert _player(app, player).rated_games == 1
    assert len(_rows(app, "SELECT player_id FROM rating_history WHERE game_id = :g", g=game_id)) == 3
    assert _rows(app, "SELECT count(*) FROM rating_history WHERE mu_after IS NULL") == [(0,)]
    _applier(app).apply([game_id])  # and again later: nothing more
    assert _player(app, ana.id).rated_games == 1


def test_a_tie_is_shared(client, app, stopped):
    game_id, ana, bo, _ = rated_game_played(stopped)
    _set_places(app, game_id, [2, 2, 1])  # the bot first, the two players level behind it
    _applier(app).apply([game_id])
    first, second = _player(app, ana.id), _player(app, bo.id)
    assert (first.mu, first.sigma) == (second.mu, second.sigma)
    assert first.mu < 25.0 < _player(app, RANDOM_BOT).mu


def test_a_bots_pending_games_are_applied_in_one_batch_in_finishing_order(client, app, stopped):
    games = [rated_game_played(stopped)[0] for _ in range(3)]
    _applier(app).apply(games[:1])  # the first game, its bot's row at once
    pending = _rows(app, "SELECT count(*) FROM rating_history WHERE mu_after IS NULL")
    assert pending == [(0,)] and _player(app, RANDOM_BOT).rated_games == 1
    applier = _applier(app)
    for game_id in games[1:]:
        applier.apply_result(game_id)  # step 1 only: the bot's rows wait
    assert _rows(app, "SELECT count(*) FROM rating_history WHERE mu_after IS NULL") == [(2,)]
    applier.apply_bot(RANDOM_BOT)
    rows = _rows(
        app, "SELECT mu_before, mu_after, games_before FROM rating_history WHERE player_id = :p"
        " ORDER BY finished_at", p=RANDOM_BOT,
    )  # fmt: skip
    assert [row.games_before for row in rows] == [0, 1, 2]
    assert all(rows[i].mu_after == rows[i + 1].mu_before for i in range(2))  # one rating, game after game
    assert _player(app, RANDOM_BOT) == (rows[-1].mu_after, _player(app, RANDOM_BOT).sigma, 3)


def test_the_worker_applies_the_pending_results_and_tells_the_players(client, app, stopped):
    _, ana, _, _ = rated_game_played(stopped)
    games = app.extensions["coins.games"]
    worker = Worker(games, games.store.due, lambda: games.clock(), poll=0.01, instance="test:1")
    games.clock = lambda: datetime.now(UTC) - timedelta(hours=1)  # the pass sees a result of its future
    worker.run_due(games.clock())
    assert client.get("/v1/leaderboard").status_code == 200  # a read changes no rating
    assert client.get(f"/v1/players/{ana.id}").json["rating"]["games"] == 0
    games.clock = lambda: datetime.now(UTC) + timedelta(seconds=3)
    worker.run_due(games.clock())
    assert client.get(f"/v1/players/{ana.id}").json["rating"]["games"] == 1
    assert _player(app, RANDOM_BOT).rated_games == 1
    told = client.get("/v1/players/me/events?after=0", headers=ana.auth).json["items"]
    assert [event["type"] for event in told].count("game_result") == 1


def test_a_result_and_the_game_result_it_owes_are_committed_together(client, app, stopped, monkeypatch):
    """A worker killed right after applying a result loses no game_result: it is in the game's
    outbox, committed with the ratings; and a result whose game_result cannot be written stays pending."""
    game_id, ana, _, _ = rated_game_played(stopped)
    games = app.extensions["coins.games"]
    games.clock = lambda: datetime.now(UTC) + timedelta(seconds=3)

    def fails(self, game_id, events):
        raise RuntimeError("the outbox could not be written")

    monkeypatch.setattr(RatingTransaction, "owe", fails)
    games.apply_pending_results()  # as the worker's pass does (a failure is logged, not raised)
    assert _player(app, ana.id).rated_games == 0  # nothing applied: the result is still pending
    assert _rows(app, "SELECT count(*) FROM game_results WHERE applied_at IS NULL") == [(1,)]
    monkeypatch.undo()
    games.clock = lambda: datetime.now(UTC) + timedelta(seconds=3)
    games.apply_pending_results()  # applied, and nothing delivered yet: no worker's pass since
    assert _player(app, ana.id).rated_games == 1
    owed = _rows(app, "SELECT player_id FROM outbox WHERE game_id = :g AND type = 'game_result'", g=game_id)
    assert (ana.id,) in owed
    assert _rows(app, "SELECT count(*) FROM player_events WHERE type = 'game_result'") == [(0,)]


def test_purge_keeps_the_history_and_waits_for_pending_results(client, app, stopped):
    applied, ana, _, _ = rated_game_played(client)
    pending, *_ = rated_game_played(stopped)
    # The worker's passes beside the reads below see the pending result as one of their future.
    app.extensions["coins.games"].clock = lambda: datetime.now(UTC) - timedelta(hours=1)
    db = app.extensions["coins.db"]
    old = datetime.now(UTC) - timedelta(days=100)
    with db.engine.begin() as connection:
        connection.execute(text("UPDATE games SET updated_at = :at"), {"at": old})
    before = client.get(f"/v1/players/{ana.id}/ratings").json["items"]
    now = datetime.now(UTC)
    purged = purge(db, finished_before=now - timedelta(days=90), abandoned_before=now - timedelta(days=30))
    assert purged.finished == 1
    assert _rows(app, "SELECT id FROM games") == [(pending,)]  # pending: kept until applied
    assert _rows(app, "SELECT game_id FROM game_results") == [(pending,)]
    assert client.get(f"/v1/players/{ana.id}/ratings").json["items"] == before  # all the history showed
    assert before[0]["game"] == applied
    _applier(app).apply([pending])
    assert purge(db, finished_before=now - timedelta(days=90), abandoned_before=now - timedelta(days=30)).finished == 1
    assert len(_rows(app, "SELECT * FROM rating_history WHERE game_id IN (:a, :b)", a=applied, b=pending)) == 6


def test_a_rated_table_of_one_player_and_two_bots_rates_all_three(client, app):
    ana = new_player(client, "Ana")
    created = client.post(
        "/v1/games", json={"seats": [{"player": "me"}, {"bot": "random"}, {"bot": "basic"}], "rated": True,
                           "target_score": 1}, headers=ana.auth,
    )  # fmt: skip
    play_out(client, created.json["id"], {0: ana.auth})
    for player in (ana.id, RANDOM_BOT, BOT_PLAYER_IDS["basic"]):
        assert _player(app, player).rated_games == 1
