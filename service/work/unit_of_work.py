"""The unit of work: one use case's transaction, its ``Idempotency-Key`` and the signal it sends after commit.

A use case does all its loads and saves in the sessions of the unit of work it is handed
(:meth:`UnitOfWork.session`), and the unit's owner says where it ends (:meth:`UnitOfWork.commit`,
else it rolls back when its block ends)::

    with service.unit_of_work(KeyedRequest(scope, key, fingerprint)) as uow:
        try:
            result = service.play(game_id, token, card, if_match=None, uow=uow)
            first = uow.commit(response)  # the response a retry gets, committed with the play
        except Replayed as replayed:
            first = replayed.response  # the key's first request finished first: its answer

Two kinds:

- **keyed** (a request with an ``Idempotency-Key``): the unit reads as a plain one, and claims the
  key before its session's first write (:meth:`.StoreSession.writing`), or at its commit if it wrote
  nothing, in one write transaction that every later statement of the unit runs inside (a block
  that may fail alone in a savepoint); :meth:`~UnitOfWork.commit` stores the response kept for the
  retries in that same transaction and commits both. So the write lock SQLite's claim takes is held
  for the writes and the response alone, not for the reads and the rules before them. A retry
  finds the first response at the claim: :class:`.Replayed` is raised there (or returned by
  :meth:`~UnitOfWork.commit`), and nothing of the retry is written;
- **plain**: each load and save of a session takes the short transaction of its own the store
  decides (:mod:`service.store.session`), committed as it ends; the unit holds one connection,
  taken at its first session, not before.

What a change owes others is written with it, in its transaction: the players' events in the game's
outbox, a rated game's result pending. The worker role delivers and applies them (a process that
dies after the commit loses nothing). After the commit the unit only signals which feeds changed
(:attr:`UnitOfWork.changed`: the games whose new events its session stored, as the store tells it,
and the feeds a use case names with :meth:`UnitOfWork.record`) through the :class:`.Signals` it was
handed: a keyed unit after its commit (never if it rolls back), a plain one when it ends, as each
of its writes has then committed. The signal is best effort: the streams and the worker wake at
once on it, and without it find the change at their next look. What a use case asks to run once its writes have committed
(:meth:`UnitOfWork.after_commit`: the quick-play queue's matching after a ticket is queued) runs
after that, in transactions of its own; never after a rollback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from types import TracebackType

from ..store import GameStore, StoreSession
from .idempotency import IdempotencyKeys, KeyClaim, Replayed, SavedResponse
from .signals import NoSignals, Signals

__all__ = ["KeyedRequest", "UnitOfWork", "given_or_own"]

log = logging.getLogger(__name__)
LOGGED_FEEDS = 5  # a signal that failed names this many of its feeds in its log line, at most


@dataclass(frozen=True, slots=True)
class KeyedRequest:
    """A request with an ``Idempotency-Key``: whose key (``scope``), the key, and a fingerprint of
    the request (a retry must bring the same)."""

    scope: str
    key: str
    fingerprint: str


class UnitOfWork:
    """One use case's work against the store; enter it (``with``) before handing it on."""

    def __init__(
        self,
        store: GameStore,
        keys: IdempotencyKeys,
        request: KeyedRequest | None = None,
        signals: Signals | None = None,
    ) -> None:
        self._store = store
        self._keys = keys
        self._request = request
        self._signals = signals if signals is not None else NoSignals()
        self._changed: dict[str, None] = {}  # the feeds changed, in order, each once
        self._claim: KeyClaim | None = None
        self._session: StoreSession | None = None
        self._resources = ExitStack()
        self._committed = False
        self._succeeded = False  # committed (a keyed unit), or ended without an error (a plain one)
        self._after_commit: list[Callable[[], None]] = []

    def __enter__(self) -> UnitOfWork:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        try:
            if not self.keyed and self._session is not None:
                self._signal()  # a plain unit's writes committed one by one
        finally:
            self._resources.close()  # a keyed unit not committed rolls back here
        if error is None and (self._succeeded or not self.keyed):
            for callback in self._after_commit:
                try:
                    callback()
                except Exception:  # the unit's own work has committed: its answer stands
                    log.exception("a step after a commit failed")

    @property
    def keyed(self) -> bool:
        """Whether the unit has an ``Idempotency-Key`` (and so one transaction for every write)."""
        return self._request is not None

    @property
    def claimed(self) -> bool:
        """Whether a keyed unit has claimed its key (it has written, or committed)."""
        return self._claim is not None

    def first_response(self) -> SavedResponse | None:
        """For a keyed unit that has not claimed its key: the response its first request left, if
        that request has finished (a request refused before it wrote, as the retry of a change
        that made it invalid, is answered with it); None otherwise. Raises :class:`.KeyReused` if
        the key was another request's."""
        if self._request is None or self._claim is not None:
            return None
        request = self._request
        return self._keys.first_response(request.scope, request.key, request.fingerprint)

    @property
    def changed(self) -> tuple[str, ...]:
        """The feeds changed (games with new events, players' feeds named), to signal once committed."""
        return tuple(self._changed)

    def record(self, feed_id: str) -> None:
        """Signal ``feed_id`` (a game's id, or :func:`.player_feed_id`) once the unit's writes have
        committed: the store tells the games whose events it stored; a use case names the rest (a
        player's feed whose key changed, so that the streams it opened end at once)."""
        self._changed[feed_id] = None

    @contextmanager
    def session(self) -> Iterator[StoreSession]:
        """The unit's session, on the one connection the unit takes the first time; a keyed unit's
        claims the key before its first write, in a write transaction every later statement joins."""
        if self._session is None:
            claiming = self._claim_key if self.keyed else None
            self._session = self._resources.enter_context(self._store.session(self.record, before_writing=claiming))
        yield self._session

    def commit(self, response: SavedResponse | None = None) -> SavedResponse | None:
        """End the unit's work. A keyed unit stores ``response`` for the retries of its key and
        commits it with everything the use case wrote, then signals the changed games; raises
        :class:`.DatabaseUnavailable` if the commit fails (then nothing is written). If it had not
        claimed its key yet and finds that another request with it finished first, it writes
        nothing and returns that request's response: the answer. A plain unit's writes are
        committed already: its changes are signalled when its block ends."""
        if self._committed:
            raise RuntimeError("this unit of work has committed")
        self._committed = True
        if not self.keyed:
            return None
        if response is None:
            raise ValueError("a keyed unit of work commits with the response its retries get")
        if self._claim is None:
            try:
                with self.session() as session:
                    session.writing()  # nothing written yet: the key is claimed for the response alone
            except Replayed as replayed:
                return replayed.response
        assert self._claim is not None
        self._keys.complete(self._claim, response)
        self._succeeded = True
        self._signal()
        return None

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the unit's writes have committed and the unit has ended (not after
        a rollback, nor for a replay). A failure there is logged: the unit's answer stands."""
        self._after_commit.append(callback)

    def _signal(self) -> None:
        """Tell the other processes which feeds changed. Their change is already committed: a failure
        here is logged, not raised (streams also read every followed feed again now and then)."""
        if not self._changed or self._session is None:
            return
        feed_ids = tuple(self._changed)
        try:
            self._signals.signal(feed_ids, self._session.driver())
        except Exception as error:
            named = ", ".join(feed_ids[:LOGGED_FEEDS]) + (", …" if len(feed_ids) > LOGGED_FEEDS else "")
            log.warning("could not signal a change of %d feeds (%s): %s", len(feed_ids), named, type(error).__name__)

    def rollback(self) -> None:
        """Undo what a keyed unit wrote (its retry runs afresh). A plain unit's writes are committed
        one by one as they happen: there is nothing to undo."""
        if self._claim is not None and not self._committed:
            self._committed = True
            self._keys.release(self._claim)

    def _claim_key(self) -> None:
        """Claim the unit's key on its session (before the session's first write). Raises
        :class:`.Replayed` when another request with it finished first, and :class:`.KeyInUse` or
        :class:`.KeyReused` as :meth:`.IdempotencyKeys.claim` does."""
        request, session = self._request, self._session
        assert request is not None and session is not None
        claimed = self._keys.claim(request.scope, request.key, request.fingerprint, session)
        if not isinstance(claimed, KeyClaim):
            raise Replayed(claimed)
        self._claim = claimed
        self._resources.callback(self._keys.close, claimed)


@contextmanager
def given_or_own(uow: UnitOfWork | None, unit_of_work: Callable[[], UnitOfWork]) -> Iterator[UnitOfWork]:
    """The unit of work a call was handed, else one of its own (from ``unit_of_work``), committed
    when the call returns."""
    if uow is not None:
        yield uow
        return
    with unit_of_work() as own:
        yield own
        own.commit()
