"""SQLite: seats, actions and tricks become WITHOUT ROWID tables, as in service/store/models.py.

Each is then one B-tree ordered by its key (game_id, …), not a rowid table plus an index on the
key, so a play's INSERTs and its read of the seats touch half the pages. SQLite cannot change
this in place: each table is copied into a new one. PostgreSQL: nothing to do.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _tables() -> list[sa.Table]:
    """The three tables as revision 0001 made them (frozen here: a revision must not follow the
    models). Given to the copy, they also let ``--sql`` print it without reading the database."""
    metadata = sa.MetaData()
    sa.Table("games", metadata, sa.Column("id", sa.String(length=26), primary_key=True))

    def game_id() -> sa.Column[str]:
        return sa.Column(
            "game_id", sa.String(length=26), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
        )

    def created_at() -> sa.Column[object]:
        return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)

    seats = sa.Table(
        "seats",
        metadata,
        game_id(),
        sa.Column("seat", sa.SmallInteger(), primary_key=True),
        sa.Column("name", sa.String(length=40), nullable=True),
        sa.Column("age", sa.SmallInteger(), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("bot", sa.String(length=10), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=True),
    )
    actions = sa.Table(
        "actions",
        metadata,
        game_id(),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.Column("cause", sa.String(length=8), nullable=False),
        sa.Column("card", sa.String(length=16), nullable=True),
        sa.Column("seed", sa.String(length=128), nullable=True),
        created_at(),
    )
    tricks = sa.Table(
        "tricks",
        metadata,
        game_id(),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.Column("trick_number", sa.SmallInteger(), nullable=False),
        sa.Column("leader", sa.SmallInteger(), nullable=False),
        sa.Column("plays", sa.JSON(), nullable=False),
        sa.Column("winner", sa.SmallInteger(), nullable=False),
        sa.Column("points", sa.SmallInteger(), nullable=False),
        created_at(),
    )
    return [seats, actions, tricks]


def upgrade() -> None:
    _copy_tables(with_rowid=False)


def downgrade() -> None:
    _copy_tables(with_rowid=True)


def _copy_tables(*, with_rowid: bool) -> None:
    if op.get_context().dialect.name != "sqlite":
        return
    for table in _tables():
        table.kwargs["sqlite_with_rowid"] = not with_rowid  # what the copy is made from: the other kind
        with op.batch_alter_table(
            table.name, copy_from=table, recreate="always", table_kwargs={"sqlite_with_rowid": with_rowid}
        ):
            pass
