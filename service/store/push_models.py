"""The players' Web Push subscriptions and the messages owed to them (contract 1.3, "Notifications").

As webhooks (:mod:`.webhook_models`): a subscription is written by its player's requests, in
transactions of its own; a delivery is queued in the transaction that appends the player's feed
event it carries, then claimed, sent and settled by the worker, no transaction held while it sends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base, JsonType, UTCDateTime
from .webhook_models import URL_LENGTH

__all__ = ["PushDeliveryRow", "PushSubscriptionRow"]


class PushSubscriptionRow(Base):
    """A browser's push subscription for a player: the push service's ``endpoint``, the browser's
    public key ``p256dh`` (base64url, a P-256 point) and its ``auth`` secret, encrypted (the
    ciphertext; see service.webhooks.secrets), and the player-feed ``types`` it takes."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (Index("ix_push_subscriptions_player_id", "player_id"),)

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(26), nullable=False)
    endpoint: Mapped[str] = mapped_column(String(URL_LENGTH), nullable=False)
    p256dh: Mapped[str] = mapped_column(String(128), nullable=False)
    auth: Mapped[str] = mapped_column(Text, nullable=False)
    types: Mapped[Any] = mapped_column(JsonType, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class PushDeliveryRow(Base):
    """One player event owed to one push subscription (as :class:`.WebhookDeliveryRow`)."""

    __tablename__ = "push_deliveries"
    __table_args__ = (Index("ix_push_deliveries_next_attempt_at", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    subscription_id: Mapped[str] = mapped_column(
        String(26), ForeignKey("push_subscriptions.id", ondelete="CASCADE"), nullable=False, index=True
    )
    player_id: Mapped[str] = mapped_column(String(26), nullable=False)
    event_id: Mapped[int] = mapped_column(Integer, nullable=False)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
