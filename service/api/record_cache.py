"""The rendered records of finished games, kept per process and bounded by their total bytes.

A finished game's record never changes, so its body (the exact bytes of the 200 response) can be
served again without reading the game's log or rendering it: 38–60 ms of CPU for a long game.
Entries are keyed by the game's id and version; the view reads the game's version and status in
one short statement first (:meth:`service.games.GameService.finished_version`), so a game purged
since (no row: 404) or changed since (a rematch linked to it: another version) is never served
from here. Only finished games are stored: the record of a game still being played changes with
every play, and the database rebuilds any entry this cache drops. Least recently served entries
go first once the total passes the bound; one lock guards the order (the server's threads share
one cache per process).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from flask import Flask, current_app

__all__ = ["CachedRecord", "RecordCache", "init_record_cache", "record_cache"]


@dataclass(frozen=True, slots=True)
class CachedRecord:
    """The body, its content type and entity tag (without quotes) of a finished game's record at one version."""

    body: bytes
    content_type: str
    etag: str


class RecordCache:
    """An LRU map of ``(game id, version)`` to :class:`CachedRecord`, at most ``max_bytes`` of bodies
    in all (0: nothing is kept). A body larger than the whole bound is not kept."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, int], CachedRecord] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    @property
    def total_bytes(self) -> int:
        """The bytes of the bodies kept now."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, game_id: str, version: int) -> CachedRecord | None:
        """The record kept for the game at ``version``, now the most recently served, or None."""
        key = (game_id, version)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, game_id: str, version: int, record: CachedRecord) -> None:
        """Keep ``record`` for the game at ``version``, dropping the least recently served records
        until the bodies fit the bound (an older version's goes its way too: it is never asked for)."""
        size = len(record.body)
        if not self.enabled or size > self.max_bytes:
            return
        with self._lock:
            replaced = self._entries.pop((game_id, version), None)
            if replaced is not None:
                self._bytes -= len(replaced.body)
            self._entries[(game_id, version)] = record
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped.body)


EXTENSION = "coins.record_cache"


def init_record_cache(app: Flask, max_bytes: int) -> None:
    """Give the app its process's cache of finished records (``RECORD_CACHE_BYTES``)."""
    app.extensions[EXTENSION] = RecordCache(max_bytes)


def record_cache() -> RecordCache:
    """The current app's cache of finished records."""
    cache: RecordCache = current_app.extensions[EXTENSION]
    return cache
