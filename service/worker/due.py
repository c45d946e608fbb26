"""The worker's loop: the moves that time makes due, made whether or not anybody reads the game.

Each pass reads the due games (:meth:`.DueWork.due_games`: a turn deadline passed, soonest first;
a game of bots alone only while the real-time role marks it followed) and makes each one's moves
with :meth:`.GameService.make_due_moves`, in the game's own transaction under its lock: the
server's move due (a bot's, an auto-deal: no request makes one), the next then due a pace later,
or a stand-in's (which a change that finds it due makes too; a read never moves). The lock and the deadline read again
under it are what make a move happen once: two workers (or a worker and a request) that find the
same game due make its moves once, the second finds nothing due. A worker killed at any instant
loses nothing: what it had not committed is still due, by the deadline stored with the game.

Each pass then asks in one statement which of its other steps may find work (:meth:`.DueWork.owed`:
most passes find none, and skip their reads), and, in this order of priority, delivers what the
games' changes owe their players' feeds (:meth:`.GameStore.deliver_outbox`: the outbox each change
wrote in its own transaction), applies the rated results that are pending
(:meth:`.GameService.apply_pending_results`, which owes their players ``game_result`` in the game's
outbox, written with the ratings, and delivered at once when any was pending), runs quick play's
matching wave when one is due
(:meth:`.QuickPlay.match_due`), and sends what players' webhooks are owed
(:meth:`.Webhooks.deliver_due`; once :meth:`Worker.run` runs, in a thread of their own that a
pass wakes when it delivered events, so that a slow receiver never holds up a move). None of them waits for a reader or rides on a request's thread.
Last, at the lowest priority, and only when the pass did not find a full batch of due games or of
events to deliver, it judges plays of the reviews readers asked for
(:meth:`.GameService.review_due`), for at most ``review_seconds`` of CPU: the next pass's moves
wait that long at most.

Between passes it waits ``poll`` seconds, or less: until the next game falls due
(:meth:`.DueWork.next_due`: a bot's move a pace away is made on time, not at the next poll),
:meth:`Worker.wake` (called when a change is signalled, see :mod:`.main`) starts the next pass at
once, or :data:`SIGNAL_GAP_SECONDS` after the last one began if that is later (under load one pass
serves the changes of a gap), and a pass that found a full batch is followed by another. When the database does not answer, each of its threads (the passes',
the webhooks' deliveries') logs so once, tries again after ``poll`` seconds, then after twice as long, up to
:data:`MAX_BACKOFF_SECONDS`, and logs once that the database answers again. Every :data:`BEAT_SECONDS` it leaves a sign of life for ``/readyz`` (:meth:`.DueWork.beat`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from ..games import GameService
from ..store import DatabaseUnavailable, DueWork, player_feed_id
from ..store.migrate import SchemaNotMigrated
from ..work import ServiceError
from .retention import Retention

__all__ = ["BATCH", "BEAT_SECONDS", "MAX_BACKOFF_SECONDS", "REVIEW_SECONDS", "ROLE", "Outage", "Worker"]

log = logging.getLogger(__name__)

ROLE = "worker"
BATCH = 50  # due games a pass reads at most
DELIVERIES = 200  # outbox rows a pass delivers at most
DELIVERY_PATIENCE = 0.25  # seconds the deliveries' thread waits for its tries before it claims more
REVIEW_SECONDS = 1.0  # CPU a pass spends on reviews at most (a judged play takes up to some 0.35 s)
BEAT_SECONDS = 5.0
# A signalled change starts a pass at once, but no sooner than this after the last one began: under
# load one pass serves the changes of a gap (each pass is a handful of statements), and what they
# owe follows them this much later at most.
SIGNAL_GAP_SECONDS = 0.02
# The longest pause between two tries while the database does not answer: once it is back, the
# owed moves resume within this long (plus one try), inside the 2 s in which each owed move is to be
# made once the roles are back. A try is one connection attempt per thread (refused at once, or
# given up after the 3 s connect timeout): a second apart it costs a database nothing.
MAX_BACKOFF_SECONDS = 1.0


class Outage:
    """One thread's view of the database's outages: logs one WARNING as one begins and one INFO as
    it ends (not every try), and the pause before the next try: ``first`` seconds, then twice as
    long each time, up to :data:`MAX_BACKOFF_SECONDS`."""

    def __init__(self, what: str, first: float) -> None:
        self.what = what  # what waits, e.g. "the due moves"
        self.first = first
        self.backoff = 0.0  # 0 while the database answers

    def failed(self, error: Exception) -> float:
        """The database did not answer: seconds to wait before the next try."""
        if not self.backoff:
            log.warning(
                "the database does not answer (%s): %s wait, tried again every %.1f s at most",
                type(error).__name__,
                self.what,
                MAX_BACKOFF_SECONDS,
            )
        self.backoff = min(max(2 * self.backoff, self.first), MAX_BACKOFF_SECONDS)
        return self.backoff

    def answered(self) -> None:
        """A try reached the database: an outage, if any, is over."""
        if self.backoff:
            log.info("the database answers again: %s resume", self.what)
            self.backoff = 0.0


class Webhooks(Protocol):
    """What the worker needs of the webhooks' deliveries (:class:`service.webhooks.Deliverer`)."""

    def deliver_due(self, now: datetime, patience: float | None = None) -> int: ...


class QuickPlay(Protocol):
    """What the worker needs of quick play (:class:`service.quickplay.QueueService`)."""

    def match_due(self, now: datetime | None = None) -> list[Any]: ...


class Worker:
    """One worker process's loop over the due games of one database."""

    def __init__(
        self,
        games: GameService,
        due: DueWork,
        clock: Callable[[], datetime],
        *,
        poll: float,
        queue: QuickPlay | None = None,
        instance: str | None = None,
        review_seconds: float = REVIEW_SECONDS,
        webhooks: Webhooks | None = None,
        retention: Retention | None = None,
        schema: Callable[[], None] | None = None,
        listening: Callable[[], bool] | None = None,
        signal_gap: float = SIGNAL_GAP_SECONDS,
    ) -> None:
        """``queue``: quick play, whose matching waves each pass runs (none: not run here);
        ``review_seconds``: the CPU a pass spends on reviews at most (0: none); ``webhooks``: the
        deliveries to webhooks, sent by each pass after the results (or, once :meth:`run` runs, by a
        thread of their own beside the passes: a slow receiver never holds up a move); ``retention``:
        the purge :meth:`run` runs on its interval (none: not here); ``schema``: called before each
        pass of :meth:`run`, raises :class:`.SchemaNotMigrated` when the database was not migrated
        (which ends :meth:`run`; none: not checked); ``listening``: whether the process hears the
        changes of games now, which each beat records (none: it does); ``signal_gap``: seconds
        from a pass's start before a signalled change starts the next."""
        self._games = games
        self._webhooks = webhooks
        self._webhooks_beside = False  # True once a thread of their own sends them (see run)
        self._webhooks_woken = threading.Event()
        self._queue = queue
        self._retention = retention
        self._schema = schema
        self._listening = listening or (lambda: True)
        self._due = due
        self._clock = clock
        self.poll = poll
        self.review_seconds = review_seconds
        self.instance = instance or f"{socket.gethostname()}:{os.getpid()}"
        self._woken = threading.Event()
        self.signal_gap = signal_gap

    def run_due(self, now: datetime) -> int:
        """One pass at ``now``: make the moves of the games due then, deliver what changes owe the
        players' feeds, apply the results pending (and deliver what they owe), run a matching wave that is due; then, unless the
        moves or the deliveries filled a batch, judge plays of the reviews asked for. How many games
        had moves, plus the events delivered (a full batch of either: another pass follows at once)."""
        made = self._moves(now)
        owed = self._due.owed()  # after the moves: what they owe the feeds is in the outbox now
        delivered = self._deliver_outbox() if owed.feeds else 0
        if owed.results and self._games.apply_pending_results():
            delivered += self._deliver_outbox()  # the game_result events the results owe
        if self._queue is not None and owed.tickets:
            self._queue.match_due(now)
        if self._webhooks is not None:
            if self._webhooks_beside:
                if delivered:  # the events delivered queued what webhooks are owed (a retry: the thread's own pause)
                    self._webhooks_woken.set()
            else:
                self._webhooks.deliver_due(now)
        if owed.reviews and made < BATCH and delivered < DELIVERIES and self.review_seconds > 0:
            self._reviews()
        return made + delivered

    def wake(self) -> None:
        """Start the next pass now rather than after the pause (a change was signalled)."""
        self._woken.set()

    def _deliver_outbox(self) -> int:
        """Deliver a batch of the outbox to the players' feeds, and signal each feed that grew."""
        with self._games.unit_of_work() as uow, uow.session() as session:
            delivered = session.deliver_outbox(limit=DELIVERIES)
            for event in delivered:
                uow.record(player_feed_id(event.player_id))
        return len(delivered)

    def _reviews(self) -> None:
        try:
            self._games.review_due(self.review_seconds)
        except DatabaseUnavailable:
            raise
        except Exception:  # a bug in a review: logged, and the moves of the next pass are not held up
            log.exception("the reviews of this pass failed")

    def _moves(self, now: datetime) -> int:
        made = 0
        for game_id in self._due.due_games(now, BATCH):
            try:
                made += self._games.make_due_moves(game_id)
            except DatabaseUnavailable:
                raise
            except ServiceError as error:  # the game went (purged) between the read and its moves
                log.info("game %s was not there to move: %s", game_id, type(error).__name__)
            except Exception:  # a bug in one game's moves: logged, and the other games move on
                log.exception("the due moves of game %s failed", game_id)
        return made

    def beat(self) -> None:
        """This process is alive, and hears the changes of games or not (for ``/readyz``)."""
        self._due.beat(ROLE, self.instance, self._clock(), listening=self._listening())

    def run(self, stop: threading.Event) -> None:
        """Pass after pass until ``stop`` is set, beating every :data:`BEAT_SECONDS`; the webhooks'
        deliveries in a thread of their own, started once the schema was found migrated (at the
        first pass without a ``schema`` check). Raises :class:`.SchemaNotMigrated` when the database
        answers but was not migrated."""
        outage = Outage("the due moves", self.poll)
        beaten = float("-inf")
        while not stop.is_set():
            try:
                if self._schema is not None:
                    self._schema()
                if self._webhooks is not None and not self._webhooks_beside:
                    self._webhooks_beside = True
                    threading.Thread(
                        target=self._deliver, args=(self._webhooks, stop), name="webhooks", daemon=True
                    ).start()
                if time.monotonic() - beaten >= BEAT_SECONDS:
                    self.beat()
                    beaten = time.monotonic()
                self._woken.clear()
                started = time.monotonic()
                full = self.run_due(self._clock()) >= BATCH
                if self._retention is not None:
                    self._retention.run_if_due(self._clock())
                wait = 0.0 if full else self.pause()
            except DatabaseUnavailable as error:
                stop.wait(outage.failed(error))
                continue
            except SchemaNotMigrated:
                raise
            except Exception:  # a bug in a pass (a wave, the ratings' catch-up): logged, the next pass runs
                log.exception("a pass of the worker failed")
                stop.wait(self.poll)
                continue
            outage.answered()
            if wait > 0 and self._woken.wait(wait):  # stopping wakes it too (see .main)
                rest = started + self.signal_gap - time.monotonic()
                if rest > 0:  # a change was signalled within the gap: one pass serves the gap's changes
                    stop.wait(rest)

    def pause(self) -> float:
        """Seconds until the next pass: until the next game falls due, ``poll`` at most."""
        now = self._clock()
        due = self._due.next_due(now)
        if due is None:
            return self.poll
        return min(self.poll, max((due - now).total_seconds(), 0.0))

    def _deliver(self, webhooks: Webhooks, stop: threading.Event) -> None:
        """The webhooks' deliveries, round after round, until ``stop``: woken by each pass that
        delivered events to the feeds (which queued what webhooks are owed), else every pause (a
        retry falls due with no pass to say so). A round waits for its tries
        :data:`DELIVERY_PATIENCE` at most: a slower one keeps its sender, and a later round writes
        its outcome, so that one slow receiver holds up no other deliveries. While the database does
        not answer, the rounds back off as the passes do (:class:`Outage`)."""
        outage = Outage("the webhooks' and push deliveries", self.poll)
        while not stop.is_set():
            self._webhooks_woken.clear()
            try:
                sent = webhooks.deliver_due(self._clock(), DELIVERY_PATIENCE)
            except DatabaseUnavailable as error:
                stop.wait(outage.failed(error))
                continue
            except Exception as error:  # a bug: logged, tried again after a pause
                log.warning("the webhooks' deliveries failed: %s", type(error).__name__)
                sent = 0
            else:
                outage.answered()
            if sent == 0:
                self._webhooks_woken.wait(self.poll)
