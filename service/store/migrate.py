"""Schema migrations: bring a database to the newest revision, safely from many processes at once.

Command line (reads ``DATABASE_URL``, like the service)::

    coins-migrate                  # upgrade to the newest revision (same as python -m service.store.migrate)
    coins-migrate --wait 30        # first wait up to 30 s for the database to accept connections
    coins-migrate --check          # exit 1 unless the database is at the newest revision
    coins-migrate --sql            # print the upgrade's SQL (from the database's revision) instead of running it

Every upgrade runs in one transaction that holds the schema lock (:meth:`Database.schema_lock`),
so gunicorn workers, containers and hosts starting together migrate exactly once and the
rest find the work done.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from ..config import ConfigError, Settings
from .db import Database, DatabaseUnavailable

__all__ = [
    "MIGRATIONS",
    "SchemaNotMigrated",
    "alembic_config",
    "current_revision",
    "head_revision",
    "main",
    "require_migrated",
    "upgrade",
]

MIGRATIONS = Path(__file__).with_name("migrations")
log = logging.getLogger(__name__)


def alembic_config(connection: Connection | None = None) -> Config:
    """The Alembic configuration shipped in the package, bound to ``connection`` when given."""
    config = Config(str(MIGRATIONS / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    config.attributes["configure_logging"] = False  # the caller's logging stays as it is
    return config


@cache
def head_revision() -> str:
    """The newest revision shipped with the code."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "no migrations found"
    return head


def current_revision(database: Database) -> str | None:
    """The revision the database is at, or None when it has never been migrated."""
    with database.transaction(write=False) as connection:
        return MigrationContext.configure(connection).get_current_revision()


class SchemaNotMigrated(Exception):
    """The database is behind the code's newest revision, or empty, and nothing here migrates it
    (``AUTO_MIGRATE=false``): every query of a table or column the code needs would fail."""

    def __init__(self, current: str | None, head: str) -> None:
        at = f"at revision {current}" if current else "empty (no revision)"
        super().__init__(f"the database is {at}; this code needs revision {head}: run coins-migrate")
        self.current = current
        self.head = head


def require_migrated(database: Database) -> None:
    """Raise :class:`SchemaNotMigrated` unless the database is at the code's newest revision, or at
    one this code does not know (a newer release's, migrated already: not a database left behind);
    :class:`DatabaseUnavailable` when it does not answer."""
    current, head = current_revision(database), head_revision()
    if current == head or (current is not None and not _shipped(current)):
        return
    raise SchemaNotMigrated(current, head)


def _shipped(revision: str) -> bool:
    """Whether ``revision`` is one of the revisions shipped with this code."""
    return any(script.revision == revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions())


def upgrade(database: Database, revision: str = "head") -> None:
    """Upgrade to ``revision`` in one transaction; a no-op when the database is already there, or at a
    newer release's revision (as :func:`require_migrated` lets it be: the processes of the release before
    keep starting beside the new one's, AUTO_MIGRATE on or off; Alembic would stop them, not knowing it)."""
    with database.schema_lock() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
        if revision == "head" and (current == head_revision() or (current is not None and not _shipped(current))):
            return
        command.upgrade(alembic_config(connection), revision)


def wait_until_reachable(database: Database, seconds: float) -> None:
    """Retry :meth:`Database.ping` for up to ``seconds``: a container may start before its database."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            database.ping()
            return
        except DatabaseUnavailable:
            if time.monotonic() >= deadline:
                raise
            log.info("waiting for the database")
            time.sleep(1)


def _revision_to_print_from(settings: Settings, wait: float) -> str | None:
    """The revision the database is at, so that ``--sql`` prints the upgrade from there (a database
    that is up to date: nothing but the transaction); None for an empty database, or one that cannot
    be reached (then the SQL from empty, and a note on stderr)."""
    database = Database(settings.sqlalchemy_url, pool_size=1, busy_timeout_ms=settings.db_busy_timeout_ms)
    try:
        wait_until_reachable(database, wait)
        return current_revision(database)
    except DatabaseUnavailable as error:
        print(f"coins-migrate: the database is unavailable ({error}): the SQL from an empty database", file=sys.stderr)
        return None
    finally:
        database.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="coins-migrate", description="Upgrade the database named by DATABASE_URL.")
    parser.add_argument("--revision", default="head", help="target revision (default: head)")
    parser.add_argument("--wait", type=float, default=0, metavar="SECONDS", help="wait this long for the database")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 unless the database is at the newest revision")
    group.add_argument(
        "--sql",
        action="store_true",
        help="print the SQL of the upgrade from the database's revision instead of running it",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic.runtime.migration").setLevel(logging.WARNING)  # we print the outcome

    try:
        settings = Settings.from_env()
    except ConfigError as error:
        print(f"coins-migrate: {error}", file=sys.stderr)
        return 2
    if args.sql:
        start = _revision_to_print_from(settings, args.wait)
        config = alembic_config()
        config.set_main_option("sqlalchemy.url", settings.sqlalchemy_url.replace("%", "%%"))
        command.upgrade(config, args.revision if start is None else f"{start}:{args.revision}", sql=True)
        return 0

    database = Database(settings.sqlalchemy_url, pool_size=1, busy_timeout_ms=settings.db_busy_timeout_ms)
    try:
        wait_until_reachable(database, args.wait)
        if args.check:
            current, head = current_revision(database), head_revision()
            print(f"database at {current or 'no revision'}; newest is {head}")
            return 0 if current == head else 1
        before = current_revision(database)
        upgrade(database, args.revision)
        after = current_revision(database)
        newer = after is not None and not _shipped(after)
        print(
            f"database at {after}"
            + ("" if after == before else f" (was {before or 'empty'})")
            + (f", a newer release's than this code's {head_revision()}: left as it is" if newer else "")
        )
        return 0
    except DatabaseUnavailable as error:
        print(f"coins-migrate: the database is unavailable: {error}", file=sys.stderr)
        return 3
    finally:
        database.dispose()


if __name__ == "__main__":
    sys.exit(main())
