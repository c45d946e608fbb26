"""What the worker reads to find due work, and the liveness marks the roles write (none is a change).

- :meth:`DueWork.due_games`: the games whose turn deadline has passed (a stand-in's move, or the
  server's own owed moves: bots, auto-deals; or, in a game waiting for a reserved seat, the end of
  the reservation: the game is cancelled), soonest first, by ``ix_games_turn_deadline``. A game
  of bots alone is due only while it is followed (contract 1.3: it pauses otherwise).
- :meth:`DueWork.owed`: which of the pass's other steps may find work (the outbox, rated results,
  quick-play tickets, reviews), in one statement, so that a pass that finds nothing runs three
  statements, not eight (each step's own read, on its own connection, costs some 0.15 ms of CPU).
- :meth:`DueWork.next_due`: when the next of them falls due (a bot's move a pace away, say), by the
  same index: the worker sleeps until then rather than a whole pause.
- :meth:`DueWork.mark_followed`: the real-time role's mark on the games its streams follow.
- :meth:`DueWork.beat` and :meth:`DueWork.roles_seen`: each process's sign of life (and whether
  it hears the changes of games), and the last sign of each role, for ``/readyz``.

Each runs in a short transaction of its own. A mark writes only ``games.followed_until``, which no
save of a game writes, so it never races a change of the game.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import NamedTuple, cast

from sqlalchemy import (
    ColumnElement,
    Exists,
    Integer,
    Table,
    bindparam,
    case,
    delete,
    exists,
    func,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database
from .models import (
    PENDING_RESULT,
    PENDING_REVIEW,
    UNSTARTED_TICKET,
    WAITING_TICKET,
    GameResultRow,
    GameRow,
    OutboxRow,
    ReviewRow,
    RoleHeartbeatRow,
    SeatRow,
    TicketRow,
)
from .player_models import PENDING_HISTORY, PlayerRow, RatingHistoryRow

__all__ = ["DUE_STATUSES", "FORGET_INSTANCES_AFTER", "DueWork", "Owed", "RoleSeen"]

GAMES = cast(Table, GameRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
HEARTBEATS = cast(Table, RoleHeartbeatRow.__table__)
PLAYERS = cast(Table, PlayerRow.__table__)
OUTBOX = cast(Table, OutboxRow.__table__)
RESULTS = cast(Table, GameResultRow.__table__)
HISTORY = cast(Table, RatingHistoryRow.__table__)
TICKETS = cast(Table, TicketRow.__table__)
REVIEWS = cast(Table, ReviewRow.__table__)
# A game with a turn; or one waiting for a reserved seat, cancelled when its reservation runs out
# (its turn_deadline then): the others have no deadline.
DUE_STATUSES = ("playing", "waiting_for_deal", "waiting_for_players")
FORGET_INSTANCES_AFTER = timedelta(days=1)  # a process not seen for this long is forgotten
MARK_BATCH = 500  # games a mark names in one statement

# A person at the table, or a player named there (seated, or left to a bot: their rating awaits the
# result): such a game moves followed or not. Without one (bots alone), only while followed.
_A_PLAYER = exists().where(PLAYERS.c.id == SEATS.c.player_id, PLAYERS.c.bot.is_(None))
_A_PERSON_OR_PLAYER = exists().where(SEATS.c.game_id == GAMES.c.id, or_(SEATS.c.bot.is_(None), _A_PLAYER))


def _movable(now: ColumnElement[datetime]) -> tuple[ColumnElement[bool], ...]:
    """A game the worker moves at ``now`` when its time comes: one with a turn, and a person or a
    player at the table or someone following it."""
    return GAMES.c.status.in_(DUE_STATUSES), or_(_A_PERSON_OR_PLAYER, GAMES.c.followed_until >= now)


# The worker's reads of every pass, built once: built on each call, such a statement (its EXISTS
# above) costs more CPU to make and to key for the compiled cache than to run.
_NOW = bindparam("now", type_=GAMES.c.turn_deadline.type)
_DUE_GAMES = (
    select(GAMES.c.id)
    .where(GAMES.c.turn_deadline <= _NOW, *_movable(_NOW))
    .order_by(GAMES.c.turn_deadline)
    .limit(bindparam("limit", type_=Integer))
)
_NEXT_DUE = (
    select(GAMES.c.turn_deadline)
    .where(GAMES.c.turn_deadline > _NOW, *_movable(_NOW))
    .order_by(GAMES.c.turn_deadline)
    .limit(1)
)


def _any(table: Table, where: str | None = None) -> Exists:
    """Whether ``table`` has a row (``where``: a partial index's own condition, which lets the index
    answer: a bound parameter in its place would not, on SQLite)."""
    found = exists().select_from(table)
    return found if where is None else found.where(text(where))


# A superset of what each step reads first (without its times and limits): it may say a step has work
# that its own read then does not find (a result finished a moment ago, a ticket matched a moment
# ago), never that one has none when it has.
_OWED = select(
    _any(OUTBOX).label("feeds"),
    or_(_any(RESULTS, PENDING_RESULT), _any(HISTORY, PENDING_HISTORY)).label("results"),
    or_(_any(TICKETS, WAITING_TICKET), _any(TICKETS, UNSTARTED_TICKET)).label("tickets"),
    _any(REVIEWS, PENDING_REVIEW).label("reviews"),
)


class Owed(NamedTuple):
    """Which of a pass's steps besides the due games' moves may find work (see :meth:`DueWork.owed`)."""

    feeds: bool  # the outbox holds what changes owe players' feeds
    results: bool  # rated results, or their bots' rating rows, wait to be applied
    tickets: bool  # quick-play tickets wait for a wave (waiting, or matched and their game not made)
    reviews: bool  # a review asked for is not done


class DueWork:
    """Due games, what else a pass may find to do, and liveness marks in one database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def due_games(self, now: datetime, limit: int) -> list[str]:
        """The ids of at most ``limit`` games whose moves are due at ``now``, soonest first."""
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            return list(connection.execute(_DUE_GAMES, {"now": now, "limit": limit}).scalars())

    def owed(self) -> Owed:
        """Which of a pass's other steps may find work now, in one statement (each table's partial
        index of what is owed answers for it): a step it rules out would find nothing."""
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            row = connection.execute(_OWED).one()
        return Owed(*(bool(value) for value in row))

    def next_due(self, now: datetime) -> datetime | None:
        """The soonest due time after ``now`` of a game :meth:`due_games` would then return (a game
        of bots alone only if it is followed now), None when there is none."""
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            return cast(datetime | None, connection.execute(_NEXT_DUE, {"now": now}).scalar())

    def mark_followed(self, game_ids: Collection[str], until: datetime) -> None:
        """The games ``game_ids`` are followed until ``until`` (a later mark is kept).

        On PostgreSQL a game another transaction holds (a move's save, another process's mark) is
        skipped, not waited for: one UPDATE of many rows locks them in the order its scan finds them,
        so two real-time processes marking the same games deadlocked now and then (a soak: 3 in 45
        minutes, three processes). A skipped game keeps its mark (3 × MARK_SECONDS) until the next."""
        ids = sorted(game_ids)
        with self._db.connect() as connection:
            for start in range(0, len(ids), MARK_BATCH):
                free = (
                    select(GAMES.c.id)
                    .where(
                        GAMES.c.id.in_(ids[start : start + MARK_BATCH]),
                        or_(GAMES.c.followed_until.is_(None), GAMES.c.followed_until < until),
                    )
                    .with_for_update(skip_locked=True)
                )
                statement = update(GAMES).where(GAMES.c.id.in_(free)).values(followed_until=until)
                with self._db.begin(connection, write=True, one_statement=True):
                    connection.execute(statement)

    def beat(self, role: str, instance: str, now: datetime, *, listening: bool = True) -> None:
        """``instance`` (a process of ``role``) is alive at ``now``, and hears the changes of games
        (``listening``) or not; processes long gone are forgotten."""
        dialect = sqlite if self._db.is_sqlite else postgresql
        upsert = dialect.insert(HEARTBEATS).values(role=role, instance=instance, seen_at=now, listening=listening)
        upsert = upsert.on_conflict_do_update(
            index_elements=["role", "instance"], set_={"seen_at": now, "listening": listening}
        )
        with self._db.connect() as connection, self._db.begin(connection, write=True):
            connection.execute(upsert)
            connection.execute(delete(HEARTBEATS).where(HEARTBEATS.c.seen_at < now - FORGET_INSTANCES_AFTER))

    def roles_seen(self) -> dict[str, RoleSeen]:
        """Of each role that gave a sign of life: its last, and the last of one of its processes
        that did not hear the changes of games then."""
        not_listening = case((HEARTBEATS.c.listening.is_(False), HEARTBEATS.c.seen_at), else_=None)
        statement = select(HEARTBEATS.c.role, func.max(HEARTBEATS.c.seen_at), func.max(not_listening)).group_by(
            HEARTBEATS.c.role
        )
        with self._db.connect() as connection, self._db.begin(connection, write=False, one_statement=True):
            rows = connection.execute(statement).all()
        return {role: RoleSeen(seen, deaf) for role, seen, deaf in rows}


class RoleSeen(NamedTuple):
    """A role's last sign of life (``seen``), and the last of one of its processes that did not
    hear the changes of games (``not_listening``; None: none did)."""

    seen: datetime
    not_listening: datetime | None
