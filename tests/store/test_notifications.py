"""Which notifications a database gets, where a PostgreSQL listener connects, and how a listener,
read by an event loop's thread, hears every notification: those that come while the loop is busy,
and after its connection was cut off."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from service.config import ConfigError, Settings
from service.store import Database
from service.store.notifications import (
    InProcessNotifications,
    Notifications,
    PostgresNotifications,
    SocketNotifications,
)
from service.store.session import notifications_for
from tests.store.test_unavailable import terminate

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


WAIT_SECONDS = 10


class Heard:
    """A listener that records what it hears, and lets the test wait until it has heard something."""

    def __init__(self) -> None:
        self.game_ids: list[str | None] = []
        self._changed = threading.Condition()

    def __call__(self, game_id: str | None) -> None:
        with self._changed:
            self.game_ids.append(game_id)
            self._changed.notify_all()

    def wait_for(self, *expected: str | None, seconds: float = WAIT_SECONDS) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: set(expected) <= set(self.game_ids), seconds)


@dataclass
class Listening:
    notifications: Notifications
    heard: Heard
    loop: asyncio.AbstractEventLoop  # the listener's, running in a thread of its own
    writer: psycopg.Connection[Any] | None  # a writer's connection, in autocommit (PostgreSQL)

    def publish(self, game_id: str) -> None:
        """As a writer does once its change has committed."""
        self.notifications.publish(game_id, self.writer)

    def publish_until_heard(self, prefix: str) -> None:
        """Publish until one is heard (PostgreSQL's listener connects in the background)."""
        for attempt in range(50):
            self.publish(f"{prefix}-{attempt}")
            if self.heard.wait_for(f"{prefix}-{attempt}", seconds=0.2):
                return
        pytest.fail("the listener never heard")


@contextmanager
def listening(database_url: str) -> Iterator[Listening]:
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    notifications = notifications_for(db)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    on_postgres = isinstance(notifications, PostgresNotifications)
    writer = psycopg.connect(notifications.conninfo, autocommit=True) if on_postgres else None  # type: ignore[attr-defined]
    try:
        it = Listening(notifications, Heard(), loop, writer)
        notifications.listen(it.heard, loop)
        it.publish_until_heard("ready")
        yield it
    finally:
        notifications.close()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(WAIT_SECONDS)
        if writer is not None:
            writer.close()
        db.dispose()


def test_notifications_that_come_while_the_loop_is_busy_are_all_heard_after(database_url: str) -> None:
    """The loop's thread also reads the changed games: what comes meanwhile waits for it, and is heard."""
    with listening(database_url) as it:
        busy, done = threading.Event(), threading.Event()

        def read() -> None:  # stands for the hub's read of the changed games, on the loop's thread
            busy.set()
            done.wait(WAIT_SECONDS)

        it.loop.call_soon_threadsafe(read)
        assert busy.wait(WAIT_SECONDS)
        for number in range(5):
            it.publish(f"game-{number}")
        done.set()
        assert it.heard.wait_for(*(f"game-{number}" for number in range(5)))


def test_a_listener_cut_off_connects_again_and_says_anything_may_have_changed(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL (TEST_DATABASE_URL): the SQLite listener is a socket of its own")
    with listening(database_url) as it:
        connection = it.notifications._connection  # type: ignore[attr-defined]
        terminate(connection.info.backend_pid, database_url)
        assert it.heard.wait_for(None)  # back: every watched game is to be read again
        it.publish_until_heard("after")  # and it hears what comes next


def test_a_socket_that_was_full_is_told_to_read_everything_with_the_next_notification(database_url: str) -> None:
    if database_url.startswith("postgresql"):
        pytest.skip("SQLite's datagram sockets: PostgreSQL queues notifications for its listeners itself")
    with listening(database_url) as it:
        assert isinstance(it.notifications, SocketNotifications)
        done = threading.Event()
        it.loop.call_soon_threadsafe(done.wait, WAIT_SECONDS)  # the loop's thread is busy: nothing is read
        for number in range(1000):  # until the socket is full (net.unix.max_dgram_qlen datagrams, 10 here)
            it.publish(f"game-{number}")
            if it.notifications._missed:
                break
        done.set()
        assert it.notifications._missed, "the socket never filled"
        it.publish("next")
        assert it.heard.wait_for(None, "next")  # late, and every watched game read again: none lost
        assert not it.notifications._missed
