"""Which channel a database gets, where a PostgreSQL listener connects, and how a process's listener
hears every change: signalled ones, an SQLite file written by another connection, and after its
connection was cut off."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from service.config import ConfigError, Settings
from service.events.channels import (
    Channel,
    InProcessChannel,
    PostgresChannel,
    RedisChannel,
    SqliteFileChannel,
    channel_for,
)
from service.store import Database
from tests.store.test_unavailable import terminate

PG = "postgresql+psycopg://coins:secret@db.internal:6432/coins"  # never connected to here
REDIS = "redis://127.0.0.1:6379/0"
WAIT_SECONDS = 10


@pytest.mark.parametrize(
    ("listen_url", "conninfo"),
    [
        ("", "postgresql://coins:secret@db.internal:6432/coins"),
        ("postgresql://coins:secret@db.internal:5432/coins", "postgresql://coins:secret@db.internal:5432/coins"),
    ],
)
def test_a_postgresql_listener_connects_to_the_listen_url_else_the_database(listen_url, conninfo) -> None:
    db = Database(PG)
    channel = channel_for(db, listen_url=listen_url)
    assert isinstance(channel, PostgresChannel) and channel.conninfo == conninfo
    db.dispose()


def test_sqlite_files_are_watched_memory_is_in_process_and_redis_wins(tmp_path: Path) -> None:
    on_file, in_memory = Database(f"sqlite:///{tmp_path / 'coins.sqlite3'}"), Database("sqlite://")
    assert isinstance(channel_for(on_file), SqliteFileChannel)
    assert isinstance(channel_for(in_memory), InProcessChannel)
    assert isinstance(channel_for(on_file, redis_url=REDIS), RedisChannel)
    on_file.dispose(), in_memory.dispose()


def test_a_channel_says_whether_it_listens(tmp_path: Path) -> None:
    """Started, and not lost: what the worker and real-time roles record for /readyz's ``listeners``."""
    unreachable = PostgresChannel("postgresql://postgres@127.0.0.1:1/nowhere")  # port 1: refused at once
    assert not unreachable.listening  # not started
    unreachable.listen(Heard())
    try:
        for _ in range(100):  # lost once its first attempt is refused
            if not unreachable.listening:
                break
            threading.Event().wait(0.05)
        assert not unreachable.listening
    finally:
        unreachable.close()
    path = tmp_path / "coins.sqlite3"
    sqlite3.connect(path).close()
    with listening(SqliteFileChannel(path)) as it:
        assert it.channel.listening
    memory = InProcessChannel()
    memory.listen(Heard())
    assert memory.listening


def test_the_listen_url_is_a_postgresql_one() -> None:
    assert (
        Settings.from_env({"DATABASE_LISTEN_URL": "postgresql://x@h/db"}).database_listen_url == "postgresql://x@h/db"
    )
    with pytest.raises(ConfigError, match="DATABASE_LISTEN_URL"):
        Settings.from_env({"DATABASE_LISTEN_URL": "mysql://x@h/db"})
    assert "secret" not in repr(Settings(database_listen_url="postgresql://x:secret@h/db"))


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

    def forget(self) -> None:
        with self._changed:
            self.game_ids.clear()


@dataclass
class Listening:
    channel: Channel
    heard: Heard
    writer: psycopg.Connection[Any] | None  # a writer's connection, in autocommit (PostgreSQL)

    def signal(self, *feed_ids: str) -> None:
        """As a writer does once its change has committed."""
        self.channel.signal(feed_ids, self.writer)


@contextmanager
def listening(channel: Channel, writer: psycopg.Connection[Any] | None = None) -> Iterator[Listening]:
    it = Listening(channel, Heard(), writer)
    channel.listen(it.heard)
    try:
        assert it.heard.wait_for(None)  # listening: "anything may have changed" once, first
        yield it
    finally:
        channel.close()
        if writer is not None:
            writer.close()


@contextmanager
def listening_to(database_url: str) -> Iterator[Listening]:
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    channel = channel_for(db)
    writer = psycopg.connect(channel.conninfo, autocommit=True) if isinstance(channel, PostgresChannel) else None
    try:
        with listening(channel, writer) as it:
            yield it
    finally:
        db.dispose()


def test_every_signalled_change_is_heard(database_url: str) -> None:
    with listening_to(database_url) as it:
        for number in range(5):
            it.signal(f"game-{number}")
        assert it.heard.wait_for(*(f"game-{number}" for number in range(5)))


def test_the_feeds_of_one_signal_are_each_heard(database_url: str) -> None:
    with listening_to(database_url) as it:
        it.signal("game-a", "player:b", "game-c")
        assert it.heard.wait_for("game-a", "player:b", "game-c")


def test_postgresql_signals_the_feeds_of_a_change_in_one_statement(database_url: str) -> None:
    """The worker's delivery of the players' events names many feeds: one round trip for them all."""
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL (TEST_DATABASE_URL)")
    sent: list[str] = []

    class Counting(psycopg.Cursor[Any]):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            sent.append(str(query))
            return super().execute(query, params, **kwargs)

    with listening_to(database_url) as it:
        assert it.writer is not None
        it.writer.cursor_factory = Counting
        it.signal("game-a", "player:b", "game-c")
        assert it.heard.wait_for("game-a", "player:b", "game-c")
        assert len(sent) == 1 and "pg_notify" in sent[0]


def test_an_sqlite_file_written_by_another_process_is_noticed(tmp_path: Path) -> None:
    path = tmp_path / "coins.sqlite3"
    with sqlite3.connect(path) as setup:
        setup.execute("CREATE TABLE t (n INTEGER)")
    with listening(SqliteFileChannel(path)) as it:
        it.heard.forget()
        other = sqlite3.connect(path)  # stands for another worker's connection: it tells nobody
        with other:
            other.execute("INSERT INTO t VALUES (1)")
        other.close()
        assert it.heard.wait_for(None)  # which game is not said: every watched one is read again


def test_a_postgresql_listener_cut_off_connects_again_and_says_anything_may_have_changed(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL (TEST_DATABASE_URL)")
    with listening_to(database_url) as it:
        assert isinstance(it.channel, PostgresChannel) and it.channel.backend_pid
        it.heard.forget()
        terminate(it.channel.backend_pid, database_url)
        assert it.heard.wait_for(None)  # back: every watched game is to be read again
        for attempt in range(50):  # and it hears what comes next (once it listens again)
            it.signal(f"after-{attempt}")
            if it.heard.wait_for(f"after-{attempt}", seconds=0.2):
                break
        else:
            pytest.fail("the listener never heard again")


def test_redis_carries_the_changes_when_redis_url_is_set() -> None:
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=1).ping()
    except redis.RedisError:
        pytest.skip("needs Redis on 127.0.0.1:6379")
    with listening(RedisChannel(REDIS)) as it:
        it.signal("game-0")
        it.signal("game-1", "game-2")  # one signal, two feeds
        assert it.heard.wait_for("game-0", "game-1", "game-2")
