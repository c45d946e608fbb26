"""A stored game's save in one statement, on PostgreSQL: the fast twin of the repository's plain save.

The plain save (:meth:`.repository.GameRepository.update`, SQLite's only way) is the game's
UPDATE at the version it was read at, one UPDATE per changed seat and the INSERTs of its new
actions, tricks and events: on PostgreSQL a round trip each, in a transaction (BEGIN and COMMIT:
two more). Here the same writes are one statement, the UPDATE of the game with the others (its outbox rows, and a
rated game's result as it finishes) as data-modifying CTEs that depend on its row, so it is atomic by itself and needs no transaction.

Why it is kept: ``bench/request_cpu.py --compare cte_save`` (docs/benchmarks.md) measured the plain
save at 24% more CPU for a play on PostgreSQL. tests/store/test_fast_save.py holds it to the plain
save on PostgreSQL: the same rows written, and nothing written when the version moved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Integer, Table, bindparam, text
from sqlalchemy.sql.selectable import TextualSelect

from .driver import Prepared
from .models import ActionRow, EventRow, GameResultRow, GameRow, JsonType, OutboxRow, TrickRow
from .stored import CHANGING_GAME_COLUMNS, SEAT_COLUMNS, StoredSeat

__all__ = ["save_in_one_statement"]

_GAMES = cast(Table, GameRow.__table__)
_ACTIONS = cast(Table, ActionRow.__table__)
_TRICKS = cast(Table, TrickRow.__table__)
_EVENTS = cast(Table, EventRow.__table__)
_RESULTS = cast(Table, GameResultRow.__table__)
_OUTBOX = cast(Table, OutboxRow.__table__)


def _statement(*, finishing: bool) -> TextualSelect:
    """The game's UPDATE (only at the version it was read at) with its changed seats, new actions,
    tricks and events, in one statement. The rows ride as JSON arrays turned into the tables' row
    types (``jsonb_populate_recordset``), so the statement is the same whatever their number (psycopg
    prepares it once per connection). Every part depends on the UPDATE's row: at another version
    nothing is written, and the statement answers 0. ``finishing``: the save of the change that
    finishes a rated game, which also inserts its result (a statement of its own, so that every
    other save is the statement it was)."""

    def columns(table: Table, alias: str = "") -> str:  # all but game_id, which comes from g
        skipped = ("game_id", "id") if table is _OUTBOX else ("game_id",)  # the outbox's id is its sequence's
        return ", ".join(f"{alias}{column.name}" for column in table.c if column.name not in skipped)

    result = (
        f"""
        , x AS (
            INSERT INTO game_results (game_id, {columns(_RESULTS)})
            SELECT g.id, {columns(_RESULTS, "r.")}
            FROM g, jsonb_populate_recordset(NULL::game_results, :results) AS r
        )"""
        if finishing
        else ""
    )
    seat_values = ", ".join(f"{name} = r.{name}" for name in SEAT_COLUMNS if name != "seat")
    sql = f"""
        WITH g AS (
            UPDATE games SET {", ".join(f"{name} = :new_{name}" for name in CHANGING_GAME_COLUMNS)}
            WHERE id = :where_id AND version = :where_version
            RETURNING id
        ), s AS (
            UPDATE seats SET {seat_values}
            FROM g, jsonb_populate_recordset(NULL::seats, :seats) AS r
            WHERE seats.game_id = g.id AND seats.seat = r.seat
        ), a AS (
            INSERT INTO actions (game_id, {columns(_ACTIONS)})
            SELECT g.id, {columns(_ACTIONS, "r.")}
            FROM g, jsonb_populate_recordset(NULL::actions, :actions) AS r
        ), t AS (
            INSERT INTO tricks (game_id, {columns(_TRICKS)})
            SELECT g.id, {columns(_TRICKS, "r.")}
            FROM g, jsonb_populate_recordset(NULL::tricks, :tricks) AS r
        ), e AS (
            INSERT INTO events (game_id, {columns(_EVENTS)})
            SELECT g.id, {columns(_EVENTS, "r.")}
            FROM g, jsonb_populate_recordset(NULL::events, :events) AS r
        ), o AS (
            INSERT INTO outbox (game_id, {columns(_OUTBOX)})
            SELECT g.id, {columns(_OUTBOX, "r.")}
            FROM g, jsonb_populate_recordset(NULL::outbox, :outbox) AS r
        ){result}
        SELECT count(*) FROM g
    """
    typed = [bindparam(f"new_{name}", type_=_GAMES.c[name].type) for name in CHANGING_GAME_COLUMNS]
    typed += [
        bindparam(name, type_=JsonType)
        for name in ("seats", "actions", "tricks", "events", "outbox", *(("results",) if finishing else ()))
    ]
    return text(sql).bindparams(*typed).columns(count=Integer)  # its one row: 1 saved, 0 not


_SAVE = Prepared(_statement(finishing=False))
_SAVE_FINISHING = Prepared(_statement(finishing=True))


def save_in_one_statement(
    connection: Connection,
    game_values: Mapping[str, Any],
    seats: Sequence[StoredSeat],
    rows: Mapping[str, Sequence[Mapping[str, Any]]],
) -> bool:
    """What the plain save writes, in one statement: the game's UPDATE (``game_values``: ``new_<column>``
    for :data:`.stored.CHANGING_GAME_COLUMNS`, ``where_id`` and ``where_version``), the changed
    ``seats``, and the new ``rows`` (``"actions"``, ``"tricks"``, ``"events"``, ``"outbox"``: what the change owes
    players' feeds, and ``"results"``: a rated game's result as it finishes; each a table's values).
    False, with nothing written, when the stored game is no longer at ``where_version``."""
    values = dict(game_values)
    values["seats"] = [_row_json({name: getattr(seat, name) for name in SEAT_COLUMNS}) for seat in seats]
    for table in ("actions", "tricks", "events", "outbox"):
        values[table] = [_row_json(row) for row in rows[table]]
    if not rows["results"]:
        return _SAVE.run(connection, values).rows == [(1,)]
    values["results"] = [_row_json(row) for row in rows["results"]]
    return _SAVE_FINISHING.run(connection, values).rows == [(1,)]


def _row_json(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row for ``jsonb_populate_recordset``: timestamps as ISO 8601 with their offset."""
    return {key: value.isoformat() if isinstance(value, datetime) else value for key, value in row.items()}
