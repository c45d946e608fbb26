"""What a change owes others waits in its outbox, written with it, until the worker delivers it: on
both databases, a change's players' events are in no feed before the worker's pass and in each
feed exactly once after it; two deliverers at once deliver each once, in order; a delivery that
fails delivers nothing and loses nothing. And a read changes nothing: a move that is due waits for
the worker, whoever reads the game."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text

from service.store import player_events as store_player_events
from tests.support.players import new_player
from tests.support.working_client import bare_client, keep_up


def _count(app: Flask, sql: str, **params: Any) -> int:
    with app.extensions["coins.db"].engine.connect() as connection:
        return int(connection.execute(text(sql), params).scalar_one())


def _feed(client: Any, auth: dict[str, str]) -> list[dict[str, Any]]:
    """The player's events after their state (``after=0``: the whole feed as stored)."""
    response = client.get("/v1/players/me/events?after=0&wait=0", headers=auth)
    assert response.status_code == 200, response.json
    return response.json["items"]  # type: ignore[no-any-return]


def _game_against_bots(client: Any, auth: dict[str, str], **body: Any) -> str:
    body = {"seats": [{"player": "me"}, {"bot": "basic"}, {"bot": "random"}], **body}
    created = client.post("/v1/games", json=body, headers=auth)
    assert created.status_code == 201, created.json
    return created.json["id"]  # type: ignore[no-any-return]


def test_a_changes_events_wait_in_its_outbox_until_the_worker_delivers_them_once(app):
    client = bare_client(app)
    ana = new_player(client, "Ana")
    game_id = _game_against_bots(client, ana.auth)
    owed = _count(app, "SELECT count(*) FROM outbox WHERE game_id = :g", g=game_id)
    assert owed >= 1 and _feed(client, ana.auth) == []  # committed with the game, not yet in the feed
    keep_up(app)  # the bots' moves too (the worker's): their events, in the same pass
    delivered = _feed(client, ana.auth)
    assert len(delivered) >= owed and {event["game"] for event in delivered} == {game_id}
    assert [event["id"] for event in delivered] == list(range(1, len(delivered) + 1))
    assert _count(app, "SELECT count(*) FROM outbox") == 0
    keep_up(app)
    assert _feed(client, ana.auth) == delivered  # delivered once


def test_two_deliverers_at_once_deliver_each_event_once_in_order(app):
    client = bare_client(app)
    players = [new_player(client, name) for name in ("Ana", "Bo", "Cy", "Di")]
    for player in players:
        for _ in range(3):
            _game_against_bots(client, player.auth)
    owed = {
        player.id: _count(app, "SELECT count(*) FROM outbox WHERE player_id = :p", p=player.id) for player in players
    }
    store = app.extensions["coins.games"].store
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def deliver() -> None:
        start.wait(timeout=10)
        try:
            for _ in range(20):  # bounded: each call delivers up to 2 rows
                store.deliver_outbox(limit=2)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    store.deliver_outbox(limit=1000)  # what a deliverer skipped while the other held the lock
    assert _count(app, "SELECT count(*) FROM outbox") == 0
    for player in players:
        feed = _feed(client, player.auth)
        assert [event["id"] for event in feed] == list(range(1, owed[player.id] + 1))
        versions = [(event["game"], event.get("version", 0)) for event in feed]
        for game in {game for game, _ in versions}:  # each game's events in the order of its changes
            of_game = [version for g, version in versions if g == game]
            assert of_game == sorted(of_game)


def test_a_delivery_that_fails_delivers_nothing_and_loses_nothing(app, monkeypatch):
    client = bare_client(app)
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    _game_against_bots(client, ana.auth)
    _game_against_bots(client, bo.auth)
    owed = _count(app, "SELECT count(*) FROM outbox")
    real = store_player_events.queue_pushes
    calls = []

    def fails(connection: Any, events: Any) -> Any:  # after the events are written, in their transaction
        calls.append(len(events))
        raise RuntimeError("the database went away mid-delivery")

    monkeypatch.setattr(store_player_events, "queue_pushes", fails)
    with pytest.raises(RuntimeError):
        app.extensions["coins.games"].store.deliver_outbox(limit=100)
    assert calls == [owed], "every owed event was written in the one transaction that failed"
    assert _count(app, "SELECT count(*) FROM outbox") == owed
    assert _count(app, "SELECT count(*) FROM player_events") == 0  # the events written rolled back too
    monkeypatch.setattr(store_player_events, "queue_pushes", real)
    keep_up(app)  # the bots' moves (the worker's) owe events of their own, delivered with them
    assert _count(app, "SELECT count(*) FROM outbox") == 0
    assert len(_feed(client, ana.auth)) + len(_feed(client, bo.auth)) >= owed


def test_a_read_makes_no_move_even_a_due_one_and_the_worker_makes_it(app):
    client = bare_client(app)
    ana = new_player(client, "Ana")
    game_id = _game_against_bots(client, ana.auth, turn_timeout_seconds=30, auto_deal=True)
    keep_up(app)
    before = client.get(f"/v1/games/{game_id}").json
    if before["turn"] != 0:  # the bots owe moves first: the worker makes them
        keep_up(app)
        before = client.get(f"/v1/games/{game_id}").json
    assert before["turn"] == 0 and before["status"] == "playing"
    games = app.extensions["coins.games"]
    real = games.clock
    games.clock = lambda: real() + timedelta(seconds=31)  # Ana's turn has run out
    for path in ("", "/hand", "/actions", "/tricks", "/scores"):
        assert client.get(f"/v1/games/{game_id}{path}", headers=ana.auth).status_code == 200
    assert client.get("/v1/players/me/games", headers=ana.auth).status_code == 200
    assert client.get(f"/v1/games/{game_id}").json["version"] == before["version"]  # nobody's read moved it
    keep_up(app)
    after = client.get(f"/v1/games/{game_id}").json
    assert after["version"] > before["version"]
    causes = [item["cause"] for item in client.get(f"/v1/games/{game_id}/actions?limit=500").json["items"]]
    assert "timeout" in causes
