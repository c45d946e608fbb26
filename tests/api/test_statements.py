"""A play costs a small, fixed number of SQL statements however long the game has run."""

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
    completing = per_play[2][1]
    assert sum(completing.values()) <= 8, completing
    assert completing.get("SELECT", 0) == 2  # the game's row (locked), then its seats: no N+1
    assert completing.get("INSERT", 0) == 2  # the action and the completed trick
    assert completing.get("UPDATE", 0) == 1  # the game's snapshot and version


def test_a_read_is_one_select(app, new_table):
    table = new_table()
    counts = _count_statements(app)
    assert table.client.get(f"/v1/games/{table.id}").status_code == 200
    assert counts.pop("SELECT") == 1  # the game joined with its seats
    assert set(counts) <= {"BEGIN"}  # SQLite's explicit BEGIN; nothing else
