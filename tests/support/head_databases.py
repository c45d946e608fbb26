"""Databases at the head revision for the tests, made without migrating each one.

Migrating an empty database costs some 0.12 s on SQLite and 0.15 s on PostgreSQL, and most tests
want one (the ``app`` fixture's). :class:`HeadDatabases` migrates once per pytest worker and then
gives each test that state again: on SQLite a copy of the migrated file; on PostgreSQL the worker's
schema with every table emptied (``TRUNCATE … RESTART IDENTITY``: its sequences start again) and
the rows the migrations seed (the bots' players) put back from a copy kept beside it. The result is
the database a migration makes (``tests/test_head_databases.py`` compares the two); whenever the
schema is not at the head revision (a test left it empty, or behind), it is migrated again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Connection, create_engine, text

from service.config import Settings
from service.store.db import Database
from service.store.migrate import head_revision, upgrade

__all__ = ["HeadDatabases", "empty_schema", "migrate"]

VERSION_TABLE = "alembic_version"


def migrate(database_url: str) -> None:
    """Migrate the database of ``database_url`` to the head revision, as an app's start does."""
    database = Database(Settings(database_url=database_url).sqlalchemy_url, pool_size=1)
    try:
        upgrade(database)
    finally:
        database.dispose()


def empty_schema(postgres_url: str) -> str:
    """Drop everything in the schema that ``postgres_url``'s search_path names (tables and
    alembic_version), leaving it empty for an app to migrate; the URL back."""
    engine = create_engine(Settings(database_url=postgres_url).sqlalchemy_url)
    with engine.begin() as connection:
        schema = connection.scalar(text("SELECT current_schema()"))
        connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    return postgres_url


class HeadDatabases:
    """This worker's databases at the head revision: SQLite files copied from one migrated in
    ``folder``, or, given the worker's PostgreSQL schema, that schema brought back to that state."""

    def __init__(self, postgres_url: str | None, folder: Path) -> None:
        self.postgres_url = postgres_url
        self._template = folder / "head.sqlite3"

    def sqlite(self, path: Path) -> str:
        """A new SQLite file at ``path``, at the head revision; its URL."""
        if not self._template.exists():
            migrate(f"sqlite:///{self._template}")
        source, copy = sqlite3.connect(self._template), sqlite3.connect(path)
        try:
            source.backup(copy)  # a consistent copy, whatever the template's journal holds
        finally:
            source.close()
            copy.close()
        return f"sqlite:///{path}"

    def postgres(self) -> str:
        """The worker's schema, as a migration of it empty would leave it; its URL."""
        assert self.postgres_url is not None
        engine = create_engine(Settings(database_url=self.postgres_url).sqlalchemy_url)
        try:
            with engine.begin() as connection:
                schema = connection.scalar(text("SELECT current_schema()"))
                at_head = _revision(connection, schema) == head_revision()
                if at_head and _has_schema(connection, _seeds(schema)):
                    _empty_and_seed(connection, schema)
                    return self.postgres_url
            migrate(empty_schema(self.postgres_url))
            with engine.begin() as connection:
                _keep_seeds(connection, schema)
        finally:
            engine.dispose()
        return self.postgres_url

    def close(self) -> None:
        """Drop the copy of the seeds kept beside the worker's schema (PostgreSQL)."""
        if self.postgres_url is None:
            return
        engine = create_engine(Settings(database_url=self.postgres_url).sqlalchemy_url)
        try:
            with engine.begin() as connection:
                schema = connection.scalar(text("SELECT current_schema()"))
                connection.execute(text(f'DROP SCHEMA IF EXISTS "{_seeds(schema)}" CASCADE'))
        finally:
            engine.dispose()


def _seeds(schema: str) -> str:
    """The schema beside ``schema`` that keeps a copy of the rows the migrations seed."""
    return f"{schema}_seeds"


def _revision(connection: Connection, schema: str) -> str | None:
    if not connection.scalar(
        text("SELECT 1 FROM pg_tables WHERE schemaname = :schema AND tablename = :table"),
        {"schema": schema, "table": VERSION_TABLE},
    ):
        return None
    revision = connection.scalar(text(f'SELECT version_num FROM "{schema}".{VERSION_TABLE}'))
    return None if revision is None else str(revision)


def _has_schema(connection: Connection, schema: str) -> bool:
    return bool(connection.scalar(text("SELECT 1 FROM pg_namespace WHERE nspname = :schema"), {"schema": schema}))


def _tables(connection: Connection, schema: str) -> list[str]:
    rows = connection.execute(
        text("SELECT tablename FROM pg_tables WHERE schemaname = :schema AND tablename <> :version ORDER BY tablename"),
        {"schema": schema, "version": VERSION_TABLE},
    )
    return [row[0] for row in rows]


def _keep_seeds(connection: Connection, schema: str) -> None:
    """Copy the rows of ``schema``'s tables that have any (just migrated: the seeds) beside it."""
    seeds = _seeds(schema)
    connection.execute(text(f'DROP SCHEMA IF EXISTS "{seeds}" CASCADE'))
    connection.execute(text(f'CREATE SCHEMA "{seeds}"'))
    for table in _tables(connection, schema):
        if connection.scalar(text(f'SELECT EXISTS (SELECT 1 FROM "{schema}"."{table}")')):
            connection.execute(text(f'CREATE TABLE "{seeds}"."{table}" AS TABLE "{schema}"."{table}"'))


def _empty_and_seed(connection: Connection, schema: str) -> None:
    tables = _tables(connection, schema)
    listed = ", ".join(f'"{schema}"."{table}"' for table in tables)
    connection.execute(text(f"TRUNCATE {listed} RESTART IDENTITY CASCADE"))
    for table in _tables(connection, _seeds(schema)):
        connection.execute(text(f'INSERT INTO "{schema}"."{table}" SELECT * FROM "{_seeds(schema)}"."{table}"'))
