"""Events are stored as the use cases' domain events, not as the API's JSON: ``events.data`` converted.

Until 0007 a row's ``data`` was the event rendered as clients receive it (the contract's JSON,
rendered when its change was saved). Now it is the domain event's own fields in plain values
(:mod:`service.games.domain_events`): no ``type`` (the row's column holds it), a trick's plays as ``[seat, card]`` pairs and no ``complete`` (the API derives it), the
fields of a trick in the order its dataclass declares them. The API renders every event on the way
out, to the same text as before (tests/store/test_event_migration.py checks it on both databases).

The conversion is written out here, not imported from the service, so that it stays what it was
when the service changes. The downgrade renders the contract's JSON again, byte for byte (its key
order is the contract's, which never changes).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import context, op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EVENTS = sa.table(
    "events",
    sa.column("game_id", sa.String()),
    sa.column("id", sa.Integer()),
    sa.column("type", sa.String()),
    sa.column("version", sa.Integer()),
    sa.column("data", sa.Text()),
)
BATCH = 1000  # rows read and written at a time


def upgrade() -> None:
    _convert(lambda row: _dumps(_domain(orjson.loads(row.data))))


def downgrade() -> None:
    _convert(lambda row: _dumps(_rendered(row.type, orjson.loads(row.data))))


def _convert(convert: Callable[[Any], str]) -> None:
    """Rewrite every event's ``data``, a batch of rows at a time in the key's order."""
    if context.is_offline_mode():  # coins-migrate --sql: the rows are converted in Python, not by SQL
        op.execute("-- 0008: events.data is converted row by row when migrating online (coins-migrate)")
        return
    connection = op.get_bind()
    last: tuple[str, int] = ("", 0)
    while True:
        rows = connection.execute(
            sa.select(EVENTS)
            .where(sa.tuple_(EVENTS.c.game_id, EVENTS.c.id) > sa.tuple_(sa.literal(last[0]), sa.literal(last[1])))
            .order_by(EVENTS.c.game_id, EVENTS.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        connection.execute(
            EVENTS.update()
            .where(EVENTS.c.game_id == sa.bindparam("where_game_id"), EVENTS.c.id == sa.bindparam("where_id"))
            .values(data=sa.bindparam("new_data")),
            [{"where_game_id": row.game_id, "where_id": row.id, "new_data": convert(row)} for row in rows],
        )
        last = (rows[-1].game_id, rows[-1].id)


def _dumps(value: dict[str, Any]) -> str:
    return orjson.dumps(value).decode()


# -- upgrade: the contract's JSON -> the domain event's plain values --------------------------


def _domain(event: dict[str, Any]) -> dict[str, Any]:
    plain = {name: value for name, value in event.items() if name != "type"}
    plain["game"] = _game(plain["game"], _domain_trick)
    if "trick" in plain:  # trick_won's
        plain["trick"] = _domain_trick(plain["trick"])
    return plain


def _game(game: dict[str, Any], convert_trick: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """The game's public state, its trick in progress and its last trick converted (either way)."""
    return {
        name: (convert_trick(value) if name in ("trick", "last_trick") and value is not None else value)
        for name, value in game.items()
    }


def _domain_trick(trick: dict[str, Any]) -> dict[str, Any]:
    return {
        "leader": trick["leader"],
        "plays": [[play["seat"], play["card"]] for play in trick["plays"]],
        "hand_number": trick["hand_number"],
        "trick_number": trick["trick_number"],
        "winner": trick["winner"],
        "points": trick["points"],
    }


# -- downgrade: the domain event's plain values -> the contract's JSON ------------------------


def _rendered(event_type: str, plain: dict[str, Any]) -> dict[str, Any]:
    event = {"id": plain["id"], "version": plain["version"], "game": _game(plain["game"], _rendered_trick)}
    event["type"] = event_type
    for name, value in plain.items():
        if name not in event:
            event[name] = _rendered_trick(value) if name == "trick" else value
    return event


def _rendered_trick(trick: dict[str, Any]) -> dict[str, Any]:
    return {
        "hand_number": trick["hand_number"],
        "trick_number": trick["trick_number"],
        "leader": trick["leader"],
        "plays": [{"seat": seat, "card": card} for seat, card in trick["plays"]],
        "complete": trick["winner"] is not None,
        "winner": trick["winner"],
        "points": trick["points"],
    }
