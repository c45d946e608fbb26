"""Reviews of finished games: asked for by a reader, computed by the worker a few plays at a time.

- :meth:`Reviews.ask`: the game's review, asked for now if nobody had (one row, whoever asks first).
- :meth:`Reviews.pending`: the reviews not done yet, oldest request first (the worker's list).
- :meth:`Reviews.extend`: the next plays' entries, written only if nobody wrote them first.

Each runs in a short transaction of its own, never in a game's: a finished game does not change,
so its review needs no lock of the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Integer, Table, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database
from .models import ReviewRow

__all__ = ["Reviews", "StoredReview"]

REVIEWS = cast(Table, ReviewRow.__table__)
# The worker's read of every pass, built once (built on each call, it costs more CPU than it takes to run).
_PENDING = (
    select(REVIEWS)
    .where(REVIEWS.c.done_at.is_(None))
    .order_by(REVIEWS.c.requested_at)
    .limit(bindparam("limit", type_=Integer))
)


@dataclass(frozen=True, slots=True)
class StoredReview:
    """A game's review as far as it is computed: ``plays`` holds the first entries of ``total``."""

    game_id: str
    requested_at: datetime
    total: int
    plays: list[dict[str, Any]]
    done_at: datetime | None


class Reviews:
    """The reviews in one database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def ask(self, game_id: str, total: int, now: datetime) -> StoredReview:
        """The game's review, asked for at ``now`` (with ``total`` plays to review) unless it was before."""
        dialect = sqlite if self._db.is_sqlite else postgresql
        done = now if total == 0 else None
        insert = dialect.insert(REVIEWS).values(
            game_id=game_id, requested_at=now, total=total, reviewed=0, plays=[], done_at=done
        )
        with self._db.connect() as connection, self._db.begin(connection, write=True):
            connection.execute(insert.on_conflict_do_nothing(index_elements=["game_id"]))
            row = connection.execute(select(REVIEWS).where(REVIEWS.c.game_id == game_id)).one()
        return _stored(row)

    def get(self, game_id: str) -> StoredReview | None:
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            row = connection.execute(select(REVIEWS).where(REVIEWS.c.game_id == game_id)).one_or_none()
        return _stored(row) if row is not None else None

    def pending(self, limit: int) -> list[StoredReview]:
        """At most ``limit`` reviews not done yet, oldest request first."""
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            return [_stored(row) for row in connection.execute(_PENDING, {"limit": limit})]

    def extend(self, review: StoredReview, entries: list[dict[str, Any]], now: datetime) -> bool:
        """Append ``entries`` to ``review`` as read (done at ``now`` if they complete it); False, and
        nothing written, if another process extended it first."""
        plays = [*review.plays, *entries]
        statement = (
            update(REVIEWS)
            .where(REVIEWS.c.game_id == review.game_id, REVIEWS.c.reviewed == len(review.plays))
            .values(plays=plays, reviewed=len(plays), done_at=now if len(plays) >= review.total else None)
        )
        with self._db.connect() as connection, self._db.begin(connection, write=True, one_statement=True):
            return connection.execute(statement).rowcount == 1


def _stored(row: Any) -> StoredReview:
    return StoredReview(row.game_id, row.requested_at, row.total, list(row.plays), row.done_at)
