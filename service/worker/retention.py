"""The retention purge on the worker's schedule: every ``PURGE_EVERY_MINUTES`` (default 60; 0: never)
a worker deletes the old finished games and the abandoned ones, the quick-play tickets done with, the
old and the deleted accounts' feed events, and the expired idempotency keys and rate-limit counters,
as ``coins-purge`` does (:mod:`service.store.purge`).

The purge is idempotent and safe with any number of purges at once (on PostgreSQL their batches skip
each other's games; on SQLite writers take turns), so every worker may run it on its own interval:
no coordination, and no job queue, is needed for work that any process may do at any time. A purge
that fails (the database away) is logged and tried again at the next interval.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from ..store import Database
from ..store.purge import Purged, purge, purge_expired

__all__ = ["Retention"]

log = logging.getLogger(__name__)


class Retention:
    """When this worker purges next, and the purge itself."""

    def __init__(
        self, db: Database, *, every: timedelta, finished_after: timedelta, abandoned_after: timedelta
    ) -> None:
        self._db = db
        self.every = every
        self.finished_after = finished_after
        self.abandoned_after = abandoned_after
        self._next: datetime | None = None  # the first call purges

    def run_if_due(self, now: datetime) -> Purged | None:
        """Purge if the interval has passed since this worker's last purge (or it never purged); what
        went, or None when it was not due (or failed: logged)."""
        if self._next is not None and now < self._next:
            return None
        self._next = now + self.every
        try:
            purged = purge(
                self._db, finished_before=now - self.finished_after, abandoned_before=now - self.abandoned_after
            )
            keys = purge_expired(self._db, now)
        except Exception as error:  # the database, or a bug: the moves go on; tried at the next interval
            log.warning("the retention purge failed: %s", type(error).__name__)
            return None
        if purged.finished or purged.abandoned or purged.tickets or purged.feed_events or keys:
            log.info(
                "retention: %d finished and %d abandoned games deleted, %d quick-play tickets, %d feed events, "
                "%d expired keys",
                purged.finished,
                purged.abandoned,
                purged.tickets,
                purged.feed_events,
                keys,
            )
        return purged
