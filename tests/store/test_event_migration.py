"""Revision 0008 converts the stored events to domain events: every one renders after it exactly as before.

Games of every kind of event are played on a database at 0007 by the old code path (each event
rendered by the API's event schemas when its change is saved, that text stored), then migrated:
every event keeps its row (game, id, type, version, seat), and the feed sends, for each seat and
for spectators, the same bytes as were stored before. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from flask import Flask
from sqlalchemy import text

import service
from service import create_app
from service.api.resources.events.schemas import render_event
from service.config import Settings
from service.games import GameService, decode_event, domain_events, encode_event, hash_token
from service.store import Database, StoredEvent
from service.store.migrate import alembic_config
from tests.support.every_event import STORED_TYPES, Clock, play_every_kind_of_event
from tests.support.working_client import NO_PACE, bare_client

Row = tuple[str, int, str, int, int | None, str]  # game_id, id, type, version, seat, data


def _migrate(db: Database, revision: str, *, down: bool = False) -> None:
    with db.schema_lock() as connection:
        (command.downgrade if down else command.upgrade)(alembic_config(connection), revision)


def _add_later_columns(db: Database) -> None:
    """The game and seat columns that revisions after 0008 add (0009: a seat's player, rated games,
    the winner; 0013: void games, a seat's address hash, whether it played and its lapses; 0015: the
    outbox; 0017: a rated seat's rating as the game began), which today's code
    writes: added to the database at 0007 the way those revisions add them, so that today's code
    can play its games there (0008 touches none of them)."""
    with db.engine.begin() as connection:
        connection.execute(text("ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false"))
        connection.execute(text("ALTER TABLE games ADD COLUMN winner SMALLINT"))
        connection.execute(text("ALTER TABLE seats ADD COLUMN player_id VARCHAR(26)"))
        connection.execute(text("ALTER TABLE games ADD COLUMN void BOOLEAN NOT NULL DEFAULT false"))
        connection.execute(text("ALTER TABLE seats ADD COLUMN address_hash VARCHAR(32)"))
        connection.execute(text("ALTER TABLE seats ADD COLUMN played BOOLEAN NOT NULL DEFAULT false"))
        connection.execute(text("ALTER TABLE seats ADD COLUMN lapses SMALLINT NOT NULL DEFAULT 0"))
        connection.execute(
            text(
                "CREATE TABLE outbox (id INTEGER PRIMARY KEY, game_id VARCHAR(26) NOT NULL, player_id VARCHAR(26)"
                " NOT NULL, type VARCHAR(16) NOT NULL, data TEXT NOT NULL, created_at TIMESTAMP WITH TIME ZONE NOT NULL)"
            )
        )  # 0015's table, which a save on PostgreSQL names (nothing is owed to a player here)
        connection.execute(text("ALTER TABLE seats ADD COLUMN rating INTEGER"))
        connection.execute(text("ALTER TABLE seats ADD COLUMN rating_provisional BOOLEAN"))
        connection.execute(text("ALTER TABLE seats ADD COLUMN reserved_for VARCHAR(26)"))  # 0019's


def _rows(db: Database) -> list[Row]:
    with db.engine.connect() as connection:
        found = connection.execute(text("SELECT game_id, id, type, version, seat, data FROM events ORDER BY 1, 2"))
        return [tuple(row) for row in found]  # type: ignore[misc]


@pytest.fixture
def old_app(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    """An app on a database at 0007 that stores events as the code before 0008 did: rendered."""
    settings = Settings(
        database_url=database_url, rate_limits="off", auto_migrate=False, address_hash_key="k" * 32, **NO_PACE
    )
    monkeypatch.setattr(service, "require_migrated", lambda db: None)  # this app plays the code of revision 0007
    app = create_app(settings)
    _migrate(app.extensions["coins.db"], "0007")
    _add_later_columns(app.extensions["coins.db"])
    monkeypatch.setattr(domain_events, "encode_event", render_event)  # the old code path: the API's JSON stored
    yield app
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


@pytest.fixture
def old_rows(old_app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[Row]:
    """The events of games of every kind of event, stored in the old format; the database still at 0007."""
    service: GameService = old_app.extensions["coins.games"]
    service.clock = Clock()
    play_every_kind_of_event(bare_client(old_app), service.clock, cancelled=False)  # no worker, no players yet
    monkeypatch.undo()
    rows = _rows(old_app.extensions["coins.db"])
    assert {row[2] for row in rows} == STORED_TYPES - {"game_cancelled"}
    assert all('"type":' in row[5] for row in rows)  # the API's JSON
    return rows


def _feed_bytes(client: Any, game_id: str, token: str | None = None) -> bytes:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = client.get(f"/v1/games/{game_id}/events", query_string={"after": 0}, headers=headers)
    assert response.status_code == 200, response.json
    return response.data  # type: ignore[no-any-return]


def test_every_stored_event_renders_after_0008_exactly_as_before(old_app: Flask, old_rows: list[Row]) -> None:
    db: Database = old_app.extensions["coins.db"]
    _migrate(db, "0008")
    rows = _rows(db)
    assert [row[:5] for row in rows] == [row[:5] for row in old_rows]  # same games, ids, types, versions, seats
    for (game_id, event_id, event_type, version, seat, data), old in zip(rows, old_rows, strict=True):
        assert '"complete":' not in data and '"type":' not in data, "converted to the domain event's form"
        event = decode_event(StoredEvent(event_id, event_type, version, seat, data, None))  # type: ignore[arg-type]
        assert render_event(event) == old[5], (game_id, event_id)  # the same JSON, byte for byte
        # What the service itself stores now: the same values (a game's ``rated``, which 0009 added,
        # comes where its dataclass declares it, not where the API renders it: compared as values).
        assert json.loads(encode_event(event)) == json.loads(data)

    # And as the feed sends them: to spectators the public events, to each seat its own too.
    client = bare_client(old_app)
    by_game: dict[str, list[Row]] = {}
    for row in old_rows:
        by_game.setdefault(row[0], []).append(row)
    for game_id, events in by_game.items():
        seats = {row[4] for row in events} - {None}
        for seat in (None, *seats):
            visible = [row for row in events if row[4] is None or row[4] == seat]
            expected = '{"items":[' + ",".join(row[5] for row in visible) + '],"last_id":' + str(visible[-1][1]) + "}"
            token = None if seat is None else _seat_token(old_app, game_id, seat)
            assert _feed_bytes(client, game_id, token) == expected.encode(), (game_id, seat)


def _seat_token(app: Flask, game_id: str, seat: int) -> str:
    """A token for ``seat``: its stored hash replaced by a new token's."""
    token = f"test-token-{game_id}-{seat}"
    db: Database = app.extensions["coins.db"]
    with db.engine.begin() as connection:
        connection.execute(
            text("UPDATE seats SET token_hash = :hash WHERE game_id = :game AND seat = :seat"),
            {"hash": hash_token(token), "game": game_id, "seat": seat},
        )
    return token


def test_0008_downgrades_to_the_old_json_byte_for_byte(old_app: Flask, old_rows: list[Row]) -> None:
    db: Database = old_app.extensions["coins.db"]
    _migrate(db, "0008")
    assert _rows(db) != old_rows
    _migrate(db, "0007", down=True)
    assert _rows(db) == old_rows
