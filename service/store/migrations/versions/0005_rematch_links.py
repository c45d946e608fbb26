"""Rematches: a finished game names its rematch (games.rematch), and the rematch names it (games.rematch_of).

Plain nullable ids, no foreign key: a key between two games' rows would tie games together,
and every game table is keyed by its own game alone. Games stored before this revision have
neither (null).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("rematch_of", sa.String(length=26), nullable=True))
    op.add_column("games", sa.Column("rematch", sa.String(length=26), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rematch")
        batch.drop_column("rematch_of")
