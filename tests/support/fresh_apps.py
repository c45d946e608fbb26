"""A new app on a fresh database each time a test asks: one per example of a state machine.

The ``app`` fixture of tests/conftest.py gives one fresh database per test function, but a
Hypothesis state machine runs many examples in one test function, and each must start from
nothing (no games, no idempotency keys) to be reproducible on its own. Each gets a database at
the head revision from the worker's :class:`.HeadDatabases` (a copy, or the schema reset: some
0.03 s, where a migration takes 0.12 to 0.28 s).
"""

from __future__ import annotations

import itertools
from pathlib import Path

from flask import Flask

from service import create_app
from service.api.resources.events.routes import FEED_EXTENSION
from service.config import Settings
from tests.support.head_databases import HeadDatabases
from tests.support.working_client import NO_PACE


class FreshApps:
    """Apps on fresh databases at the head revision, from ``databases``: a new SQLite file in
    ``folder`` each time, or this worker's PostgreSQL schema reset."""

    def __init__(self, databases: HeadDatabases, folder: Path) -> None:
        self.databases = databases
        self.folder = folder
        self._numbers = itertools.count(1)

    def new(self) -> Flask:
        """An app on a fresh database; rate limits off, as the ``settings`` fixture has them."""
        app = create_app(Settings(database_url=self._database(), rate_limits="off", **NO_PACE))
        app.config["TESTING"] = True
        return app

    @staticmethod
    def close(app: Flask) -> None:
        """Stop what the app started: its event readers, its notification listener, its connections."""
        app.extensions[FEED_EXTENSION].close()
        app.extensions["coins.db"].dispose()

    def _database(self) -> str:
        if self.databases.postgres_url is None:
            return self.databases.sqlite(self.folder / f"example-{next(self._numbers)}.sqlite3")
        return self.databases.postgres()
