"""The store as the use cases see it: load, save, lock and list games, with transactions its own business.

A :class:`StoreSession` holds one connection for one request's statements. How many statements a
load or a save takes, and whether it needs a transaction, is decided here, by database:

- a load is one SELECT, atomic alone (PostgreSQL runs it in autocommit, SQLite without BEGIN);
- a save of a stored game is one statement on PostgreSQL, and on SQLite a short write
  transaction holding the write lock (queued for: see :class:`.db.Database`);
- inside :meth:`StoreSession.locked` or :meth:`StoreSession.reading` every statement joins the
  block's one transaction.

A save that added events tells the other processes once it has committed (through the
:class:`.notifications.Notifications` it is given: the event feed's channel).
Inside a transaction the thread holds (:meth:`.Database.hold`) every block joins it, and the
others are told after its commit.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime

from .db import Database
from .driver import driver_connection
from .notifications import Notifications, Unheard
from .repository import ConcurrentUpdate, GameRepository
from .stored import StoredAction, StoredEvent, StoredGame, StoredTrick

__all__ = ["GameStore", "StoreSession"]

log = logging.getLogger(__name__)


class GameStore:
    """Games in one database. Holds no game between calls: any number of processes share it."""

    def __init__(self, db: Database, notifications: Notifications | None = None) -> None:
        self.db = db
        self.notifications = notifications if notifications is not None else Unheard()

    @contextmanager
    def session(self) -> Iterator[StoreSession]:
        """One connection (one pooled checkout) for a request's loads and saves."""
        with self.db.connect() as connection:
            yield StoreSession(self.db, GameRepository(connection), self.notifications)

    def ping(self) -> None:
        """Raise :class:`.DatabaseUnavailable` unless the database answers."""
        self.db.ping()


class StoreSession:
    """Loads and saves on one connection; see the module's docstring for the transactions they take."""

    def __init__(self, db: Database, repository: GameRepository, notifications: Notifications) -> None:
        self._db = db
        self._repository = repository
        self._notifications = notifications
        self._in_transaction = False
        self._changed: list[str] = []  # games whose new events commit with the transaction

    def load(self, game_id: str) -> StoredGame | None:
        """The game and its seats, as they are now (one statement, no lock)."""
        if self._in_transaction:
            return self._repository.get(game_id)
        with self._db.begin(self._repository.connection, write=False, one_statement=True):
            return self._repository.get(game_id)

    def save(self, game: StoredGame) -> bool:
        """Insert a new game, or write a loaded one back with its queued actions and tricks, at once.

        False, with nothing written, when the stored game is no longer at the version it was loaded
        at (another request saved first): the caller loads it again. Inside :meth:`locked` the save
        joins that transaction, where no other writer can come first (a lost race there raises
        :class:`.ConcurrentUpdate`: a bug)."""
        repository = self._repository
        has_events = bool(game.new_events)
        if self._in_transaction:
            if not repository.save(game):
                raise ConcurrentUpdate(f"game {game.id} changed under its lock")
            if has_events:
                self._changed.append(game.id)
            return True
        one_statement = game.is_stored and repository.saves_in_one_statement
        with self._db.begin(repository.connection, write=True, one_statement=one_statement):
            saved = repository.save(game)
        if saved and has_events:
            self._publish(game.id)
        return saved

    def create(self, game: StoredGame) -> bool:
        """Insert a new game unless a game of its id is already stored (False, nothing written):
        for a game whose id more than one request may compute (a rematch's), where the first
        insert wins and the others read the game it stored. One write transaction."""
        has_events = bool(game.new_events)
        with self._transaction(write=True):
            created = self._repository.insert_if_absent(game)
            if created and has_events:
                self._changed.append(game.id)
        return created

    @contextmanager
    def locked(self, game_id: str) -> Iterator[StoredGame | None]:
        """The game, locked against every other writer until the block ends; a save inside commits
        with the block, and an exception rolls everything back."""
        with self._transaction(write=True):
            yield self._repository.get(game_id, lock=True)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """A read transaction: the loads and lists inside see one state of the database."""
        with self._transaction(write=False):
            yield

    def actions(self, game_id: str, *, after: int, limit: int) -> list[StoredAction]:
        """Up to ``limit`` entries of the action log numbered after ``after``, oldest first."""
        return self._repository.list_actions(game_id, after=after, limit=limit)

    def tricks(self, game_id: str, *, after: int, limit: int) -> list[StoredTrick]:
        """Up to ``limit`` completed tricks numbered after ``after``, oldest first."""
        return self._repository.list_tricks(game_id, after=after, limit=limit)

    def new_events(self, after: Mapping[str, int], *, limit: int) -> dict[str, list[StoredEvent]]:
        """Several games' events at once, each game's numbered after ``after[game_id]``, oldest
        first, at most ``limit`` of each (a game missing from the answer has none). One round trip
        (on SQLite, one statement per 64 games)."""
        new: dict[str, list[StoredEvent]] = {}
        with self._db.begin(self._repository.connection, write=False, one_statement=True):
            rows = self._repository.list_new_events(after, limit=limit)
        for game_id, event in rows:
            new.setdefault(game_id, []).append(event)
        for events in new.values():  # the statement promises no order of its rows: oldest first here
            events.sort(key=lambda event: event.id)
        return new

    def heads(self, game_ids: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        """Each stored game's last event id and turn deadline (None: nothing is due), one statement."""
        with self._db.begin(self._repository.connection, write=False, one_statement=True):
            return self._repository.heads(game_ids)

    def games(self, *, status: str | None, before_id: str | None, limit: int) -> list[StoredGame]:
        """Up to ``limit`` games newest first, with ids before ``before_id``, of one ``status`` if given."""
        return self._repository.list_games(status=status, before_id=before_id, limit=limit)

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[None]:
        with self._db.begin(self._repository.connection, write=write):
            self._in_transaction = True
            try:
                yield
            finally:
                self._in_transaction = False
        changed, self._changed = self._changed, []
        for game_id in changed:  # committed: now others may read the events
            self._publish(game_id)

    def _publish(self, game_id: str) -> None:
        """Tell the listeners once the change is committed: now, or after the commit of the
        transaction this thread holds (:meth:`.Database.hold`)."""
        self._db.after_commit(lambda: self._announce(game_id))

    def _announce(self, game_id: str) -> None:
        """Tell the listeners. The change is already committed: a failure here is logged, not
        raised (streams also re-read every watched game now and then)."""
        try:
            self._notifications.publish(game_id, self._driver())
        except Exception as error:
            log.warning("could not announce a change of game %s: %s", game_id, type(error).__name__)

    def _driver(self) -> object:
        return driver_connection(self._repository.connection) if self._repository.is_postgres else None
