"""Ratings on the table (contract 1.3): ``seats.rating`` and ``seats.rating_provisional``, a rated
game's seat's player's rating as shown (value, provisional) when the game began, written as it
begins. Seats of games begun before this revision have none (null: the table shows no rating).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("rating", sa.Integer(), nullable=True))
    op.add_column("seats", sa.Column("rating_provisional", sa.Boolean(), nullable=True))


def downgrade() -> None:
    kwargs = {"sqlite_with_rowid": False} if op.get_bind().dialect.name == "sqlite" else {}
    with op.batch_alter_table("seats", table_kwargs=kwargs) as batch:  # SQLite: a copy, keeping the clustered key
        batch.drop_column("rating_provisional")
        batch.drop_column("rating")
