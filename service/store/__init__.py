"""Persistence: the tables, the database handle and the game store. Never imports Flask.

The use cases see :class:`GameStore` and its sessions, and the stored dataclasses; statements,
drivers and transactions stay inside this package.
"""

from .db import Database, DatabaseUnavailable
from .idempotency import HeldKey, IdempotencyStore, KeptResponse
from .models import ActionRow, Base, GameRow, IdempotencyKeyRow, PlayerRow, RateLimitRow, SeatRow, TrickRow
from .ratings import RatingStore, RatingTransaction
from .repository import ConcurrentUpdate
from .session import GameStore, StoreSession, WriteTransaction
from .stored import StoredAction, StoredEvent, StoredGame, StoredPlayer, StoredSeat, StoredTrick
from .stored_ratings import StoredEntry, StoredHistory, StoredResult

__all__ = [
    "ActionRow",
    "Base",
    "ConcurrentUpdate",
    "Database",
    "DatabaseUnavailable",
    "GameRow",
    "GameStore",
    "IdempotencyKeyRow",
    "HeldKey",
    "IdempotencyStore",
    "KeptResponse",
    "PlayerRow",
    "RateLimitRow",
    "RatingStore",
    "RatingTransaction",
    "SeatRow",
    "StoreSession",
    "StoredAction",
    "StoredEntry",
    "StoredEvent",
    "StoredGame",
    "StoredHistory",
    "StoredPlayer",
    "StoredResult",
    "StoredSeat",
    "StoredTrick",
    "TrickRow",
    "WriteTransaction",
]
