"""PostgreSQL: games.state becomes JSON instead of JSONB, as in service/store/models.py.

The snapshot is only ever written and read whole; JSONB parsed it into its binary form on every
write (and, past 2 KB, compressed it) and rebuilt the text on every read. SQLite stores JSON as
text either way: nothing to do there.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute("ALTER TABLE games ALTER COLUMN state TYPE json USING state::json")


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute("ALTER TABLE games ALTER COLUMN state TYPE jsonb USING state::jsonb")
