"""The statements of challenges (contract 1.3) that are no single game's: how many challenges one
player made to another since a moment (the daily limit), by ``ix_seats_reserved_for_game_id``.

A challenge is a game, not a rematch, with a seat reserved for the target (kept once they take
it) and a seat of the challenger's; game ids sort by creation time, so "since" is read from the
games' ``created_at``. A rematch offer's reserved seats are not challenges (``rematch_of`` is set).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from sqlalchemy import Connection, Table, func, select
from sqlalchemy.orm import aliased

from .models import GameRow, SeatRow

__all__ = ["count_challenges"]

_GAMES = cast(Table, GameRow.__table__)
_SEATS = cast(Table, SeatRow.__table__)


def count_challenges(
    connection: Connection, challenger: str, target: str, since: datetime
) -> tuple[int, datetime | None]:
    """How many games made since ``since`` ``challenger`` reserved a seat in for ``target``, and
    when the first of them was made (None without one)."""
    theirs = aliased(_SEATS)
    statement = (
        select(func.count(), func.min(_GAMES.c.created_at))
        .select_from(_SEATS)
        .join(_GAMES, _GAMES.c.id == _SEATS.c.game_id)
        .join(theirs, theirs.c.game_id == _SEATS.c.game_id)
        .where(
            _SEATS.c.reserved_for == target,
            theirs.c.player_id == challenger,
            _GAMES.c.created_at >= since,
            _GAMES.c.rematch_of.is_(None),
        )
    )
    count, first = connection.execute(statement).one()
    if isinstance(first, str):  # SQLite's aggregate of a timestamp column comes back as text
        first = datetime.fromisoformat(first)
    if first is not None and first.tzinfo is None:
        first = first.replace(tzinfo=UTC)
    return int(count), first
