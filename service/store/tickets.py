"""Quick-play tickets in the database: queue, read, touch and end them, and lock the waiting ones for a wave.

A ticket belongs to its player, not to a game (see :class:`.models.TicketRow`): every statement
here is a short transaction of its own (or joins the one a keyed unit of work holds), and none
runs in a transaction that changes a game.

A wave of matching (:meth:`Tickets.waiting_locked`) locks the waiting tickets it may match, in
one write transaction: on PostgreSQL ``SELECT … FOR UPDATE SKIP LOCKED``, so that two instances
never match one ticket and never wait on each other (a ticket another wave holds is left out of
this one); on SQLite the write transaction itself, which takes the one write lock up front
(``BEGIN IMMEDIATE``). Every change of a waiting ticket says ``AND status = 'waiting'``: a ticket
another request ended meanwhile is left as it is.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Integer, Table, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite

from .db import Database
from .models import TicketRow

__all__ = ["MatchedSeat", "StoredTicket", "Tickets", "WAITING"]

PLAYERS_PER_STATEMENT = 500  # players whose tickets one SELECT looks for (far below any bound of parameters)

TICKETS = cast(Table, TicketRow.__table__)
WAITING = "waiting"


@dataclass(frozen=True, slots=True)
class MatchedSeat:
    """One seat of a matched game's lineup: its player, the name it sits under, and a bot's strength."""

    player: str
    name: str
    bot: str | None
    address: str | None = None  # the keyed hash of the address the ticket was queued from


@dataclass(slots=True)
class StoredTicket:
    """A ticket as stored (see :class:`.models.TicketRow` for what each column holds)."""

    id: str
    player_id: str
    name: str
    target_score: int
    rated: bool
    bots_after: int | None
    status: str
    mu: float
    sigma: float
    created_at: datetime
    seen_at: datetime
    game_id: str | None = None
    seat: int | None = None
    lineup: tuple[MatchedSeat, ...] | None = None
    matched_at: datetime | None = None
    ended_at: datetime | None = None
    game_started: bool = False
    address_hash: str | None = None  # the keyed hash of the address the ticket was queued from
    turn_timeout_seconds: int = 60  # the clock of the game it asks for: it matches only tickets of the same


_COLUMNS = tuple(f.name for f in fields(StoredTicket))
_SELECT = select(*(TICKETS.c[name] for name in _COLUMNS))
# The worker's reads of every matching wave, built once (built on each call, they cost more CPU than they take to run).
_LIMIT = bindparam("limit", type_=Integer)
_WAITING = _SELECT.where(TICKETS.c.status == WAITING).order_by(TICKETS.c.created_at).limit(_LIMIT)
_UNSTARTED = (
    _SELECT.where(
        TICKETS.c.status == "matched",
        TICKETS.c.game_started.is_(False),
        TICKETS.c.matched_at < bindparam("matched_before", type_=TICKETS.c.matched_at.type),
    )
    .order_by(TICKETS.c.matched_at)
    .limit(_LIMIT)
)


def _ticket(row: Sequence[Any]) -> StoredTicket:
    ticket = StoredTicket(*row)
    if ticket.lineup is not None:
        ticket.lineup = tuple(MatchedSeat(**seat) for seat in cast(list[dict[str, Any]], ticket.lineup))
    return ticket


def _lineup(seats: Sequence[MatchedSeat]) -> list[dict[str, Any]]:
    return [{"player": seat.player, "name": seat.name, "bot": seat.bot, "address": seat.address} for seat in seats]


class Tickets:
    """The table ``queue_tickets`` on one session's connection (:attr:`.StoreSession.tickets`)."""

    def __init__(self, db: Database, connection: Connection, *, inside: bool) -> None:
        """``inside``: the connection is in a transaction its owner ends (a keyed unit of work's)."""
        self._db = db
        self._connection = connection
        self._inside = inside
        self._in_wave = False

    def add(self, ticket: StoredTicket) -> bool:
        """Insert a waiting ticket; False (nothing written) when its player has a waiting ticket
        already (the partial unique index says so, whoever inserted it first)."""
        values = {name: getattr(ticket, name) for name in _COLUMNS if name != "lineup"}
        insert: Any = (sqlite.insert if self._db.is_sqlite else postgresql.insert)(TICKETS)
        statement = insert.values(values).on_conflict_do_nothing().returning(TICKETS.c.id)
        with self._statement(write=True):
            return self._connection.execute(statement).first() is not None

    def get(self, ticket_id: str) -> StoredTicket | None:
        with self._statement(write=False):
            row = self._connection.execute(_SELECT.where(TICKETS.c.id == ticket_id)).first()
        return None if row is None else _ticket(row)

    def waiting_of(self, player_id: str) -> StoredTicket | None:
        """The player's waiting ticket, if they have one."""
        statement = _SELECT.where(TICKETS.c.player_id == player_id, TICKETS.c.status == WAITING)
        with self._statement(write=False):
            row = self._connection.execute(statement).first()
        return None if row is None else _ticket(row)

    def touch(self, player_ids: Collection[str], now: datetime, *, older_than: datetime) -> int:
        """Mark the waiting tickets of the players of ``player_ids`` seen at ``now`` (but those seen
        after ``older_than``: no write for a ticket seen a moment ago); the number of tickets touched.
        A statement per :data:`PLAYERS_PER_STATEMENT` players finds them, one more marks those found."""
        assert not isinstance(player_ids, str), "players' ids, not one id"
        players = sorted(set(player_ids))
        found: list[str] = []
        with self._statement(write=False):  # most heartbeats find nothing to mark: then no write at all
            for start in range(0, len(players), PLAYERS_PER_STATEMENT):
                chunk = players[start : start + PLAYERS_PER_STATEMENT]
                due = (TICKETS.c.player_id.in_(chunk), TICKETS.c.status == WAITING, TICKETS.c.seen_at < older_than)
                found += self._connection.execute(select(TICKETS.c.id).where(*due)).scalars()
        if not found:
            return 0  # (on SQLite a write, even of no row, would queue for the file's one write lock)
        due = (TICKETS.c.id.in_(found), TICKETS.c.status == WAITING, TICKETS.c.seen_at < older_than)
        with self._statement(write=True):
            return int(self._connection.execute(update(TICKETS).where(*due).values(seen_at=now)).rowcount)

    def end(self, ticket_ids: Sequence[str], status: str, now: datetime) -> int:
        """End these tickets (``expired`` or ``cancelled``) if they are still waiting; how many were."""
        if not ticket_ids:
            return 0
        statement = (
            update(TICKETS)
            .where(TICKETS.c.id.in_(ticket_ids), TICKETS.c.status == WAITING)
            .values(status=status, ended_at=now)
        )
        with self._statement(write=True):
            return int(self._connection.execute(statement).rowcount)

    def waiting(self, *, limit: int) -> list[StoredTicket]:
        """Up to ``limit`` waiting tickets, oldest first, as they are now (no lock)."""
        with self._statement(write=False):
            return [_ticket(row) for row in self._connection.execute(_WAITING, {"limit": limit})]

    @contextmanager
    def waiting_locked(self, *, limit: int) -> Iterator[list[StoredTicket]]:
        """In one write transaction, up to ``limit`` waiting tickets, oldest first, locked against
        every other wave until the block ends (see the module's docstring); the block's
        :meth:`match` and :meth:`end` commit with it, an exception rolls them back."""
        if self._inside:
            raise RuntimeError("a wave of matching runs in a transaction of its own")
        statement = _SELECT.where(TICKETS.c.status == WAITING).order_by(TICKETS.c.created_at).limit(limit)
        if not self._db.is_sqlite:
            statement = statement.with_for_update(skip_locked=True)
        with self._db.begin(self._connection, write=True):
            self._in_wave = True
            try:
                yield [_ticket(row) for row in self._connection.execute(statement)]
            finally:
                self._in_wave = False

    def match(self, ticket_id: str, game_id: str, seat: int, lineup: Sequence[MatchedSeat], now: datetime) -> bool:
        """Mark a waiting ticket matched into ``game_id`` at ``seat``; False if it was not waiting."""
        statement = (
            update(TICKETS)
            .where(TICKETS.c.id == ticket_id, TICKETS.c.status == WAITING)
            .values(status="matched", game_id=game_id, seat=seat, lineup=_lineup(lineup), matched_at=now)
        )
        with self._statement(write=True):
            return bool(self._connection.execute(statement).rowcount == 1)

    def unstarted(self, *, matched_before: datetime, limit: int) -> list[StoredTicket]:
        """Matched tickets whose game is not stored yet (its maker stopped, or is still at it)."""
        values = {"matched_before": matched_before, "limit": limit}
        with self._statement(write=False):
            return [_ticket(row) for row in self._connection.execute(_UNSTARTED, values)]

    def of_game(self, game_id: str) -> list[StoredTicket]:
        """The tickets matched into ``game_id``."""
        with self._statement(write=False):
            return [_ticket(row) for row in self._connection.execute(_SELECT.where(TICKETS.c.game_id == game_id))]

    def started(self, game_id: str) -> None:
        """The game these tickets were matched into is stored."""
        statement = update(TICKETS).where(TICKETS.c.game_id == game_id).values(game_started=True)
        with self._statement(write=True):
            self._connection.execute(statement)

    def _statement(self, *, write: bool) -> AbstractContextManager[object]:
        """One statement: atomic on its own (no BEGIN), or joining the wave's or the keyed unit's transaction."""
        if self._in_wave or self._inside:
            return self._db.within(self._connection, savepoint=False)
        return self._db.begin(self._connection, write=write, one_statement=True)
