"""Player feeds are purged by age: an index on player_events.created_at.

A player's feed (``player_events``) grew for good: about 17 events and 27 KiB a game played (a soak,
2026-12-06), and after the account was deleted too. The retention purge now deletes the events older
than ``PURGE_FINISHED_AFTER_DAYS`` and those of deleted accounts (service.store.purge.purge_feeds);
this index lets it find the old ones without reading every feed.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0024"
down_revision: str | Sequence[str] | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_player_events_created_at", "player_events", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_player_events_created_at", table_name="player_events")
