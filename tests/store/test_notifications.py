"""Which notifications a database gets, and where a PostgreSQL listener connects."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import ConfigError, Settings
from service.store import Database
from service.store.notifications import InProcessNotifications, PostgresNotifications, SocketNotifications
from service.store.session import notifications_for

PG = "postgresql+psycopg://coins:secret@db.internal:6432/coins"  # never connected to here


@pytest.mark.parametrize(
    ("listen_url", "conninfo"),
    [
        (None, "postgresql://coins:secret@db.internal:6432/coins"),
        ("postgresql://coins:secret@db.internal:5432/coins", "postgresql://coins:secret@db.internal:5432/coins"),
    ],
)
def test_a_postgresql_listener_connects_to_the_listen_url_else_the_database(listen_url, conninfo) -> None:
    db = Database(PG)
    notifications = notifications_for(db, listen_url=listen_url)
    assert isinstance(notifications, PostgresNotifications) and notifications.conninfo == conninfo
    db.dispose()


def test_sqlite_files_notify_through_sockets_and_memory_in_process(tmp_path: Path) -> None:
    on_file, in_memory = Database(f"sqlite:///{tmp_path / 'coins.sqlite3'}"), Database("sqlite://")
    assert isinstance(notifications_for(on_file), SocketNotifications)
    assert isinstance(notifications_for(in_memory), InProcessNotifications)
    on_file.dispose(), in_memory.dispose()


def test_the_listen_url_is_a_postgresql_one() -> None:
    assert (
        Settings.from_env({"DATABASE_LISTEN_URL": "postgresql://x@h/db"}).database_listen_url == "postgresql://x@h/db"
    )
    with pytest.raises(ConfigError, match="DATABASE_LISTEN_URL"):
        Settings.from_env({"DATABASE_LISTEN_URL": "mysql://x@h/db"})
    assert "secret" not in repr(Settings(database_listen_url="postgresql://x:secret@h/db"))
