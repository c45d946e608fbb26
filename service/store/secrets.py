"""Secrets the service makes for itself when the operator sets none: one row each in ``service_secrets``.

Today one: the key of the addresses' keyed hashes (:mod:`service.addresses`), for installs without
``ADDRESS_HASH_KEY``. Made at first use by whichever process comes first (an insert that keeps an
existing row), so every process and instance sharing the database uses the same one.
"""

from __future__ import annotations

import secrets
from typing import cast

from sqlalchemy import Table, select
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database
from .player_models import ServiceSecretRow

__all__ = ["service_secret"]

SECRETS = cast(Table, ServiceSecretRow.__table__)


def service_secret(db: Database, name: str) -> str:
    """The secret called ``name``: made (256 random bits, hex) the first time it is asked for. Read
    first, without a write transaction: only the first asker takes the write lock."""
    with db.transaction(write=False) as connection:
        kept = connection.execute(select(SECRETS.c.value).where(SECRETS.c.name == name)).scalar_one_or_none()
    if kept is not None:
        return cast(str, kept)
    with db.transaction(write=True) as connection:
        dialect_insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
        made = secrets.token_hex(32)
        connection.execute(dialect_insert(SECRETS).values(name=name, value=made).on_conflict_do_nothing())
        value = connection.execute(select(SECRETS.c.value).where(SECRETS.c.name == name)).scalar_one()
    return cast(str, value)
