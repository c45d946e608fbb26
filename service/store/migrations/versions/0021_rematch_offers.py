"""Rematches are offers (contract 1.3): the rematches 1.2 made that nobody played are ended, as cancelled.

1.2's rematchGame seated all three seats at once and started the game, clock running, whoever asked.
Such a game that no person has played in is ended here: precisely, a game with ``rematch_of`` set,
still ``waiting_for_deal`` or ``playing`` (a 1.2 rematch never waited for players), in which no
action was a person's (no row of ``actions`` with ``cause = 'player'``: bots' moves, auto-deals and
stand-ins' moves do not count). Each becomes ``cancelled`` (its snapshot dropped, as a game that
never started has none; its version and ``updated_at`` moved on; no deadline, no winner), and says so
as a cancellation that ran out does: a ``game_cancelled`` event with reason ``expired`` ends its
feed, and each of its players (and each player a seat was reserved for) gets ``game_cancelled`` on
their feed through the outbox, which the worker delivers. A cancelled game is never rated, and leaves
every list but its players' own.

The event's ``game`` is the cancelled game's public state, written out here (as a game not started
shows it) rather than imported from the service, so that it stays what it was at this revision.
``coins-migrate --sql`` prints a comment instead: the events are written when migrating online.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import context, op

revision: str = "0021"
down_revision: str | Sequence[str] | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IN_PROGRESS = ("waiting_for_deal", "playing")
REASON = "expired"  # nobody accepted them under 1.3's rules, and they will not wait any longer

_games = sa.table(
    "games", sa.column("id", sa.String()), sa.column("version", sa.Integer()), sa.column("status", sa.String()),
    sa.column("target_score", sa.SmallInteger()), sa.column("seed", sa.String()), sa.column("auto_deal", sa.Boolean()),
    sa.column("turn_timeout_seconds", sa.Integer()), sa.column("turn_deadline", sa.DateTime(timezone=True)),
    sa.column("event_count", sa.Integer()), sa.column("state", sa.JSON()), sa.column("winner", sa.SmallInteger()),
    sa.column("created_at", sa.DateTime(timezone=True)), sa.column("updated_at", sa.DateTime(timezone=True)),
    sa.column("rematch_of", sa.String()), sa.column("rematch", sa.String()), sa.column("rated", sa.Boolean()),
    sa.column("void", sa.Boolean()),
)  # fmt: skip
_seats = sa.table(
    "seats", sa.column("game_id", sa.String()), sa.column("seat", sa.SmallInteger()), sa.column("name", sa.String()),
    sa.column("token_hash", sa.String()), sa.column("bot", sa.String()), sa.column("player_id", sa.String()),
    sa.column("rating", sa.Integer()), sa.column("rating_provisional", sa.Boolean()),
    sa.column("reserved_for", sa.String()),
)  # fmt: skip
_actions = sa.table("actions", sa.column("game_id", sa.String()), sa.column("cause", sa.String()))
_events = sa.table(
    "events", sa.column("game_id", sa.String()), sa.column("id", sa.Integer()), sa.column("type", sa.String()),
    sa.column("version", sa.Integer()), sa.column("seat", sa.SmallInteger()), sa.column("data", sa.Text()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)  # fmt: skip
_outbox = sa.table(
    "outbox", sa.column("game_id", sa.String()), sa.column("player_id", sa.String()), sa.column("type", sa.String()),
    sa.column("data", sa.Text()), sa.column("created_at", sa.DateTime(timezone=True)),
)  # fmt: skip


def upgrade() -> None:
    if context.is_offline_mode():  # coins-migrate --sql: the events need the games' rows, read online
        op.execute("-- 0021: 1.2's rematches nobody played are cancelled when migrating online (coins-migrate)")
        return
    connection = op.get_bind()
    person_moved = sa.exists(sa.select(1).where(_actions.c.game_id == _games.c.id, _actions.c.cause == "player"))
    unplayed = sa.select(_games).where(
        _games.c.rematch_of.is_not(None), _games.c.status.in_(IN_PROGRESS), sa.not_(person_moved)
    )
    now = datetime.now(UTC)
    for game in connection.execute(unplayed).mappings().all():
        seats = (
            connection.execute(sa.select(_seats).where(_seats.c.game_id == game["id"]).order_by(_seats.c.seat))
            .mappings()
            .all()
        )
        _cancel(connection, dict(game), [dict(seat) for seat in seats], now)


def _cancel(connection: sa.Connection, game: dict[str, Any], seats: list[dict[str, Any]], now: datetime) -> None:
    version, event_id = game["version"] + 1, game["event_count"] + 1
    game.update(version=version, status="cancelled", updated_at=now, turn_deadline=None)
    connection.execute(
        _games.update()
        .where(_games.c.id == game["id"])
        .values(
            version=version, status="cancelled", updated_at=now, turn_deadline=None, state=sa.null(), winner=None,
            event_count=event_id,
        )
    )  # fmt: skip
    event = {"id": event_id, "version": version, "game": _public(game, seats), "reason": REASON}
    connection.execute(
        _events.insert().values(
            game_id=game["id"], id=event_id, type="game_cancelled", version=version, seat=None, data=_dumps(event),
            created_at=now,
        )
    )  # fmt: skip
    for seat in seats:
        player = seat["player_id"] if seat["bot"] is None else None
        player = player or (seat["reserved_for"] if seat["bot"] is None else None)
        if player is None:
            continue
        told = {"id": 0, "game": game["id"], "version": version, "seat": seat["seat"], "reason": REASON}
        connection.execute(
            _outbox.insert().values(
                game_id=game["id"], player_id=player, type="game_cancelled", data=_dumps(told), created_at=now
            )
        )


def _public(game: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The cancelled game's public state in the events' stored form, as a game not started shows it."""
    return {
        "id": game["id"], "status": game["status"], "target_score": game["target_score"],
        "seeded": game["seed"] is not None, "auto_deal": bool(game["auto_deal"]),
        "turn_timeout_seconds": game["turn_timeout_seconds"], "turn_deadline": None, "version": game["version"],
        "created_at": _moment(game["created_at"]), "updated_at": _moment(game["updated_at"]),
        "seats": [_seat(seat, bool(game["rated"])) for seat in seats],
        "hand_number": 0, "dealer": None, "turn": None, "trick": None, "last_trick": None, "winner": None,
        "first_dealer": None, "first_dealer_chosen_by": None, "commitment": None,
        "rematch_of": game["rematch_of"], "rematch": game["rematch"], "rated": bool(game["rated"]),
        "void": bool(game["void"]),
    }  # fmt: skip


def _seat(seat: dict[str, Any], rated: bool) -> dict[str, Any]:
    vacant = seat["token_hash"] is None and seat["bot"] is None and seat["player_id"] is None
    rating = None
    if rated and seat["rating"] is not None and seat["rating_provisional"] is not None:
        rating = {"value": seat["rating"], "provisional": bool(seat["rating_provisional"])}
    return {
        "seat": seat["seat"], "name": seat["name"], "open": vacant and seat["reserved_for"] is None, "bot": seat["bot"],
        "score": 0, "cards_in_hand": 0, "tricks_won": 0, "player": seat["player_id"], "rating": rating,
        "rating_change": None, "reserved_for": seat["reserved_for"],
    }  # fmt: skip


def _moment(value: datetime | str) -> str:
    """A stored moment as the events write one (ISO 8601, in UTC); SQLite hands back text."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.isoformat()


def _dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def downgrade() -> None:
    """Nothing to undo: the games stay cancelled (their snapshots are gone), as 1.2 reads a status it
    does not know as any other."""
