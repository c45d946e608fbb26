"""Webhooks (contract 1.3): ``webhooks``, a player's signed-delivery targets (the signing secret
encrypted), and ``webhook_deliveries``, the player events owed to each, queued with the events and
sent by the worker.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.String(length=26), primary_key=True),
        sa.Column("player_id", sa.String(length=26), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("types", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_webhooks_player_id", "webhooks", ["player_id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("webhook_id", sa.String(length=26), sa.ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("player_id", sa.String(length=26), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_webhook_deliveries_webhook_id", "webhook_deliveries", ["webhook_id"])
    op.create_index("ix_webhook_deliveries_next_attempt_at", "webhook_deliveries", ["next_attempt_at"])


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
