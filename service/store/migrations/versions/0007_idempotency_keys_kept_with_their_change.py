"""Idempotency keys are written with their response, in their request's transaction: no ``state``.

Until 0006 a key's row was inserted as ``running`` when its request began and completed with the
response after the request's own commit, so a worker that died in between left the key in use for
minutes, and a retry after that could apply the request a second time. Now the row is written
only with its response, in the same transaction as the change (:mod:`service.store.idempotency`):
``state`` goes, ``status`` and ``response`` are always there. Rows still ``running`` (requests of
the version before that never finished) are deleted: their retries run afresh, as they would have.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEYS = sa.table("idempotency_keys", sa.column("state", sa.String()), sa.column("response", sa.LargeBinary()))


def upgrade() -> None:
    op.execute(KEYS.delete().where(sa.or_(KEYS.c.state != "done", KEYS.c.response.is_(None))))
    with _altering(_keys(with_state=True)) as batch:
        batch.drop_column("state")
        batch.alter_column("status", existing_type=sa.SmallInteger(), nullable=False)
        batch.alter_column("response", existing_type=sa.LargeBinary(), nullable=False)


def downgrade() -> None:
    with _altering(_keys(with_state=False)) as batch:
        batch.add_column(sa.Column("state", sa.String(length=8), nullable=False, server_default="done"))
        batch.alter_column("status", existing_type=sa.SmallInteger(), nullable=True)
        batch.alter_column("response", existing_type=sa.LargeBinary(), nullable=True)


def _altering(table: sa.Table) -> Any:
    """SQLite copies the table (WITHOUT ROWID, as it was); with ``table`` given, not reflected, so
    that ``coins-migrate --sql`` can print the copy too."""
    return op.batch_alter_table(table.name, copy_from=table, table_kwargs={"sqlite_with_rowid": False})


def _keys(*, with_state: bool) -> sa.Table:
    """The table before the change (as 0006 made it) or after it."""
    state = [sa.Column("state", sa.String(length=8), nullable=False)] if with_state else []
    return sa.Table(
        "idempotency_keys",
        sa.MetaData(),
        sa.Column("scope", sa.String(length=64), primary_key=True),
        sa.Column("key", sa.String(length=64), primary_key=True),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        *state,
        sa.Column("status", sa.SmallInteger(), nullable=with_state),
        sa.Column("response", sa.LargeBinary(), nullable=with_state),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Index("ix_idempotency_keys_expires_at", "expires_at"),
        sqlite_with_rowid=False,
    )
