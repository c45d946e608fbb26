"""Writes are optimistic: a request that loses the race to another reads again and retries,
after a few lost races it takes the game's lock; a save at a stale version writes nothing.
SQLite writers take turns on SQLite's own write lock, taken up front."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select, text, update

from service.config import Settings
from service.games import transactions
from service.store import Database, StoredAction
from service.store.repository import ACTIONS, GAMES, GameRepository


@pytest.fixture
def interloper(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int, Callable[[], None]], list[int]]]:
    """``interloper(times, act)``: ``act`` runs in the window between a write's read and its save,
    on the first ``times`` reads of a game that a write makes (none after: the locked path's)."""

    def install(times: int, act: Callable[[], None]) -> list[int]:
        calls = [0]
        real = transactions.restore

        def restore(stored: Any) -> Any:
            calls[0] += 1
            if calls[0] <= times:
                act()
            return real(stored)

        monkeypatch.setattr(transactions, "restore", restore)
        return calls

    yield install


def bump_version(app: Flask, game_id: str) -> Callable[[], None]:
    """Another writer's change, as the store sees it: the game's version moves on."""

    def act() -> None:
        with app.extensions["coins.db"].transaction(write=True) as connection:
            connection.execute(update(GAMES).where(GAMES.c.id == game_id).values(version=GAMES.c.version + 1))

    return act


def play_actions(app: Flask, game_id: str) -> int:
    with app.extensions["coins.db"].transaction(write=False) as connection:
        query = select(func.count()).where(ACTIONS.c.game_id == game_id, ACTIONS.c.kind == "play")
        return int(connection.scalar(query) or 0)


def _ready(new_table: Callable[..., Any]) -> tuple[Any, int, str, int]:
    table = new_table(seed="races")
    assert table.deal(0).status_code == 201
    state = table.state()
    seat = state["turn"]
    return table, seat, table.hand(seat)[0], state["version"]


def test_a_play_that_loses_a_race_reads_again_and_applies_once(app, new_table, interloper) -> None:
    table, seat, card, version = _ready(new_table)
    reads = interloper(1, bump_version(app, table.id))
    response = table.play(seat, card)
    assert response.status_code == 201, response.json
    assert reads[0] == 2  # read, lost the race, read again, saved
    assert response.json["game"]["version"] == version + 2  # the other change, then the play
    assert table.state()["version"] == version + 2
    assert play_actions(app, table.id) == 1
    assert card not in table.hand(seat)


def test_after_three_lost_races_the_write_takes_the_lock(app, new_table, interloper) -> None:
    table, seat, card, version = _ready(new_table)
    reads = interloper(transactions.OPTIMISTIC_ATTEMPTS, bump_version(app, table.id))
    response = table.play(seat, card)
    assert response.status_code == 201, response.json
    assert reads[0] == transactions.OPTIMISTIC_ATTEMPTS + 1  # the last read is the locked one
    assert table.state()["version"] == version + transactions.OPTIMISTIC_ATTEMPTS + 1
    assert play_actions(app, table.id) == 1


def test_a_join_that_loses_a_race_takes_another_seat(app, client, interloper) -> None:
    game = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json
    path = f"/v1/games/{game['id']}/players"
    # Between Bo's read (seat 1 open) and Bo's save, Cy takes seat 1.
    interloper(1, lambda: client.post(path, json={"name": "Cy", "seat": 1}))
    bo = client.post(path, json={"name": "Bo"})
    assert bo.status_code == 201, bo.json
    assert bo.json["seat"] == 2
    assert [(s["name"], s["open"]) for s in client.get(f"/v1/games/{game['id']}").json["seats"]] == [
        ("Ana", False),
        ("Cy", False),
        ("Bo", False),
    ]


def test_a_refused_request_writes_nothing(app, new_table) -> None:
    table, seat, _card, version = _ready(new_table)
    other = (seat + 1) % 3
    assert table.play(other, table.hand(other)[0]).status_code == 409  # not their turn
    assert table.state()["version"] == version
    assert play_actions(app, table.id) == 0


def test_a_save_at_a_stale_version_writes_nothing(app, new_table) -> None:
    """The repository's save, on SQLite (UPDATE first) and PostgreSQL (one statement with CTEs)."""
    table, seat, card, version = _ready(new_table)
    db: Database = app.extensions["coins.db"]
    with db.transaction(write=True) as connection:
        repo = GameRepository(connection)
        row = repo.get(table.id)
        assert row is not None
        connection.execute(update(GAMES).where(GAMES.c.id == table.id).values(version=GAMES.c.version + 1))
        row.version += 1
        row.status = "finished"
        row.seats[0].name = "Changed"
        row.changed_seats.add(0)
        row.new_actions.append(StoredAction(row.action_count + 1, "play", seat, 1, "player", row.updated_at, card=card))
        assert repo.save(row) is False
    state = table.state()
    assert state["version"] == version + 1 and state["status"] == "playing"
    assert state["seats"][0]["name"] == "Ana"
    assert play_actions(app, table.id) == 0


def test_sqlite_writers_take_turns_on_the_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "turns.sqlite3"
    db = Database(Settings(database_url=f"sqlite:///{path}").sqlalchemy_url)
    try:
        with db.transaction(write=True) as connection:
            connection.execute(text("CREATE TABLE counter (n INTEGER NOT NULL)"))
            connection.execute(text("INSERT INTO counter VALUES (0)"))

        first_in, release, second_in = threading.Event(), threading.Event(), threading.Event()

        def first() -> None:
            with db.transaction(write=True) as connection:
                first_in.set()
                assert release.wait(timeout=10)
                connection.execute(text("UPDATE counter SET n = n + 1"))

        def second() -> None:
            assert first_in.wait(timeout=10)
            with db.transaction(write=True) as connection:
                second_in.set()
                connection.execute(text("UPDATE counter SET n = n * 10"))

        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for thread in threads:
            thread.start()
        assert first_in.wait(timeout=10)
        assert not second_in.wait(timeout=0.2)  # queued behind the first writer
        with db.transaction(write=False) as connection:  # readers are never queued (WAL)
            assert connection.scalar(text("SELECT n FROM counter")) == 0
        release.set()
        for thread in threads:
            thread.join(timeout=10)
        assert second_in.is_set() and not any(thread.is_alive() for thread in threads)
        with db.transaction(write=False) as connection:
            assert connection.scalar(text("SELECT n FROM counter")) == 10  # (0 + 1) * 10: in turn
    finally:
        db.dispose()


def test_a_table_of_bots_makes_no_move_in_its_creating_request(app, monkeypatch) -> None:
    """createGame with three bots saves the game and marks its first move (the deal) due: the worker
    makes it, never the request (issue 34: the web role answers requests, and only that)."""
    from service.games import server_moves
    from tests.support.working_client import bare_client

    moves: list[object] = []
    real_deal = server_moves.record_deal
    monkeypatch.setattr(server_moves, "record_deal", lambda *args: moves.append(args) or real_deal(*args))
    body = {"seats": [{"bot": "random"}] * 3, "target_score": 5, "seed": "pool"}
    created = bare_client(app).post("/v1/games", json=body)
    assert created.status_code == 201 and created.json["status"] == "waiting_for_deal"
    assert created.json["version"] == 1 and moves == []
