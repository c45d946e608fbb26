"""A play costs a small, fixed number of SQL statements however long the game has run.

A play reads the game with its seats (one SELECT, no lock), then saves it only if it is still
at the version read: on PostgreSQL in one statement (UPDATE with INSERTs as CTEs) outside a
transaction, then its NOTIFY; on SQLite as an UPDATE and INSERTs (its action, any trick, its
events) in a write transaction of their own."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from sqlalchemy import event

from tests.support.players import new_player
from tests.support.working_client import bare_client


@pytest.fixture
def client(app):
    """A client with no worker behind it: the statements counted are the requests' alone."""
    return bare_client(app)


def _count_statements(app):
    """Count the statements the driver runs from now on, by first word. SQLite reports each one it
    runs (its trace callback: BEGIN and COMMIT too, whoever sends them); psycopg's are counted
    at its cursors (the pool's pre-ping, which runs before the checkout event, is not)."""
    db = app.extensions["coins.db"]
    counts: Counter[str] = Counter()

    def seen(statement: str) -> None:
        counts[str(statement).split()[0].upper()] += 1

    if db.is_sqlite:

        def checkout(dbapi_connection, record, proxy):
            dbapi_connection.set_trace_callback(seen)

        def checkin(dbapi_connection, record):
            dbapi_connection.set_trace_callback(None)
    else:
        import psycopg

        class CountingCursor(psycopg.Cursor):
            def execute(self, query, params=None, **kwargs):
                seen(query)
                return super().execute(query, params, **kwargs)

            def executemany(self, query, params_seq, **kwargs):
                params_seq = list(params_seq)
                for _ in params_seq:
                    seen(query)
                return super().executemany(query, params_seq, **kwargs)

        def checkout(dbapi_connection, record, proxy):
            dbapi_connection.cursor_factory = CountingCursor

        def checkin(dbapi_connection, record):
            dbapi_connection.cursor_factory = psycopg.Cursor

    db.dispose()  # no connection checked out (nor kept by a thread) before the listeners
    event.listen(db.engine, "checkout", checkout)
    event.listen(db.engine, "checkin", checkin)
    return counts


def test_a_play_costs_the_same_statements_early_and_late(app, new_table):
    table = new_table(target_score=100, seed="statements")
    table.deal(0)
    rng = random.Random(5)
    counts = _count_statements(app)
    per_play: list[tuple[int, dict[str, int]]] = []
    for _ in range(48):  # a whole hand
        state = table.state()
        seat = state["turn"]
        card = rng.choice(table.hand(seat))
        counts.clear()
        response = table.play(seat, card)
        assert response.status_code == 201
        per_play.append((response.json["trick"]["trick_number"], dict(counts)))
    first_trick = [c for n, c in per_play if n == 1]
    last_trick = [c for n, c in per_play if n == 16]
    assert first_trick[:2] == last_trick[:2]  # no growth with the number of tricks
    completing = per_play[2][1]  # the third card: the play's action, the trick, two events
    if app.extensions["coins.db"].is_sqlite:
        # a lone SELECT, then a write transaction (BEGIN IMMEDIATE, UPDATE, INSERTs, COMMIT); the
        # BEGIN between two PRAGMAs: the busy timeout off while it tries (store.sqlite_connections)
        assert completing == {"SELECT": 1, "PRAGMA": 2, "BEGIN": 1, "UPDATE": 1, "INSERT": 4, "COMMIT": 1}
        assert last_trick[2] == {**completing, "INSERT": 5}  # the hand ends too: one event more
    else:
        # no BEGIN, no COMMIT: the save is atomic alone; then its NOTIFY (SELECT pg_notify)
        assert completing == {"SELECT": 2, "WITH": 1} == last_trick[2]


def test_a_read_is_one_select(app, new_table):
    table = new_table()
    counts = _count_statements(app)
    assert table.client.get(f"/v1/games/{table.id}").status_code == 200
    assert counts == {"SELECT": 1}  # the game joined with its seats, and no BEGIN or COMMIT


def test_a_players_feed_read_after_an_event_lists_none_of_their_games(app):
    """A page of a player's feed after an event the reader has (a poll, a resumed stream) reads the
    key's player and the feed's head (an id past it is refused), the tickets its heartbeat keeps alive
    and the new events: not the profile and the games in progress that only the ``player`` event of a
    reader from the start needs."""
    client = bare_client(app)
    ana = new_player(client, "Ana")
    for _ in range(3):
        created = client.post("/v1/games", json={"seats": [{"player": "me"}, None, None]}, headers=ana.auth)
        assert created.status_code == 201, created.json
    counts = _count_statements(app)

    def read(query: str) -> tuple[dict[str, int], dict]:
        counts.clear()
        response = client.get(f"/v1/players/me/events?wait=0{query}", headers=ana.auth)
        assert response.status_code == 200, response.json
        return dict(counts), response.json

    from_the_start, first = read("")
    assert first["items"][0]["type"] == "player" and len(first["items"][0]["games"]) == 3
    resumed, _ = read(f"&after={first['last_id']}")
    assert resumed["SELECT"] == 4  # the key's player, the feed's head, the tickets, the feed's new events
    assert from_the_start["SELECT"] > resumed["SELECT"]
