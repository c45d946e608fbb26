"""A player's own feed for one reader: the player's state first, then each event of their feed, none missing.

The same mechanics as a game's feed (:mod:`.feed`), on the same hub, under the key
``player:<id>``: ids per player, strictly increasing; resume after an id; a heartbeat when idle.
It never ends by itself, but when the key that opened it is replaced: the reader checks its key
on each heartbeat, and the hub stirs a player's readers whenever that player's feed is notified
(a key replacement notifies it too), so they check at once.
"""

from __future__ import annotations

import time

from ..games import PlayerFeeds, PlayerFeedStart
from ..store import player_feed_key
from .hub import Hub, Item, Watch
from .reader import Reader

__all__ = ["PlayerReader"]


class PlayerReader(Reader):
    """One reader's place in a player's feed, holding the key it was opened with."""

    def __init__(
        self, hub: Hub, watch: Watch, start: PlayerFeedStart, state: str, after: int | None, feeds: PlayerFeeds
    ) -> None:
        key = player_feed_key(start.player_id)
        super().__init__(hub, key, watch, None, start.last_id, False, state, after, first_type="player")
        self.player_id = start.player_id
        self._key_hash = start.key_hash
        self._feeds = feeds
        #: The key this reader was opened with was replaced: it ends.
        self.replaced = False

    def first(self) -> list[Item]:
        """As a game's reader's, after a heartbeat (a long poll follows the feed too)."""
        self.beat()
        return super().first()

    def next(self, timeout: float) -> list[Item]:
        """The next events of the player's feed, waiting up to ``timeout`` seconds for one (then
        []). Whenever the wait is stirred (the player's feed was notified) and on its end, the key
        is checked: a replaced one ends the wait at once, with :attr:`replaced` set."""
        deadline = time.monotonic() + timeout
        while True:
            items = super().next(max(deadline - time.monotonic(), 0.0))
            if items or self.closing:
                return items
            if not self.key_holds():
                self.replaced = True
                return []
            if time.monotonic() >= deadline:
                return []

    def key_holds(self) -> bool:
        """Whether the key this reader was opened with is still its player's (read now)."""
        return self._feeds.holds(self.player_id, self._key_hash)

    def beat(self) -> None:
        """The reader's heartbeat: what the player's feeds run on it (quick play's hooks)."""
        self._feeds.on_heartbeat(self.player_id)
