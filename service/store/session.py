"""The store as the use cases see it: load, save, lock and list games, with transactions its own business.

A :class:`StoreSession` holds one connection for one request's statements. How many statements a
load or a save takes, and whether it needs a transaction, is decided here, by database:

- a load is one SELECT, atomic alone (PostgreSQL runs it in autocommit, SQLite without BEGIN);
- a save of a stored game is one statement on PostgreSQL, and on SQLite a short write
  transaction holding the write lock (queued for: see :class:`.db.Database`);
- inside :meth:`StoreSession.locked` or :meth:`StoreSession.reading` every statement joins the
  block's one transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .db import Database
from .repository import ConcurrentUpdate, GameRepository
from .stored import StoredAction, StoredGame, StoredTrick

__all__ = ["GameStore", "StoreSession"]


class GameStore:
    """Games in one database. Holds no game between calls: any number of processes share it."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @contextmanager
    def session(self) -> Iterator[StoreSession]:
        """One connection for a request's loads and saves (on PostgreSQL, one pooled checkout)."""
        with self.db.connect() as connection:
            yield StoreSession(self.db, GameRepository(connection))

    def ping(self) -> None:
        """Raise :class:`.DatabaseUnavailable` unless the database answers."""
        self.db.ping()


class StoreSession:
    """Loads and saves on one connection; see the module's docstring for the transactions they take."""

    def __init__(self, db: Database, repository: GameRepository) -> None:
        self._db = db
        self._repository = repository
        self._in_transaction = False

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
        if self._in_transaction:
            if not repository.save(game):
                raise ConcurrentUpdate(f"game {game.id} changed under its lock")
            return True
        one_statement = game.is_stored and repository.saves_in_one_statement
        with self._db.begin(repository.connection, write=True, one_statement=one_statement):
            return repository.save(game)

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
