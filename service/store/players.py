"""Queries on the players table: add a player, read one (by id or by key), replace a key, count a record.

A player belongs to no game, so these statements are no game's: none runs in a transaction that
changes a game (a game's load reads a key's player in its own statement, :mod:`.repository`).
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Connection, Table, and_, case, func, insert, select, update

from .models import GameRow, PlayerRow, SeatRow
from .stored import PLAYER_COLUMNS, StoredPlayer

__all__ = ["PlayerRepository"]

PLAYERS = cast(Table, PlayerRow.__table__)
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

    def by_key(self, key_hash: str) -> StoredPlayer | None:
        row = self.connection.execute(_SELECT.where(PLAYERS.c.key_hash == key_hash)).first()
        return None if row is None else StoredPlayer(*row)

    def replace_key(self, player_id: str, old_hash: str, new_hash: str) -> bool:
        """Put ``new_hash`` in place of ``old_hash``; False (nothing written) if the key is no longer ``old_hash``."""
        statement = (
            update(PLAYERS).where(PLAYERS.c.id == player_id, PLAYERS.c.key_hash == old_hash).values(key_hash=new_hash)
        )
        return self.connection.execute(statement).rowcount == 1

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
