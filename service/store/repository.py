"""Queries on one game at a time: load (and lock), append actions and tricks, list games and tricks."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import ActionRow, GameRow, TrickRow

__all__ = ["GameRepository"]


class GameRepository:
    """The game-shaped queries of one session. The caller owns the transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, game_id: str, *, lock: bool = False) -> GameRow | None:
        """The game with its seats (two statements); ``lock`` holds the game's row until commit."""
        query = select(GameRow).where(GameRow.id == game_id)
        if lock:
            query = query.with_for_update(of=GameRow)
        return self.session.scalars(query).one_or_none()

    def add(self, game: GameRow) -> None:
        """Insert a new game and its seats now, before any of its actions."""
        self.session.add(game)
        self.session.flush()

    def append_action(self, action: ActionRow) -> None:
        self.session.add(action)

    def append_trick(self, trick: TrickRow) -> None:
        self.session.add(trick)

    def list_games(self, *, status: str | None, before_id: str | None, limit: int) -> list[GameRow]:
        """Games newest first (ids sort by creation time), after the cursor ``before_id``."""
        query = select(GameRow).order_by(GameRow.id.desc()).limit(limit)
        if status is not None:
            query = query.where(GameRow.status == status)
        if before_id is not None:
            query = query.where(GameRow.id < before_id)
        return list(self.session.scalars(query))

    def list_actions(self, game_id: str, *, after: int, limit: int) -> list[ActionRow]:
        """The action log oldest first, numbered after ``after``."""
        query = (
            select(ActionRow)
            .where(ActionRow.game_id == game_id, ActionRow.seq > after)
            .order_by(ActionRow.seq)
            .limit(limit)
        )
        return list(self.session.scalars(query))

    def list_tricks(self, game_id: str, *, after: int, limit: int) -> list[TrickRow]:
        """Completed tricks oldest first, numbered after ``after``."""
        query = (
            select(TrickRow)
            .where(TrickRow.game_id == game_id, TrickRow.number > after)
            .order_by(TrickRow.number)
            .limit(limit)
        )
        return list(self.session.scalars(query))
