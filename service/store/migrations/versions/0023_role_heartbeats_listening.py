"""A process's sign of life says whether it hears the changes of games (role_heartbeats.listening).

The worker and real-time processes listen for "game X changed" (PostgreSQL LISTEN, Redis SUBSCRIBE
or SQLite's data version). A listener that is lost reconnects on its own, and meanwhile the process
finds changes only at its polls or its streams' heartbeats: each beat now records whether it
listens, and ``/readyz`` reports a role one of whose processes does not (``listeners``). Rows
written before this revision count as listening.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | Sequence[str] | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("role_heartbeats", sa.Column("listening", sa.Boolean(), nullable=False, server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("role_heartbeats") as batch:
        batch.drop_column("listening")
