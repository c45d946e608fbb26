"""Reserved seats and challenges (contract 1.3): ``seats.reserved_for``, the player a seat is kept
for until they take it (indexed with the game, for the count of a day's challenges), and
``players.challenges``, whether the player takes challenges (``everyone``, the default, or
``nobody``). The types of players' events grow to 32 characters (``challenge_received`` has 18), in
the outbox and the feeds. A game waiting for a reserved seat keeps the moment its reservation runs out in
``games.turn_deadline`` (the worker's index of due work): no column of its own.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("reserved_for", sa.String(length=26), nullable=True))
    op.create_index("ix_seats_reserved_for_game_id", "seats", ["reserved_for", "game_id"])
    op.add_column("players", sa.Column("challenges", sa.String(length=10), nullable=False, server_default="everyone"))
    for table in ("outbox", "player_events"):
        _retype(table, sa.String(length=16), sa.String(length=32))


def _retype(table: str, old: sa.String, new: sa.String) -> None:
    """``table.type`` from ``old`` to ``new``. SQLite copies the table (WITHOUT ROWID for the feeds, as
    it was), from the table as it stands given, not reflected, so ``coins-migrate --sql`` prints it too."""
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column(table, "type", existing_type=old, type_=new, existing_nullable=False)
        return
    kwargs = {"sqlite_with_rowid": False} if table == "player_events" else {}
    with op.batch_alter_table(table, copy_from=_table(table, old), table_kwargs=kwargs) as batch:
        batch.alter_column("type", existing_type=old, type_=new, existing_nullable=False)


def _table(name: str, type_: sa.String) -> sa.Table:
    """The outbox (0015) or the players' events (0011), with ``type_`` as their type's."""
    if name == "outbox":
        return sa.Table(
            "outbox",
            sa.MetaData(),
            sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
            sa.Column("game_id", sa.String(length=26), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
            sa.Column("player_id", sa.String(length=26), nullable=False),
            sa.Column("type", type_, nullable=False),
            sa.Column("data", sa.Text(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        )
    return sa.Table(
        "player_events",
        sa.MetaData(),
        sa.Column("player_id", sa.String(length=26), primary_key=True),
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("type", type_, nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    for table in ("outbox", "player_events"):
        _retype(table, sa.String(length=32), sa.String(length=16))
    with op.batch_alter_table("players") as batch:
        batch.drop_column("challenges")
    op.drop_index("ix_seats_reserved_for_game_id", table_name="seats")
    kwargs = {"sqlite_with_rowid": False} if op.get_bind().dialect.name == "sqlite" else {}
    with op.batch_alter_table("seats", table_kwargs=kwargs) as batch:  # SQLite: a copy, keeping the clustered key
        batch.drop_column("reserved_for")
