"""``coins-worker``: the worker role's process (any number of them, on any number of machines).

It wires the service as every role does (``create_app``: the store, the use cases and what follows
a rated game's end), then runs :class:`.Worker` until SIGTERM or SIGINT, after which it finishes
the game it is moving and stops. ``WORKER_POLL_MS`` sets the longest pause between passes: the
worker listens on the channel that signals changed games (:mod:`service.events.channels`) and
starts a pass as soon as one is signalled, so what a change owes follows it at once, and a lost
signal delays it by one pause at most.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
from datetime import timedelta
from types import FrameType

from ..config import ConfigError, Settings
from ..store import PLAYER_FEED, Database
from ..store.migrate import SchemaNotMigrated
from ..store.purge import DEFAULT_ABANDONED_AFTER_DAYS, DEFAULT_FINISHED_AFTER_DAYS, days_from_env
from .due import Worker
from .retention import Retention

__all__ = ["main", "worker_for"]

log = logging.getLogger(__name__)


def worker_for(settings: Settings) -> Worker:
    """A worker on the database of ``settings``, wired as the web role is."""
    from .. import DELIVERER_EXTENSION, SCHEMA_EXTENSION, create_app  # the one wiring of the use cases and store
    from ..api.context import EXTENSION, QUEUE_EXTENSION
    from ..api.resources.events.routes import FEED_EXTENSION

    app = create_app(settings, pre_ping=False)  # a pass that meets a dropped connection is tried again
    games = app.extensions[EXTENSION]
    queue = app.extensions[QUEUE_EXTENSION]
    channel = app.extensions[FEED_EXTENSION].channel
    worker = Worker(
        games,
        games.store.due,
        lambda: games.clock(),
        poll=settings.worker_poll_ms / 1000,
        queue=queue,
        webhooks=app.extensions[DELIVERER_EXTENSION],
        retention=_retention(settings, app.extensions["coins.db"]),
        schema=app.extensions[SCHEMA_EXTENSION].check if SCHEMA_EXTENSION in app.extensions else None,
        listening=lambda: channel.listening,
    )
    channel.listen(lambda feed_id: _changed(worker, feed_id))
    return worker


def _retention(settings: Settings, db: Database) -> Retention | None:
    """The purge on its interval (``PURGE_EVERY_MINUTES``; 0: none), of what ``coins-purge`` deletes."""
    if settings.purge_every_minutes == 0:
        return None
    finished = days_from_env(os.environ, "PURGE_FINISHED_AFTER_DAYS", DEFAULT_FINISHED_AFTER_DAYS)
    abandoned = days_from_env(os.environ, "PURGE_ABANDONED_AFTER_DAYS", DEFAULT_ABANDONED_AFTER_DAYS)
    return Retention(
        db,
        every=timedelta(minutes=settings.purge_every_minutes),
        finished_after=timedelta(days=finished),
        abandoned_after=timedelta(days=abandoned),
    )


def _changed(worker: Worker, feed_id: str | None) -> None:
    """A signal on the channel: a game changed (its id), or anything may have (None), wakes the
    worker; a player's feed (``player:<id>``, the worker's own deliveries) does not."""
    if feed_id is None or not feed_id.startswith(PLAYER_FEED):
        worker.wake()


def main() -> None:
    try:
        worker = worker_for(Settings.from_env())
    except ConfigError as error:
        sys.exit(f"coins-worker: {error}")
    except SchemaNotMigrated:  # the database was not migrated (AUTO_MIGRATE=false): create_app logged which revision
        sys.exit(1)
    gc.freeze()  # the wiring lives as long as the process: full collections need not scan it
    stop = threading.Event()

    def stopping(signum: int, frame: FrameType | None) -> None:
        log.info("coins-worker %s: %s, stopping", worker.instance, signal.Signals(signum).name)
        stop.set()
        worker.wake()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    log.info("coins-worker %s: making due moves every %.2f s", worker.instance, worker.poll)
    try:
        worker.run(stop)
    except SchemaNotMigrated:  # found once the database answered (it did not at the start): logged
        sys.exit(1)
