"""Queries on the players table: add a player, read one (by id or by key), replace a key, count a record;
delete an account and the operators' changes (with their audit rows).

A player belongs to no game, so these statements are no game's: none runs in a transaction that
changes a game (a game's load reads a key's player in its own statement, :mod:`.repository`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, case, func, insert, select, update

from .models import GameRow, SeatRow
from .player_models import AdminActionRow, PlayerRow
from .stored import PLAYER_COLUMNS, StoredPlayer

__all__ = ["PlayerRepository"]

PLAYERS = cast(Table, PlayerRow.__table__)
ADMIN_ACTIONS = cast(Table, AdminActionRow.__table__)
GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
FINISHED = "finished"

_SELECT = select(*(PLAYERS.c[name] for name in PLAYER_COLUMNS))


class PlayerRepository:
    """The player-shaped statements on one connection. The caller (:mod:`.session`) owns the transaction."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def insert(self, player: StoredPlayer) -> None:
        self.connection.execute(insert(PLAYERS).values({name: getattr(player, name) for name in PLAYER_COLUMNS}))

    def get(self, player_id: str) -> StoredPlayer | None:
        row = self.connection.execute(_SELECT.where(PLAYERS.c.id == player_id)).first()
        return None if row is None else StoredPlayer(*row)

    def lock(self, player_id: str) -> None:
        """Lock the player's row until the transaction ends (PostgreSQL; SQLite has no row locks: its
        write transaction holds every other writer)."""
        self.connection.execute(select(PLAYERS.c.id).where(PLAYERS.c.id == player_id).with_for_update())

    def by_key(self, key_hash: str) -> StoredPlayer | None:
        row = self.connection.execute(_SELECT.where(PLAYERS.c.key_hash == key_hash)).first()
        return None if row is None else StoredPlayer(*row)

    def known_keys(self, key_hashes: Collection[str]) -> set[str]:
        """Those of ``key_hashes`` that some player holds now (the others were replaced)."""
        statement = select(PLAYERS.c.key_hash).where(PLAYERS.c.key_hash.in_(list(key_hashes)))
        return {row[0] for row in self.connection.execute(statement)}

    def replace_key(self, player_id: str, old_hash: str, new_hash: str) -> bool:
        """Put ``new_hash`` in place of ``old_hash``; False (nothing written) if the key is no longer ``old_hash``."""
        statement = (
            update(PLAYERS).where(PLAYERS.c.id == player_id, PLAYERS.c.key_hash == old_hash).values(key_hash=new_hash)
        )
        return self.connection.execute(statement).rowcount == 1

    def update(self, player_id: str, values: dict[str, Any], *, key_hash: str | None = None) -> bool:
        """Write ``values`` on the player (only while their key is ``key_hash``, when given); whether it was."""
        statement = update(PLAYERS).where(PLAYERS.c.id == player_id, PLAYERS.c.bot.is_(None)).values(values)
        if key_hash is not None:
            statement = statement.where(PLAYERS.c.key_hash == key_hash)
        return self.connection.execute(statement).rowcount == 1

    def add_admin_action(self, action: dict[str, Any]) -> None:
        """One row of the operators' audit (see :class:`.models.AdminActionRow`)."""
        self.connection.execute(insert(ADMIN_ACTIONS).values(action))

    def admin_actions(self, player_id: str) -> list[dict[str, Any]]:
        """The operators' actions on the player, oldest first."""
        statement = select(ADMIN_ACTIONS).where(ADMIN_ACTIONS.c.player_id == player_id).order_by(ADMIN_ACTIONS.c.id)
        return [dict(row._mapping) for row in self.connection.execute(statement)]

    def legacy_names(self, limit: int) -> list[StoredPlayer]:
        """Players whose names the rule for names would refuse now (kept as they were), oldest first."""
        statement = _SELECT.where(PLAYERS.c.legacy_name.is_(True)).order_by(PLAYERS.c.id).limit(limit)
        return [StoredPlayer(*row) for row in self.connection.execute(statement)]

    def record(self, player_id: str) -> tuple[int, int]:
        """The finished games the player sat in, and those a seat of theirs won: one statement."""
        won = case((GAMES.c.winner == SEATS.c.seat, GAMES.c.id))
        statement = (
            select(func.count(func.distinct(GAMES.c.id)), func.count(func.distinct(won)))
            .select_from(SEATS.join(GAMES, and_(GAMES.c.id == SEATS.c.game_id, GAMES.c.status == FINISHED)))
            .where(SEATS.c.player_id == player_id)
        )
        played, wins = self.connection.execute(statement).one()
        return int(played), int(wins)
