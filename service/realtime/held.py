"""What a real-time process holds: the feeds its connections follow, and each connection itself.

A :class:`Feed` keeps the last :data:`CACHED_EVENTS` events of one feed (a game's or a player's),
rendered; a :class:`Held` connection is a stream, or a long poll waiting for its first event, with
what it has taken, what waits to be written to it, and whether its answer has ended. Both live on
the event loop (:mod:`.hub` hands them events). A held reader's :class:`Slot` is its place in the
process's streams and in its caller's shares, given back when it ends.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..api.resources.events.routes import page_body
from ..events import GAME_FINISHED, Hold, Item
from ..observability.metrics import STREAMS_HELD

__all__ = [
    "CACHED_EVENTS",
    "KEEP_ALIVE",
    "MAX_PENDING_BYTES",
    "Feed",
    "Held",
    "Receive",
    "Send",
    "Slot",
    "SlotKeeper",
    "keep_alive",
]

CACHED_EVENTS = 64  # per followed feed: enough for every connection that keeps up
MAX_PENDING_BYTES = 1024 * 1024  # unsent to one client: past this its connection is cut
KEEP_ALIVE = b": keep-alive\n\n"
KEEP_ALIVE_BATCH = 256  # keep-alives written at once: thousands at once would hold the loop for tens of ms

Send = Callable[[dict[str, Any]], Any]
Receive = Callable[[], Any]


@dataclass(eq=False)
class Feed:
    """A followed feed: its connections and its events after ``start`` (-1: none read yet)."""

    feed_id: str
    held: set[Held] = field(default_factory=set)
    keyed: set[Held] = field(default_factory=set)  # those of them opened with a player's key
    key_hashes: frozenset[str] = frozenset()  # their keys (kept as they come and go, not made every round)
    start: int = -1
    items: list[Item] = field(default_factory=list)
    ended: bool = False  # a game's feed whose game_finished was read: nothing follows

    def keys_changed(self) -> None:
        """:attr:`keyed` changed: its keys again."""
        self.key_hashes = frozenset(held.key_hash for held in self.keyed if held.key_hash is not None)

    @property
    def last(self) -> int:
        return self.items[-1].id if self.items else self.start

    def add(self, new: list[Item]) -> None:
        """Append events read after :attr:`last`, keeping the newest :data:`CACHED_EVENTS`."""
        self.items.extend(item for item in new if item.id > self.last)
        self.ended = self.ended or any(item.type == GAME_FINISHED for item in new)
        if len(self.items) > CACHED_EVENTS:
            self.start = self.items[-CACHED_EVENTS - 1].id
            del self.items[: len(self.items) - CACHED_EVENTS]

    def after(self, position: int) -> list[Item]:
        return self.items[bisect.bisect_right(self.items, position, key=_item_id) :]


def _item_id(item: Item) -> int:
    return item.id


class SlotKeeper(Protocol):
    """What keeps a process's slots (the hub)."""

    def give_back_slot(self) -> None: ...


class Slot:
    """A reader's slot of the process, and its share (:meth:`.Hub.admit`): calling it gives both back,
    once (from the web app's thread or the loop, never both at once). One lives as long as each held
    connection: a small object, not a closure with its cells and flag."""

    __slots__ = ("_keeper", "_share")

    def __init__(self, keeper: SlotKeeper, share: Callable[[], None]) -> None:
        self._keeper: SlotKeeper | None = keeper
        self._share = share

    def __call__(self) -> None:
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            self._share()
            keeper.give_back_slot()
            STREAMS_HELD.dec()


class Held:
    """One held connection: a stream, or a long poll waiting for its first event."""

    __slots__ = (
        "catching_up",
        "cut",
        "done",
        "ending",
        "key_hash",
        "last_write",
        "pending",
        "pending_bytes",
        "player_id",
        "position",
        "release",
        "seat",
        "send",
        "stream",
        "task",
        "timer",
        "writing",
    )

    def __init__(self, hold: Hold, send: Send) -> None:
        opening = hold.opening
        self.seat = opening.seat
        self.send = send
        self.stream = hold.stream
        self.position = opening.position
        self.key_hash = opening.key_hash
        self.player_id = opening.player_id
        self.release = hold.release  # gives back its slot and share when the connection ends
        self.pending: list[bytes] = []
        self.pending_bytes = 0
        self.writing = False
        self.ending = False  # no more events: the answer ends once what is pending is sent
        self.done = False  # the answer has ended
        self.cut = False
        self.catching_up = True
        self.last_write = time.monotonic()
        self.task: asyncio.Task[Any] | None = None
        self.timer: asyncio.TimerHandle | None = None

    def visible(self, items: list[Item]) -> list[Item]:
        """Those of ``items`` this connection may see: the public ones and its seat's."""
        return [item for item in items if item.seat is None or item.seat == self.seat]

    def hand(self, new: list[Item], frames: dict[tuple[int, int | None], bytes] | None = None) -> None:
        """Hand this connection the events ``new`` (those after its position): a stream writes those
        it may see (the chunk shared through ``frames`` by position and seat); a long poll answers
        with them, if any."""
        if self.ending or not new:
            return
        before, self.position = self.position, new[-1].id
        finished = any(item.type == GAME_FINISHED for item in new)
        if self.stream:
            group = (before, self.seat)
            chunk = frames.get(group) if frames is not None else None
            if chunk is None:
                chunk = "".join(item.frame() for item in self.visible(new)).encode()
                if frames is not None:
                    frames[group] = chunk
            if chunk:
                self.write(chunk)
            if finished:
                self.end()
            return
        visible = self.visible(new)
        if visible or finished:
            self.end(_page(visible, self.position))

    def finish(self) -> None:
        """End the answer now: a stream's last line is sent, a long poll answers what it has (nothing)."""
        self.end(b"" if self.stream else _page([], self.position))

    def write(self, chunk: bytes) -> None:
        """Send ``chunk`` after what is pending (a task sends; a client that reads too slowly is cut)."""
        if self.ending:
            return
        self.pending.append(chunk)
        self.pending_bytes += len(chunk)
        self.last_write = time.monotonic()
        if self.pending_bytes > MAX_PENDING_BYTES:
            self.cut_off()
        elif not self.writing:
            self._flush_soon()

    def end(self, chunk: bytes = b"") -> None:
        """End the answer after ``chunk`` (a long poll's page) and what is pending."""
        if self.ending:
            return
        if chunk:
            self.pending.append(chunk)
        self.ending = True
        if self.timer is not None:
            self.timer.cancel()
        if not self.writing:
            self._flush_soon()

    def cut_off(self) -> None:
        """Close the connection without ending the answer (its client resumes with Last-Event-ID)."""
        self.cut = self.ending = True
        if self.task is not None:
            self.task.cancel()

    def _flush_soon(self) -> None:
        self.writing = True
        asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        try:
            while self.pending:
                chunk = b"".join(self.pending)
                self.pending.clear()
                self.pending_bytes = 0
                last = self.ending and not self.cut
                await self.send({"type": "http.response.body", "body": chunk, "more_body": not last})
                if last:
                    self.done = True
            if self.ending and not self.done and not self.cut:
                self.done = True
                await self.send({"type": "http.response.body", "body": b"", "more_body": False})
        except Exception:  # the client went: the connection's task sees it and ends
            self.done = True
        finally:
            self.writing = False


async def keep_alive(idle: list[Held]) -> None:
    """Write a keep-alive (a comment line) to each stream of ``idle`` (a long poll gets none),
    :data:`KEEP_ALIVE_BATCH` at a time with the loop free between, so that the events due meanwhile
    go out between two batches rather than after them all; nothing to one that ended meanwhile."""
    streams = [held for held in idle if held.stream]
    for start in range(0, len(streams), KEEP_ALIVE_BATCH):
        if start:
            await asyncio.sleep(0)
        for held in streams[start : start + KEEP_ALIVE_BATCH]:
            held.write(KEEP_ALIVE)


def _page(items: list[Item], position: int) -> bytes:
    """A long poll's body, as the web app's view writes it."""
    return page_body(items, position).encode()
