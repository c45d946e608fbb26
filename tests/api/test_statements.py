"""A play costs a small, fixed number of SQL statements however long the game has run.

A play reads the game with its seats (one SELECT, no lock), then saves it only if it is still
at the version read: on PostgreSQL in one statement (UPDATE with INSERTs as CTEs) outside a
transaction; on SQLite as an UPDATE and INSERTs in a write transaction of their own."""

from __future__ import annotations

import random
from collections import Counter

from sqlalchemy import event


def _count_statements(app):
    engine = app.extensions["coins.db"].engine
    counts: Counter[str] = Counter()

    def before(conn, cursor, statement, parameters, context, executemany):
        counts[statement.split()[0].upper()] += 1

    event.listen(engine, "before_cursor_execute", before)
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
    assert first_trick == last_trick  # no growth with the number of tricks
    completing = per_play[2][1]  # the third card: the play's action and the completed trick
    if app.extensions["coins.db"].is_sqlite:
        # a lone SELECT, then a write transaction (BEGIN IMMEDIATE, UPDATE, INSERTs)
        assert completing == {"SELECT": 1, "BEGIN": 1, "UPDATE": 1, "INSERT": 2}
    else:
        assert completing == {"SELECT": 1, "WITH": 1}  # no BEGIN, no COMMIT: each is atomic alone


def test_a_read_is_one_select(app, new_table):
    table = new_table()
    counts = _count_statements(app)
    assert table.client.get(f"/v1/games/{table.id}").status_code == 200
    assert counts.pop("SELECT") == 1  # the game joined with its seats
    assert set(counts) <= {"BEGIN"}  # SQLite's explicit BEGIN; nothing else
