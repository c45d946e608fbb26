"""Alembic environment: migrate the connection handed in by :mod:`service.store.migrate`, or DATABASE_URL.

``coins-migrate`` passes a connection that already holds the schema lock (see
:meth:`service.store.Database.schema_lock`), so its transaction wraps every revision. The
``alembic`` command line (developers) gets the same lock here.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection

from service.config import Settings
from service.store.db import Database
from service.store.models import Base

config = context.config
target_metadata = Base.metadata

if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    return config.get_main_option("sqlalchemy.url") or Settings.from_env().sqlalchemy_url


def run_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        transactional_ddl=True,  # every caller runs us inside one transaction (SQLite DDL is transactional too)
    )
    with context.begin_transaction():  # a no-op inside the caller's transaction
        context.run_migrations()


def run_offline() -> None:
    """``alembic upgrade head --sql``: print the SQL instead of running it."""
    context.configure(
        url=database_url(), target_metadata=target_metadata, literal_binds=True, dialect_opts={"paramstyle": "named"}
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
        return
    database = Database(database_url())
    try:
        with database.schema_lock() as locked:
            run_on(locked)
    finally:
        database.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
