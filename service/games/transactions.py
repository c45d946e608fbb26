"""How a use case touches one game: optimistic writes with retries, the game's lock when needed, reads.

Every call reads one game through the sessions of the unit of work it is handed
(:mod:`service.work.unit_of_work`), and a change writes it back once: a refusal (an exception from the
change) writes nothing. The server's own moves (bots, auto-deals) are the worker's
(:meth:`Transactions.make_due_moves`, at their due time, see :mod:`.server_moves`); a change that
finds a person's deadline passed first commits the stand-in's move for them (a read never does).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TypeVar

from .. import engine
from ..engine import Game, Status
from ..store import StoredGame, StoreSession
from ..work import UnitOfWork, given_or_own
from .challenges import expire
from .domain_events import EventLog
from .errors import GameCancelled, GameNotFound
from .leaving import lapse
from .player_events import queue_change
from .results import CANCELLED
from .server_moves import Pace, make_due_moves, owes_server_move, timed_out
from .tokens import player_key_hash

__all__ = ["Change", "OPTIMISTIC_ATTEMPTS", "Read", "Transactions", "restore"]

T = TypeVar("T")
#: A change to a game in memory: the stored game, its engine state (None until it starts), the
#: time, and the log for the events of the change.
Change = Callable[[StoredGame, Game | None, datetime, EventLog], T]
#: A read of a game: the session (for its history) and the stored game.
Read = Callable[[StoreSession, StoredGame], T]

OPTIMISTIC_ATTEMPTS = 3  # lost races on one game before a write takes the game's lock instead


def restore(stored: StoredGame) -> Game | None:
    """The engine's game from its stored snapshot (None until all three seats are taken)."""
    return engine.from_snapshot(stored.state) if stored.state is not None else None


class Transactions:
    """Runs changes and reads of one game each in a unit of work."""

    def __init__(
        self, clock: Callable[[], datetime], unit_of_work: Callable[..., UnitOfWork], pace: Pace | None = None
    ) -> None:
        """``unit_of_work()``: a plain unit of work, for a call handed none; ``pace``: when the
        server's moves fall due after a move (none: at once)."""
        self.clock = clock
        self.pace = pace or Pace()
        self._unit_of_work = unit_of_work

    def work(self, uow: UnitOfWork | None) -> AbstractContextManager[UnitOfWork]:
        """The unit of work a call was handed, else one of its own, committed when the call returns."""
        return given_or_own(uow, self._unit_of_work)

    def change(
        self,
        uow: UnitOfWork | None,
        game_id: str,
        change: Change[T],
        *,
        token: str | None = None,
        cancelled: bool = False,
    ) -> T:
        """:meth:`_change` in ``uow``, or in a unit of its own. With a player's key as ``token``,
        the game is loaded with the key's player (its ``caller``, for :func:`.tokens.authenticate`).
        A cancelled game refuses every change (:class:`.GameCancelled`) but those that say they
        apply to one (``cancelled``: declining, which is repeatable)."""
        if not cancelled:
            change = _not_cancelled(change)
        with self.work(uow) as work:
            return self._change(work, game_id, change, player_key_hash(token))

    def read(
        self,
        uow: UnitOfWork | None,
        game_id: str,
        read: Read[T],
        *,
        several_statements: bool = False,
        token: str | None = None,
    ) -> T:
        """:meth:`_read` in ``uow``, or in a unit of its own; ``token`` as for :meth:`change`."""
        with self.work(uow) as work:
            return self._read(work, game_id, read, player_key_hash(token), several_statements=several_statements)

    def make_due_moves(self, game_id: str) -> bool:
        """The moves due in the game now, committed: what the worker calls for each due game. False when none was due (another
        process made them, or the game changed meanwhile); :class:`.GameNotFound` without the game."""
        with self.work(None) as work:
            return self._catch_up(work, game_id, by_worker=True)

    def finished_version(self, game_id: str) -> int | None:
        """The game's version if it is finished (its record never changes at that version), None
        while it is not; :class:`.GameNotFound` without such a game. One short statement: no log
        is read and no move is made (a finished game owes none)."""
        with self.work(None) as work, work.session() as session:
            found = session.version(game_id)
        if found is None:
            raise GameNotFound(f"there is no game {game_id!r}")
        version, status = found
        return version if status == Status.FINISHED.value else None

    def _change(self, uow: UnitOfWork, game_id: str, change: Change[T], key: str | None) -> T:
        """Apply ``change`` to the game and save the result in one write.

        Optimistic first: read the game without a lock, apply the change in memory, and save it
        only if the game is still at the version read. If another request saved first, read
        again and retry. After ``OPTIMISTIC_ATTEMPTS`` lost races, or when a stand-in move is
        due, the game's lock is held from the read to the write instead.
        """
        for _ in range(OPTIMISTIC_ATTEMPTS):
            with uow.session() as session:
                stored = _found(session.load(game_id, key_hash=key), game_id)
                now = self.clock()
                if timed_out(stored, now):
                    break
                result = self._apply(change, stored, now)
                if session.save(stored):
                    return result
        return self._change_locked(uow, game_id, change, key)

    def _read(
        self, uow: UnitOfWork, game_id: str, read: Read[T], key: str | None, *, several_statements: bool = False
    ) -> T:
        """``read`` the game as stored: a read makes no move, not even one that is due (the worker
        makes those). With ``several_statements`` (a page of its history, say) they share one read
        transaction."""
        with uow.session() as session:
            if several_statements:
                with session.reading():
                    return read(session, _found(session.load(game_id, key_hash=key), game_id))
            return read(session, _found(session.load(game_id, key_hash=key), game_id))

    def _change_locked(self, uow: UnitOfWork, game_id: str, change: Change[T], key: str | None) -> T:
        """:meth:`change` in one transaction holding the game's lock. An overdue stand-in move is
        first committed in a transaction of its own, so the request (which that move may make
        invalid) sees the game as it now stands, and a refusal does not undo the move."""
        with uow.session() as session, session.locked(game_id, key_hash=key) as locked:
            stored = _found(locked, game_id)
            now = self.clock()
            if not timed_out(stored, now):
                return _saved(session, stored, self._apply(change, stored, now))
        self._catch_up(uow, game_id)
        with uow.session() as session, session.locked(game_id, key_hash=key) as locked:
            stored = _found(locked, game_id)
            return _saved(session, stored, self._apply(change, stored, self.clock()))

    def _apply(self, change: Change[T], stored: StoredGame, now: datetime) -> T:
        """Make the change in memory and queue its events on the stored game."""
        log = EventLog()
        result = change(stored, restore(stored), now, log)
        queue_change(log, stored, now)
        return result

    def _catch_up(self, uow: UnitOfWork, game_id: str, *, by_worker: bool = False) -> bool:
        """Make the moves now due, committed: the server's owed one (a bot's or an auto-deal, at its
        own strength: the worker's alone, ``by_worker``) and the ones the pace puts at the same
        moment, or, if the person to act has let their time pass, the stand-in's for them (or their
        leave, :func:`.leaving.lapse`, and their bot's move then); the server's next move is then due
        a pace later. A request's catch-up that finds a server move due changes nothing."""
        with uow.session() as session, session.locked(game_id) as locked:
            stored = _found(locked, game_id)
            now = self.clock()
            game = restore(stored)
            if not timed_out(stored, now):
                return False
            if game is None:  # not started: a reservation ran out (the game is cancelled), or none is left
                log = EventLog()
                expired = expire(stored, now, log)
                queue_change(log, stored, now)
                session.save(stored)
                return expired
            first_due = owes_server_move(stored, game)
            if first_due and not by_worker:
                return False
            log = EventLog()
            if not first_due:
                lapsed = game.turn
                lapse(stored, game, now, log, self.pace)
                first_due = game.turn == lapsed and owes_server_move(stored, game)  # left: its bot moves now
            make_due_moves(stored, game, now, log, self.pace, first_due=first_due, more=by_worker)
            queue_change(log, stored, now)
            session.save(stored)
            return True


def _not_cancelled(change: Change[T]) -> Change[T]:
    """``change``, refused on a cancelled game."""

    def checked(stored: StoredGame, game: Game | None, now: datetime, log: EventLog) -> T:
        if stored.status == CANCELLED:
            raise GameCancelled("the game was cancelled before it started: it never will")
        return change(stored, game, now, log)

    return checked


def _saved(session: StoreSession, stored: StoredGame, result: T) -> T:
    session.save(stored)
    return result


def _found(stored: StoredGame | None, game_id: str) -> StoredGame:
    if stored is None:
        raise GameNotFound(f"there is no game {game_id!r}")
    return stored
