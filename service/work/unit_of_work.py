"""The unit of work: one use case's transaction, its ``Idempotency-Key`` and the signal it sends after commit.

A use case does all its loads and saves in the sessions of the unit of work it is handed
(:meth:`UnitOfWork.session`), and the unit's owner says where it ends (:meth:`UnitOfWork.commit`,
else it rolls back when its block ends)::

    with service.unit_of_work(KeyedRequest(scope, key, fingerprint)) as uow:
        if uow.replay is None:
            result = service.play(game_id, token, card, if_match=None, uow=uow)
            uow.commit(response)  # the response a retry gets, committed with the play

Two kinds:

- **keyed** (a request with an ``Idempotency-Key``): the unit claims the key when it begins, in one
  write transaction that every session of the unit runs inside (a block that may fail alone in a
  savepoint); :meth:`~UnitOfWork.commit` stores the response kept for the retries in that same
  transaction and commits both. A retry finds :attr:`~UnitOfWork.replay` instead;
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
from .idempotency import IdempotencyKeys, KeyClaim, SavedResponse
from .signals import NoSignals, Signals

__all__ = ["KeyedRequest", "UnitOfWork", "given_or_own"]

log = logging.getLogger(__name__)


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
        #: The first response to this request's key, when the unit finds one: then nothing is to run.
        self.replay: SavedResponse | None = None

    def __enter__(self) -> UnitOfWork:
        if self._request is not None:
            request = self._request
            claimed = self._keys.claim(request.scope, request.key, request.fingerprint, self.record)
            if isinstance(claimed, KeyClaim):
                self._claim = claimed
                self._session = claimed.session
                self._resources.callback(self._keys.close, claimed)
            else:
                self.replay = claimed
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        try:
            if self._claim is None and self._session is not None:
                self._signal()  # a plain unit's writes committed one by one
        finally:
            self._resources.close()  # a keyed unit not committed rolls back here
        if error is None and (self._succeeded or (self._claim is None and self.replay is None)):
            for callback in self._after_commit:
                try:
                    callback()
                except Exception:  # the unit's own work has committed: its answer stands
                    log.exception("a step after a commit failed")

    @property
    def keyed(self) -> bool:
        """Whether the unit holds an ``Idempotency-Key`` (and so one transaction for everything)."""
        return self._claim is not None

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
        """The unit's session: a keyed unit's in its write transaction, a plain unit's on the one
        connection it takes the first time."""
        if self.replay is not None:
            raise RuntimeError("a replayed request runs nothing")
        if self._session is None:
            self._session = self._resources.enter_context(self._store.session(self.record))
        yield self._session

    def commit(self, response: SavedResponse | None = None) -> None:
        """End the unit's work. A keyed unit stores ``response`` for the retries of its key and
        commits it with everything the use case wrote, then signals the changed games; raises
        :class:`.DatabaseUnavailable` if the commit fails (then nothing is written). A plain
        unit's writes are committed already: its changes are signalled when its block ends."""
        if self._committed:
            raise RuntimeError("this unit of work has committed")
        self._committed = True
        if self._claim is None:
            return
        if response is None:
            raise ValueError("a keyed unit of work commits with the response its retries get")
        self._keys.complete(self._claim, response)
        self._succeeded = True
        self._signal()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the unit's writes have committed and the unit has ended (not after
        a rollback, nor for a replay). A failure there is logged: the unit's answer stands."""
        self._after_commit.append(callback)

    def _signal(self) -> None:
        """Tell the other processes which feeds changed. Their change is already committed: a failure
        here is logged, not raised (streams also read every followed feed again now and then)."""
        if not self._changed or self._session is None:
            return
        connection = self._session.driver()
        for feed_id in self._changed:
            try:
                self._signals.signal(feed_id, connection)
            except Exception as error:
                log.warning("could not signal a change of feed %s: %s", feed_id, type(error).__name__)

    def rollback(self) -> None:
        """Undo what a keyed unit wrote (its retry runs afresh). A plain unit's writes are committed
        one by one as they happen: there is nothing to undo."""
        if self._claim is not None and not self._committed:
            self._committed = True
            self._keys.release(self._claim)


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
