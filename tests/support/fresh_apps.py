"""A new app on an empty database each time a test asks: one per example of a state machine.

The ``app`` fixture of tests/conftest.py gives one fresh database per test function, but a
Hypothesis state machine runs many examples in one test function, and each must start from
nothing (no games, no idempotency keys) to be reproducible on its own. Making one is cheap:
some 0.1 s to migrate an empty SQLite file or PostgreSQL schema.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from flask import Flask
from sqlalchemy import create_engine, text

from service import create_app
from service.api.resources.events.routes import FEED_EXTENSION
from service.config import Settings
from tests.support.working_client import NO_PACE


class FreshApps:
    """Apps on fresh databases: a new SQLite file in ``folder`` each time, or, given this pytest
    worker's PostgreSQL schema (tests/conftest.py's ``postgres_url``), that schema emptied."""

    def __init__(self, postgres_url: str | None, folder: Path) -> None:
        self.postgres_url = postgres_url
        self.folder = folder
        self._numbers = itertools.count(1)

    def new(self) -> Flask:
        """An app on an empty database, migrated; rate limits off, as the ``settings`` fixture has them."""
        app = create_app(Settings(database_url=self._empty_database(), rate_limits="off", **NO_PACE))
        app.config["TESTING"] = True
        return app

    @staticmethod
    def close(app: Flask) -> None:
        """Stop what the app started: its event readers, its notification listener, its connections."""
        app.extensions[FEED_EXTENSION].close()
        app.extensions["coins.db"].dispose()

    def _empty_database(self) -> str:
        if self.postgres_url is None:
            return f"sqlite:///{self.folder / f'example-{next(self._numbers)}.sqlite3'}"
        return empty_schema(self.postgres_url)


def empty_schema(postgres_url: str) -> str:
    """Drop everything in the schema that ``postgres_url``'s search_path names (tables and
    alembic_version), leaving it empty for an app to migrate; the URL back."""
    engine = create_engine(postgres_url)
    with engine.begin() as connection:
        schema = connection.scalar(text("SELECT current_schema()"))
        connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    return postgres_url
