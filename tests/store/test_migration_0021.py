"""Revision 0021 ends 1.2's rematches nobody played: a game with ``rematch_of`` still in play with no
person's action becomes ``cancelled``, its feed ends with ``game_cancelled`` (reason ``expired``), and
its players are owed the same on their feeds; every other game is left as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from service import create_app
from service.config import Settings
from service.store import Database
from tests.store.test_migrations import _migrate

AT = "2026-12-01 12:00:00"
PLAYER = "01jf3v9k2m8q4r6t0w5x7y9z1a"
BASIC = "00000000000000000000000002"
UNPLAYED, PLAYED, NEW_GAME, FINISHED = (f"01jf3v9k2m8q4r6t0w5x7y9z{end}" for end in ("2a", "2b", "2c", "2d"))


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    yield db
    db.dispose()


def _game(connection, game_id: str, *, status: str = "playing", rematch_of: str | None = "f0", causes=()) -> None:
    connection.execute(
        text(
            "INSERT INTO games (id, version, status, target_score, auto_deal, open_seats, trick_count, action_count,"
            " event_count, state, created_at, updated_at, rematch_of, rated, turn_deadline)"
            " VALUES (:id, 4, :status, 5, :yes, 0, 0, :actions, 2, :state, :at, :at, :rematch_of, :no, :at)"
        ),
        {
            "id": game_id, "status": status, "actions": len(causes), "state": '{"kept": true}', "at": AT,
            "rematch_of": rematch_of, "yes": True, "no": False,
        },
    )  # fmt: skip
    seats = [("Ana", PLAYER, None, None), ("Eve", None, "h" * 64, None), ("Basic bot", BASIC, None, "basic")]
    for number, (name, player, token_hash, bot) in enumerate(seats):
        connection.execute(
            text(
                "INSERT INTO seats (game_id, seat, name, player_id, token_hash, bot)"
                " VALUES (:game, :seat, :name, :player, :token_hash, :bot)"
            ),
            {"game": game_id, "seat": number, "name": name, "player": player, "token_hash": token_hash, "bot": bot},
        )
    for seq, cause in enumerate(causes, start=1):
        connection.execute(
            text(
                "INSERT INTO actions (game_id, seq, kind, seat, hand_number, cause, card, created_at)"
                " VALUES (:game, :seq, 'play', 2, 1, :cause, 'ace-coins', :at)"
            ),
            {"game": game_id, "seq": seq, "cause": cause, "at": AT},
        )


def test_0021_cancels_the_rematches_nobody_played(database: Database, database_url: str) -> None:
    _migrate(database, "0019")
    with database.transaction(write=True) as connection:
        _game(connection, UNPLAYED, causes=("auto", "bot", "timeout"))  # cancelled: no person moved
        _game(connection, PLAYED, causes=("bot", "player"))  # a person played: kept
        _game(connection, NEW_GAME, rematch_of=None)  # not a rematch: kept
        _game(connection, FINISHED, status="finished")  # over: kept
    _migrate(database, "0021")
    with database.engine.connect() as connection:
        rows = connection.execute(text("SELECT id, status, version, state, turn_deadline FROM games")).all()
        outbox = connection.execute(text("SELECT game_id, player_id, type FROM outbox")).all()
    games = {row.id: row for row in rows}
    assert {game_id: row.status for game_id, row in games.items()} == {
        UNPLAYED: "cancelled", PLAYED: "playing", NEW_GAME: "playing", FINISHED: "finished",
    }  # fmt: skip
    cancelled = games[UNPLAYED]
    assert cancelled.version == 5 and cancelled.state is None and cancelled.turn_deadline is None
    assert [tuple(row) for row in outbox] == [(UNPLAYED, PLAYER, "game_cancelled")]  # the player; not Eve, not the bot
    app = create_app(Settings(database_url=database_url))
    try:
        client = app.test_client()
        game = client.get(f"/v1/games/{UNPLAYED}").json
        assert game["status"] == "cancelled" and game["version"] == 5 and game["turn"] is None
        answer = client.get(f"/v1/games/{UNPLAYED}/events?after=2")
        assert answer.status_code == 200, answer.json
        events = json.loads(answer.get_data())["items"]
        assert [(e["id"], e["type"], e["reason"], e["game"]["status"]) for e in events] == [
            (3, "game_cancelled", "expired", "cancelled")
        ]
        assert [s["player"] for s in events[0]["game"]["seats"]] == [PLAYER, None, BASIC]
        refused = client.post(f"/v1/games/{UNPLAYED}/hands", headers={"Authorization": "Bearer " + "t" * 43})
        assert refused.status_code in (401, 409)
    finally:
        app.extensions["coins.db"].dispose()
