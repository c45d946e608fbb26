"""The players' webhooks and the deliveries owed to them (contract 1.3, "Notifications").

Both are keyed by their own ids and belong to a player, never to a game: a webhook is written by
its player's requests, in transactions of their own; a delivery is queued in the transaction that
appends the player's feed event it carries (:mod:`.player_events`), and then claimed, tried and
rescheduled by the worker in short transactions of its own, none held while it sends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base, JsonType, UTCDateTime

__all__ = ["URL_LENGTH", "WebhookDeliveryRow", "WebhookRow"]

URL_LENGTH = 2048


class WebhookRow(Base):
    """A player's webhook: where to send which types of the player's feed events, and the signing
    secret, encrypted (``secret``: the ciphertext, never the secret; see service.webhooks.secrets).
    ``failing_since``: when the first failure since its last success happened (none: not failing);
    after three days of failures ``enabled`` turns false."""

    __tablename__ = "webhooks"
    __table_args__ = (Index("ix_webhooks_player_id", "player_id"),)

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(26), nullable=False)
    url: Mapped[str] = mapped_column(String(URL_LENGTH), nullable=False)
    types: Mapped[Any] = mapped_column(JsonType, nullable=False)
    secret: Mapped[str] = mapped_column(Text, nullable=False)
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class WebhookDeliveryRow(Base):
    """One player event owed to one webhook: the event (player id, event id) is read from the
    player's feed when sent. ``next_attempt_at``: when it is due (a claim moves it on by a lease,
    so that a worker that dies while sending leaves it due again); ``attempts``: tries so far."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (Index("ix_webhook_deliveries_next_attempt_at", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    webhook_id: Mapped[str] = mapped_column(
        String(26), ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False, index=True
    )
    player_id: Mapped[str] = mapped_column(String(26), nullable=False)
    event_id: Mapped[int] = mapped_column(Integer, nullable=False)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
