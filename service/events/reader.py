"""One reader's place in a feed: what it has taken, what it waits for, and whether its feed is over.

A reader of a game's feed (or, :mod:`.player_feed`, of a player's) starts from the state or after
an event id and takes what follows from the hub's cache (:mod:`.hub`), waiting on its thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .hub import Hub, Item, Watch

__all__ = ["GAME_FINISHED", "Reader"]

GAME_FINISHED = "game_finished"


class Reader:
    """One reader's place in a game's feed."""

    def __init__(
        self,
        hub: Hub,
        game_id: str,
        watch: Watch,
        seat: int | None,
        last_id: int,
        finished: bool,
        state: str,
        after: int | None,
        *,
        first_type: str = "game",
        key_holds: Callable[[], bool] | None = None,
    ) -> None:
        """``first_type``: the type of the state's event (``game``, or a player's ``player``);
        ``key_holds``: for a seat's reader opened with a player's key, whether that key is still the
        player's (asked before each of the seat's private events and on each heartbeat: once it is
        replaced, the reader ends, with :attr:`revoked` set, and sends nothing more)."""
        self.seat = seat
        self.game_id = game_id
        self._hub = hub
        self._watch = watch
        self._last_id = last_id  # the last event when the reader started
        self._was_finished = finished
        self.position = last_id if after is None else after
        self._first = [Item(last_id, first_type, seat, state)] if after is None else []
        self.finished = finished and self.position >= last_id
        self._key_holds = key_holds
        self.revoked = False

    @property
    def closing(self) -> bool:
        return self._hub.closing.is_set()

    def first(self) -> list[Item]:
        """Without ``after``: the ``game`` event (the whole state), then any event saved since it was
        read. Resuming: what follows ``after`` now."""
        first, self._first = self._first, []
        return first + self._take()

    def next(self, timeout: float) -> list[Item]:
        """The next events this reader may see, waiting up to ``timeout`` seconds for one (then [],
        after asking the hub to look at the game again: a notification may have been lost)."""
        items = self._take()
        if items or self.finished:
            return items
        deadline = time.monotonic() + timeout
        while not self.closing:
            if self._watch.wait(self.position, max(deadline - time.monotonic(), 0.0)):
                items = self._take()
                if items or self.finished:
                    return items
                continue  # only other seats' events: wait on
            self._watch.ask()
            self._check_key()
            return []
        return []

    def _check_key(self) -> bool:
        """Whether the reader's key still holds (always, without one); ends the reader if not."""
        if self._key_holds is not None and not self.revoked and not self._key_holds():
            self.revoked = self.finished = True
        return not self.revoked

    def _take(self) -> list[Item]:
        events, self.position = self._watch.take(self.position, self.seat)
        if any(event.seat is not None for event in events) and not self._check_key():
            return []  # the seat's own events (its cards) never reach a replaced key
        if any(event.type == GAME_FINISHED for event in events) or (
            self._was_finished and self.position >= self._last_id
        ):
            self.finished = True
        return events
