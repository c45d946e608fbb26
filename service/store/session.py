"""The store as the use cases see it: load, save, lock and list games, with transactions its own business.

A :class:`StoreSession` holds one connection for one request's statements. How many statements a
load or a save takes, and whether it needs a transaction, is decided here, by database:

- a load is one SELECT, atomic alone (PostgreSQL runs it in autocommit, SQLite without BEGIN);
- a save of a stored game is one statement on PostgreSQL, and on SQLite a short write
  transaction holding the write lock (queued for: see :class:`.db.Database`);
- inside :meth:`StoreSession.locked`, :meth:`StoreSession.player_locked` or
  :meth:`StoreSession.reading` every statement joins the block's one transaction.

A session inside a :class:`WriteTransaction` (a keyed unit of work's, begun on the session's own
connection by :meth:`StoreSession.begin_writing`) takes no transaction of its own: a block that may
fail alone runs in a savepoint, and nothing commits before the transaction. Its owner may hand the
session ``before_writing``, run once before its first write or block (or when it calls
:meth:`StoreSession.writing`): a keyed unit of work claims its key there, and begins the transaction,
so that its reads before hold no lock.

The store stores, and signals nothing: a session's owner (the use cases' unit of work) hands it
``stored``, called with the id of each game whose new events a write stored, once that write has
committed (inside a write transaction: once it is kept there, to commit with it). What the other
processes are told, and when, is the owner's (:mod:`service.work.unit_of_work`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from .challenges import count_challenges
from .db import Database, WriteTransaction
from .driver import driver_connection
from .due import DueWork
from .player_events import append_player_events, deliver_outbox, player_heads, read_player_events
from .players import PlayerRepository
from .push import PushDeliveries, PushSubscriptions
from .ratings import RatingStore
from .repository import ConcurrentUpdate, GameRepository
from .reviews import Reviews
from .stored import StoredAction, StoredEvent, StoredGame, StoredPlayer, StoredPlayerEvent, StoredTrick
from .tickets import Tickets
from .webhooks import WebhookDeliveries, Webhooks

__all__ = ["GameStore", "Stored", "StoreSession", "WriteTransaction"]

log = logging.getLogger(__name__)

#: Told the id of each game whose new events a session's write stored (see the module's docstring).
Stored = Callable[[str], None]


def _nobody(game_id: str) -> None:
    return None


class GameStore:
    """Games in one database. Holds no game between calls: any number of processes share it."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.reviews = Reviews(db)  # finished games' reviews, asked for by readers, made by the worker
        self.webhook_deliveries = WebhookDeliveries(db)  # the worker's due work (:mod:`.webhooks`)
        self.push_deliveries = PushDeliveries(db)  # and the push subscriptions' (:mod:`.push`)

    @contextmanager
    def session(
        self, stored: Stored | None = None, *, before_writing: Callable[[], None] | None = None
    ) -> Iterator[StoreSession]:
        """One connection (one pooled checkout) for a request's loads and saves; ``stored`` and
        ``before_writing``: see the module's docstring."""
        with self.db.connect() as connection:
            yield StoreSession(self.db, GameRepository(connection), stored=stored, before_writing=before_writing)

    @property
    def ratings(self) -> RatingStore:
        """The players' ratings in this database: the apply step's transactions and the reads."""
        return RatingStore(self.db)

    @property
    def due(self) -> DueWork:
        """The due games the worker makes the moves of, and the roles' liveness marks (:mod:`.due`)."""
        return DueWork(self.db)

    def deliver_outbox(self, *, limit: int) -> list[StoredPlayerEvent]:
        """:meth:`StoreSession.deliver_outbox` on a session of its own."""
        with self.session() as session:
            return session.deliver_outbox(limit=limit)

    def append_player_events(self, events: Sequence[StoredPlayerEvent]) -> list[StoredPlayerEvent]:
        """:meth:`StoreSession.append_player_events` on a session of its own."""
        with self.session() as session:
            return session.append_player_events(events)

    def ping(self) -> None:
        """Raise :class:`.DatabaseUnavailable` unless the database answers."""
        self.db.ping()


class StoreSession:
    """Loads and saves on one connection; see the module's docstring for the transactions they take."""

    def __init__(
        self,
        db: Database,
        repository: GameRepository,
        *,
        stored: Stored | None = None,
        before_writing: Callable[[], None] | None = None,
    ) -> None:
        """``stored``: told each game whose new events a write stored, once it has; ``before_writing``:
        run once, before the session's first write or block (module docstring)."""
        self._db = db
        self._repository = repository
        self._players = PlayerRepository(repository.connection)
        self._inside = False  # in a write transaction its owner ends (begin_writing)
        self._stored = stored if stored is not None else _nobody
        self._before_writing = before_writing
        self._in_block = False  # inside locked() or reading(): every statement joins the block
        self._pending: list[str] = []  # games whose new events commit with the block

    def load(self, game_id: str, *, key_hash: str | None = None) -> StoredGame | None:
        """The game and its seats, as they are now (one statement, no lock); with ``key_hash`` (a
        player's key's), the key's player as the game's ``caller``, in the same statement."""
        if self._in_block:
            return self._repository.get(game_id, key_hash=key_hash)
        with self._statement(write=False, one_statement=True):
            return self._repository.get(game_id, key_hash=key_hash)

    def save(self, game: StoredGame) -> bool:
        """Insert a new game, or write a loaded one back with its queued actions and tricks, at once.

        False, with nothing written, when the stored game is no longer at the version it was loaded
        at (another request saved first): the caller loads it again. Inside :meth:`locked` the save
        joins that block, where no other writer can come first (a lost race there raises
        :class:`.ConcurrentUpdate`: a bug)."""
        repository = self._repository
        has_events = bool(game.new_events)
        if self._in_block:
            if not repository.save(game):
                raise ConcurrentUpdate(f"game {game.id} changed under its lock")
            if has_events:
                self._pending.append(game.id)
            return True
        one_statement = game.is_stored and repository.saves_in_one_statement
        with self._statement(write=True, one_statement=one_statement):
            saved = repository.save(game)
        if saved and has_events:
            self._stored(game.id)
        return saved

    def create(self, game: StoredGame) -> bool:
        """Insert a new game unless a game of its id is stored (False, nothing written): for an id several
        requests may compute (a rematch's), the first insert wins. One write transaction."""
        has_events = bool(game.new_events)
        with self._block(write=True):
            created = self._repository.insert_if_absent(game)
            if created and has_events:
                self._pending.append(game.id)
        return created

    @contextmanager
    def locked(self, game_id: str, *, key_hash: str | None = None) -> Iterator[StoredGame | None]:
        """The game, locked against every other writer until the block ends; a save inside commits
        with the block, and an exception rolls everything back. ``key_hash``: as for :meth:`load`."""
        with self._block(write=True):
            yield self._repository.get(game_id, lock=True, key_hash=key_hash)

    @contextmanager
    def player_locked(self, player_id: str) -> Iterator[None]:
        """A write block in which the player's row is locked against every other such block (on SQLite
        the write lock holds every other writer): what the block counts of the player's, and then
        writes, no request can change in between. A save inside commits with the block."""
        with self._block(write=True):
            self._players.lock(player_id)
            yield

    @contextmanager
    def reading(self) -> Iterator[None]:
        """A read transaction: the loads and lists inside see one state of the database."""
        with self._block(write=False):
            yield

    def actions(self, game_id: str, *, after: int, limit: int) -> list[StoredAction]:
        """Up to ``limit`` entries of the action log numbered after ``after``, oldest first."""
        return self._repository.list_actions(game_id, after=after, limit=limit)

    def tricks(self, game_id: str, *, after: int, limit: int) -> list[StoredTrick]:
        """Up to ``limit`` completed tricks numbered after ``after``, oldest first."""
        return self._repository.list_tricks(game_id, after=after, limit=limit)

    def new_events(self, after: Mapping[str, int], *, limit: int) -> dict[str, list[StoredEvent]]:
        """Several games' events at once, each game's numbered after ``after[game_id]``, oldest first, at
        most ``limit`` of each (a game missing has none). One round trip (SQLite: a statement per 64 games)."""
        new: dict[str, list[StoredEvent]] = {}
        with self._statement(write=False, one_statement=True):
            rows = self._repository.list_new_events(after, limit=limit)
        for game_id, event in rows:
            new.setdefault(game_id, []).append(event)
        for events in new.values():  # the statement promises no order of its rows: oldest first here
            events.sort(key=lambda event: event.id)
        return new

    def version(self, game_id: str) -> tuple[int, str] | None:
        """The game's version and status (None: no such game), one short statement."""
        with self._statement(write=False, one_statement=True):
            return self._repository.version(game_id)

    def heads(self, game_ids: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        """Each stored game's last event id and turn deadline (None: nothing is due), one statement."""
        with self._statement(write=False, one_statement=True):
            return self._repository.heads(game_ids)

    def new_player_events(self, after: Mapping[str, int], *, limit: int) -> dict[str, list[StoredPlayerEvent]]:
        """Several players' events, each one's numbered after ``after[player_id]``, oldest first, at most
        ``limit`` of each (a player missing has none)."""
        with self._statement(write=False, one_statement=len(after) <= 1):
            return read_player_events(self._repository.connection, after, limit=limit)

    def player_heads(self, player_ids: Collection[str]) -> dict[str, int]:
        """The id of each player's last event (missing: none yet), one statement."""
        with self._statement(write=False, one_statement=True):
            return player_heads(self._repository.connection, player_ids)

    def games(
        self, *, status: str | None, before_id: str | None, limit: int, player_id: str | None = None
    ) -> list[StoredGame]:
        """Up to ``limit`` games newest first, ids before ``before_id``, of ``status``, seating ``player_id``."""
        return self._repository.list_games(status=status, before_id=before_id, limit=limit, player_id=player_id)

    def add_player(self, player: StoredPlayer) -> None:
        """Insert a new player (one statement)."""
        with self._statement(write=True, one_statement=True):
            self._players.insert(player)

    def player(self, player_id: str) -> StoredPlayer | None:
        with self._statement(write=False, one_statement=True):
            return self._players.get(player_id)

    def player_by_key(self, key_hash: str) -> StoredPlayer | None:
        """The player whose key hashes to ``key_hash``, as stored now (nothing is cached)."""
        with self._statement(write=False, one_statement=True):
            return self._players.by_key(key_hash)

    def known_keys(self, key_hashes: Collection[str]) -> set[str]:
        """Those of ``key_hashes`` some player holds now, one statement (a stream of a replaced key ends)."""
        if not key_hashes:
            return set()
        with self._statement(write=False, one_statement=True):
            return self._players.known_keys(key_hashes)

    def replace_player_key(self, player_id: str, old_hash: str, new_hash: str) -> bool:
        """Replace the player's key unless it is no longer ``old_hash`` (False: another request was first)."""
        with self._statement(write=True, one_statement=True):
            return self._players.replace_key(player_id, old_hash, new_hash)

    def change_player(
        self,
        player_id: str,
        values: dict[str, Any],
        *,
        key_hash: str | None = None,
        audit: dict[str, Any] | None = None,
    ) -> bool:
        """Write ``values`` on a person's row (while their key is ``key_hash``, when given) and, with
        ``audit``, the operator's audit row of it, in one transaction; whether the player was written
        (False: no such person, or their key changed)."""
        with self._block(write=True):
            changed = self._players.update(player_id, values, key_hash=key_hash)
            if changed and audit is not None:
                self._players.add_admin_action(audit)
        return changed

    def admin_actions(self, player_id: str) -> list[dict[str, Any]]:
        """The operators' actions on the player, oldest first (the audit of coins-admin)."""
        with self._statement(write=False, one_statement=True):
            return self._players.admin_actions(player_id)

    def legacy_names(self, *, limit: int) -> list[StoredPlayer]:
        """Players whose names would be refused now (marked when the rule came), oldest first."""
        with self._statement(write=False, one_statement=True):
            return self._players.legacy_names(limit)

    def player_record(self, player_id: str) -> tuple[int, int]:
        """The finished games the player sat in, and the ones they won (one statement)."""
        with self._statement(write=False, one_statement=True):
            return self._players.record(player_id)

    def challenges_made(self, challenger: str, target: str, since: datetime) -> tuple[int, datetime | None]:
        """The challenges ``challenger`` made to ``target`` since ``since``, and when the first of
        them was made (:mod:`.challenges`); inside a block, in its transaction."""
        if self._in_block:
            return count_challenges(self._repository.connection, challenger, target, since)
        with self._statement(write=False, one_statement=True):
            return count_challenges(self._repository.connection, challenger, target, since)

    def deliver_outbox(self, *, limit: int) -> list[StoredPlayerEvent]:
        """Move up to ``limit`` of what games' changes owe players' feeds from the outbox to the feeds,
        once (:func:`.player_events.deliver_outbox`), in transactions of their own; the events numbered."""
        if self._inside or self._before_writing is not None:
            raise RuntimeError("the outbox is delivered in transactions of its own")
        return deliver_outbox(self._db, self._own_connection("the outbox"), limit=limit)

    def append_player_events(self, events: Sequence[StoredPlayerEvent]) -> list[StoredPlayerEvent]:
        """Append players' events to their feeds, in short transactions of their own
        (:mod:`.player_events`); the events numbered."""
        if self._inside or self._before_writing is not None:
            raise RuntimeError("players' events are appended in transactions of their own")
        return append_player_events(self._db, self._own_connection("players' feeds"), events)

    def driver(self) -> object:
        """The session's driver connection, for a signal sent on it once its writes committed
        (PostgreSQL's ``NOTIFY``); None on SQLite."""
        return driver_connection(self._repository.connection) if self._repository.is_postgres else None

    @property
    def webhooks(self) -> Webhooks:
        """The players' webhooks, on this session's connection (:mod:`.webhooks`: no game's)."""
        connection = self._own_connection("webhooks")
        return Webhooks(self._db, connection, inside=self._inside)

    @property
    def push_subscriptions(self) -> PushSubscriptions:
        """The players' push subscriptions, as their webhooks (:mod:`.push`)."""
        connection = self._own_connection("push subscriptions")
        return PushSubscriptions(self._db, connection, inside=self._inside)

    @property
    def tickets(self) -> Tickets:
        """The quick-play tickets, on this session's connection (:mod:`.tickets`: no game's)."""
        connection = self._own_connection("tickets")
        return Tickets(self._db, connection, inside=self._inside)

    def begin_writing(self) -> WriteTransaction:
        """Begin a write transaction on the session's connection, which every later statement of the
        session joins (a block that may fail alone in a savepoint) and only its owner ends. On
        SQLite it holds the write lock until it ends."""
        if self._inside or self._in_block:
            raise RuntimeError("a write transaction begins outside any other")
        transaction = WriteTransaction(self._db, self._repository.connection)
        self._inside = True
        return transaction

    def writing(self) -> None:
        """Run now what was to run before the session's first write, if it has not run."""
        before, self._before_writing = self._before_writing, None
        if before is not None and not self._inside:
            before()

    def _own_connection(self, kind: str) -> Connection:
        """The connection, for what changes in transactions of its own, never joining a game's block
        (once a keyed unit's claim has run: whether the session is inside a transaction is known after)."""
        if self._in_block:
            raise RuntimeError(f"{kind} change in transactions of their own, never in a game's")
        self.writing()
        return self._repository.connection

    def _statement(self, *, write: bool, one_statement: bool) -> AbstractContextManager[object]:
        """What one statement (or one save) runs in: a transaction of its own (none at all when
        atomic alone), or, inside a write transaction, a savepoint for a write that takes several."""
        if write:
            self.writing()
        connection = self._repository.connection
        if not self._inside:
            return self._db.begin(connection, write=write, one_statement=one_statement)
        return self._db.within(connection, savepoint=write and not one_statement)

    @contextmanager
    def _block(self, *, write: bool) -> Iterator[None]:
        """A transaction of its own for the block, or inside a write transaction a savepoint (a
        write's) or nothing (a read's); then ``stored`` is told the games it stored."""
        self.writing()
        connection = self._repository.connection
        with ExitStack() as stack:
            if not self._inside:
                stack.enter_context(self._db.begin(connection, write=write))
            else:
                stack.enter_context(self._db.within(connection, savepoint=write))
            self._in_block = True
            try:
                yield
            finally:
                self._in_block = False
                pending, self._pending = self._pending, []
        for game_id in pending:  # reached only once the block has committed (or been kept)
            self._stored(game_id)
