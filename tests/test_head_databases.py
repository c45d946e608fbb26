"""The tests' databases at the head revision (tests/support/head_databases.py) are what a migration
of an empty database makes, also after a test has written to the one before: the same tables, the
same rows (but for the times the seeds were written: a copy keeps the first migration's), and on
PostgreSQL the same sequences (ids start again where a migration starts them)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect, text

from service import create_app
from service.config import Settings
from tests.support.head_databases import HeadDatabases, empty_schema, migrate
from tests.support.working_client import NO_PACE


def _contents(database_url: str) -> dict[str, Any]:
    """Every table's rows (in order), and PostgreSQL's sequences where they stand."""
    engine = create_engine(Settings(database_url=database_url).sqlalchemy_url)
    try:
        with engine.connect() as connection:
            tables = sorted(inspect(connection).get_table_names())
            contents: dict[str, Any] = {
                table: sorted(
                    (_timeless(row) for row in connection.execute(text(f'SELECT * FROM "{table}"'))), key=repr
                )
                for table in tables
            }
            if engine.dialect.name == "postgresql":
                sequences = "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = current_schema()"
                contents["sequences"] = sorted(map(tuple, connection.execute(text(sequences))))
            return contents
    finally:
        engine.dispose()


def _timeless(row: Any) -> tuple[Any, ...]:
    """A row, its times left out (a seed's time is when it was written; as text on SQLite)."""
    return tuple("a time" if isinstance(value, datetime) or _is_time_text(value) else value for value in row)


def _is_time_text(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _write_to(database_url: str) -> None:
    """A player, and a game of theirs against two bots: rows in many tables, ids taken from sequences
    (the outbox's, for the player's events)."""
    app = create_app(Settings(database_url=database_url, rate_limits="off", **NO_PACE))
    try:
        client = app.test_client()
        player = client.post("/v1/players", json={"name": "Lee"})
        assert player.status_code == 201, player.json
        seats = [{"player": "me"}, {"bot": "basic"}, {"bot": "expert"}]
        key = {"Authorization": f"Bearer {player.json['key']}"}
        created = client.post("/v1/games", json={"seats": seats}, headers=key)
        assert created.status_code == 201, created.json
    finally:
        app.extensions["coins.feed"].close()
        app.extensions["coins.db"].dispose()


def test_a_database_made_again_is_the_one_a_migration_makes(postgres_url: str | None, tmp_path: Path) -> None:
    made = HeadDatabases(postgres_url, tmp_path)
    try:
        fresh = f"sqlite:///{tmp_path / 'fresh.sqlite3'}" if postgres_url is None else empty_schema(postgres_url)
        migrate(fresh)
        migrated = _contents(fresh)
        assert migrated, "no table"
        first = made.sqlite(tmp_path / "first.sqlite3") if postgres_url is None else made.postgres()
        assert _contents(first) == migrated
        _write_to(first)
        assert _contents(first) != migrated
        again = made.sqlite(tmp_path / "first.sqlite3.again") if postgres_url is None else made.postgres()
        assert _contents(again) == migrated
    finally:
        made.close()
