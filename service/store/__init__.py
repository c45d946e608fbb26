"""Persistence: the tables, the database handle and the game store. Never imports Flask.

The use cases see :class:`GameStore` and its sessions, and the stored dataclasses; statements,
drivers and transactions stay inside this package.
"""

from .db import Database, DatabaseUnavailable, WriteTransaction
from .due import DueWork, Owed
from .idempotency import HeldKey, IdempotencyStore, KeptResponse
from .models import (
    ActionRow,
    Base,
    GameRow,
    IdempotencyKeyRow,
    RateLimitRow,
    SeatRow,
    TicketRow,
    TrickRow,
)
from .player_events import PLAYER_FEED, player_feed_id
from .player_models import PlayerRow
from .push import ClaimedPush, PushDeliveries, PushOutcome, PushSubscriptions, StoredPushSubscription
from .ratings import RatingStore, RatingTransaction
from .repository import ConcurrentUpdate
from .reviews import Reviews, StoredReview
from .session import GameStore, StoreSession
from .stored import StoredAction, StoredEvent, StoredGame, StoredPlayer, StoredPlayerEvent, StoredSeat, StoredTrick
from .stored_ratings import StoredEntry, StoredHistory, StoredResult
from .tickets import MatchedSeat, StoredTicket, Tickets
from .webhooks import (
    DELIVERED,
    DROPPED,
    FAILED,
    GONE,
    ClaimedDelivery,
    Outcome,
    StoredWebhook,
    WebhookDeliveries,
    Webhooks,
)

__all__ = [
    "DELIVERED",
    "DROPPED",
    "FAILED",
    "GONE",
    "Outcome",
    "PLAYER_FEED",
    "ActionRow",
    "ClaimedDelivery",
    "ClaimedPush",
    "PushDeliveries",
    "PushOutcome",
    "PushSubscriptions",
    "StoredPushSubscription",
    "Base",
    "ConcurrentUpdate",
    "Database",
    "DatabaseUnavailable",
    "DueWork",
    "GameRow",
    "GameStore",
    "IdempotencyKeyRow",
    "HeldKey",
    "IdempotencyStore",
    "KeptResponse",
    "MatchedSeat",
    "Owed",
    "PlayerRow",
    "RateLimitRow",
    "RatingStore",
    "RatingTransaction",
    "Reviews",
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
    "StoredReview",
    "StoredSeat",
    "StoredTicket",
    "StoredTrick",
    "TicketRow",
    "Tickets",
    "TrickRow",
    "StoredWebhook",
    "WebhookDeliveries",
    "Webhooks",
    "WriteTransaction",
    "player_feed_id",
]
