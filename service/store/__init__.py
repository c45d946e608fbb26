"""Persistence: the tables, the database handle and the game store. Never imports Flask.

The use cases see :class:`GameStore` and its sessions, and the stored dataclasses; statements,
drivers and transactions stay inside this package.
"""

from .db import Database, DatabaseUnavailable
from .idempotency import HeldKey, IdempotencyStore, KeptResponse
from .models import (
    ActionRow,
    Base,
    GameRow,
    IdempotencyKeyRow,
    PlayerRow,
    RateLimitRow,
    SeatRow,
    TicketRow,
    TrickRow,
)
from .ratings import RatingStore, RatingTransaction
from .repository import ConcurrentUpdate
from .session import PLAYER_FEED, GameStore, StoreSession, WriteTransaction, player_feed_key
from .stored import StoredAction, StoredEvent, StoredGame, StoredPlayer, StoredPlayerEvent, StoredSeat, StoredTrick
from .stored_ratings import StoredEntry, StoredHistory, StoredResult
from .tickets import MatchedSeat, StoredTicket, Tickets

__all__ = [
    "PLAYER_FEED",
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
    "MatchedSeat",
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
    "StoredPlayerEvent",
    "StoredResult",
    "StoredSeat",
    "StoredTicket",
    "StoredTrick",
    "TicketRow",
    "Tickets",
    "TrickRow",
    "WriteTransaction",
    "player_feed_key",
]
