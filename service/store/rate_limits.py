"""Rate-limit counters in the database: a storage for the ``limits`` library (and so Flask-Limiter).

``limits`` stores counters in memory (one process's), Redis, Memcached or MongoDB, and has no SQL
storage. Without Redis the service keeps them in the database it already has, which every worker
and instance shares: fixed windows, each hit one UPSERT that starts the window afresh once it has
expired and answers the new count. Expired counters are deleted now and then, a bounded number at
a time. Redis does the same work in memory: set ``REDIS_URL`` for busy installs.

A play costs no write of its own: the limit on plays (given as the option ``plays``, such as
``"120/minute"``) counts a seat's accepted plays from the actions that each play's own transaction
already writes, read in the one statement that reads the counter. Flask-Limiter writes the counter
only for a play refused for another reason than its token (its ``deduct_when``), which wrote nothing
else: a token no seat holds is never a counter's key. A play's key is
``play:<game id>:<token hash>`` (:func:`service.api.hooks.limits.seat_play`: the hash of a seat's
token or of a player's key, whose seat of the game is found by its player); the seat's accepted plays
are those of the last window (a sliding one), and its refused attempts a fixed window as usual.

Flask-Limiter builds it from the URI ``coins-database://`` with the option ``database`` (a
:class:`.Database`).
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from limits import parse
from limits.storage import Storage
from sqlalchemy import Connection, Table, bindparam, case, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql import Select

from .db import Database, DatabaseUnavailable
from .models import ActionRow, RateLimitRow, SeatRow
from .player_models import PlayerRow

__all__ = ["DatabaseStorage"]

COUNTERS = cast(Table, RateLimitRow.__table__)
ACTIONS = cast(Table, ActionRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
PLAYERS = cast(Table, PlayerRow.__table__)
PLAY_KEY = re.compile(r"play:(?P<game_id>[^:/]+):(?P<token_hash>[0-9a-f]{64})")
_LIVE_COUNTER = (COUNTERS.c.key == bindparam("key")) & (COUNTERS.c.expires_at > bindparam("now"))
PURGE_EVERY = 1000  # hits of one process between deletions of expired counters
PURGE_LIMIT = 1000  # counters deleted at most each time


class DatabaseStorage(Storage):
    """Fixed-window counters in the table ``rate_limits``."""

    STORAGE_SCHEME = ["coins-database"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any) -> None:
        database = options.pop("database", None)
        if not isinstance(database, Database):
            raise TypeError("DatabaseStorage needs the option database=<service.store.Database>")
        plays = parse(options.pop("plays", "120/minute"))
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self._db = database
        self._insert: Any = sqlite.insert if database.is_sqlite else postgresql.insert
        self._hits = itertools.count(1)
        self._play_window = timedelta(seconds=plays.get_expiry())
        self._counter = select(COUNTERS.c.count, COUNTERS.c.expires_at).where(_LIVE_COUNTER)
        self._played = _with_accepted_plays(recent=4 * plays.amount + 8)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return DatabaseUnavailable

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        statement = self._insert(COUNTERS).values(key=key, count=amount, expires_at=now + expiry)
        expired = COUNTERS.c.expires_at <= now
        statement = statement.on_conflict_do_update(
            index_elements=[COUNTERS.c.key],
            set_={
                "count": case((expired, amount), else_=COUNTERS.c.count + amount),
                "expires_at": case((expired, now + expiry), else_=COUNTERS.c.expires_at),
            },
        ).returning(COUNTERS.c.count)
        with self._statement() as connection:
            count = int(connection.execute(statement).scalar_one())
        if next(self._hits) % PURGE_EVERY == 0:
            self.purge(now)
        return count

    def get(self, key: str) -> int:
        """The count of ``key``'s window; for a play's key, with the seat's accepted plays."""
        count, _, plays, _ = self._read(key)
        return count + plays

    def get_expiry(self, key: str) -> float:
        """When ``key``'s window ends; for a play's key, the earlier of that and when its oldest
        counted play leaves the window."""
        count, expires_at, plays, play_leaves = self._read(key)
        ends = [moment for counted, moment in ((count, expires_at), (plays, play_leaves)) if counted]
        return max(time.time(), min(ends)) if ends else time.time()

    def _read(self, key: str) -> tuple[int, float, int, float]:
        """The counter of ``key`` and when it expires (0, 0 once expired); for a play's key also the
        seat's accepted plays within the window and when the oldest of them leaves it. One statement."""
        values: dict[str, Any] = {"key": key, "now": time.time()}
        play = PLAY_KEY.search(key)
        if play is not None:
            values.update(play.groupdict(), since=datetime.now(UTC) - self._play_window)
        with self._statement(write=False) as connection:
            row = connection.execute(self._counter if play is None else self._played, values).one_or_none()
        if row is None or row[0] is None:
            count, expires_at = 0, 0.0
        else:
            count, expires_at = int(row[0]), float(row[1])
        if play is None or not row or not row[2]:
            return count, expires_at, 0, 0.0
        return count, expires_at, int(row[2]), (row[3] + self._play_window).timestamp()

    def check(self) -> bool:
        try:
            self._db.ping()
        except DatabaseUnavailable:
            return False
        return True

    def reset(self) -> int | None:
        with self._statement() as connection:
            return connection.execute(delete(COUNTERS)).rowcount

    def clear(self, key: str) -> None:
        with self._statement() as connection:
            connection.execute(delete(COUNTERS).where(COUNTERS.c.key == key))

    def purge(self, now: float | None = None, *, limit: int = PURGE_LIMIT) -> int:
        """Delete up to ``limit`` expired counters; the number deleted."""
        expired = select(COUNTERS.c.key).where(COUNTERS.c.expires_at <= (now or time.time())).limit(limit)
        with self._statement() as connection:
            return connection.execute(delete(COUNTERS).where(COUNTERS.c.key.in_(expired))).rowcount

    @contextmanager
    def _statement(self, *, write: bool = True) -> Iterator[Connection]:
        with self._db.connect() as connection, self._db.begin(connection, write=write, one_statement=True):
            yield connection


def _with_accepted_plays(*, recent: int) -> Select[Any, Any, int, Any]:
    """The counter of ``:key`` (its count and expiry, NULL unless live at ``:now``), with the count
    of accepted plays (and the oldest one's time) of the seat whose token hashes to ``:token_hash``
    (or whose player's key does) in game ``:game_id`` since ``:since``, among the game's ``recent``
    latest actions (more than the limit lets a seat make in a window, however the other seats play)."""
    latest = (
        select(ACTIONS.c.seat, ACTIONS.c.kind, ACTIONS.c.cause, ACTIONS.c.created_at)
        .where(ACTIONS.c.game_id == bindparam("game_id"))
        .order_by(ACTIONS.c.seq.desc())
        .limit(recent)
        .subquery()
    )
    key_player = select(PLAYERS.c.id).where(PLAYERS.c.key_hash == bindparam("token_hash")).scalar_subquery()
    seat = (
        select(SEATS.c.seat)
        .where(
            SEATS.c.game_id == bindparam("game_id"),
            (SEATS.c.token_hash == bindparam("token_hash"))
            | ((SEATS.c.player_id == key_player) & SEATS.c.bot.is_(None)),
        )
        .limit(1)
    )
    return select(
        select(COUNTERS.c.count).where(_LIVE_COUNTER).scalar_subquery(),
        select(COUNTERS.c.expires_at).where(_LIVE_COUNTER).scalar_subquery(),
        func.count(),
        func.min(latest.c.created_at),
    ).where(
        latest.c.seat == seat.scalar_subquery(),
        latest.c.kind == "play",
        latest.c.cause == "player",
        latest.c.created_at > bindparam("since", type_=ACTIONS.c.created_at.type),
    )
