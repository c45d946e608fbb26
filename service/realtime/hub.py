"""One per real-time process: the held connections, the feeds they follow, each feed's recent events.

Everything here runs on the process's event loop but the reads, which run on one thread of their
own on a store session it keeps (taken anew every :data:`SESSION_SECONDS`). Told that feeds changed
(the channel's listener calls `Hub.signalled` from its thread), the hub reads the heads of those it
follows, then the new events of those that have any, in one round (one statement per kind of feed),
and hands each connection what follows its own position and is public or its seat's: rendered once,
framed once per seat, written to every connection of the feed. A connection that starts behind the
hub's short cache reads for itself, then has the hub read the feed again, so that a change saved
while it read is not missed.

Keys: a replaced player key ends the connections it opened. A signal naming a player checks the keys
of their connections; one that anything may have changed (an SQLite file's commit, a listener back,
the heartbeat) checks every key, at most every :data:`KEYS_EVERY_SECONDS` (the clock's next tick
wakes a round that does); and a connection's key is checked in the round that would hand it private
events (a seat's, or its player's feed's), as its own read checks it (:meth:`.EventFeed.read_for`).

Time: every :data:`TICK_SECONDS` the idle streams whose heartbeat is due get a comment line
(:func:`.held.keep_alive`, a batch at a time); every heartbeat period the hub reads every followed
feed again (a lost signal makes events late, never lost) and has the followed players' feeds marked
alive, all in one go (quick play's tickets); every :data:`MARK_SECONDS` it marks the games it follows
as followed and itself as alive (:mod:`.liveness`).

A connection ends when its client goes (its share is given back at once), when its feed ends (a
game's ``game_finished``, a replaced key), when its client stops reading (more than
:data:`MAX_PENDING_BYTES` unsent: the connection is cut), and when the process stops.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from ..events import PAGE_EVENTS, EventFeed, Hold, Item, StreamsFull, StreamShares, holds_private
from ..observability.metrics import STREAMS_HELD
from ..store import PLAYER_FEED, StoreSession
from .held import CACHED_EVENTS, MAX_PENDING_BYTES, Feed, Held, Receive, Send, Slot, keep_alive
from .liveness import Liveness

__all__ = ["CACHED_EVENTS", "MAX_PENDING_BYTES", "Hub", "Receive", "Send"]

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0  # how often idle streams are looked at for a due heartbeat
MARK_SECONDS = 5.0  # how often the followed games, and the process itself, are marked alive
KEYS_EVERY_SECONDS = 1.0  # every key that opened a connection is checked at most this often (see above)
BACKGROUND = 4  # threads for a connection's own reads and the liveness marks
# The reading session goes back to the pool this often: a connection kept out of it keeps what its check-in
# undoes (PostgreSQL: 2 isolation resets, ~0.9 KiB, per read of several players' feeds), growing for good.
SESSION_SECONDS = 60.0


@dataclass
class _Round:
    """What one round reads, and what it found: new events by feed, the player keys checked, those that hold."""

    after: dict[str, int]
    keys: set[str]
    private_keys: dict[str, frozenset[str]]  # per feed: the keys of connections that get its private events
    items: dict[str, list[Item]] = field(default_factory=dict)
    known: set[str] = field(default_factory=set)


class Hub:
    """The held connections of this process and the feeds they follow."""

    def __init__(
        self,
        feed: EventFeed,
        *,
        max_streams: int,
        shares: StreamShares,
        heartbeat: float,
        liveness: Liveness,
    ) -> None:
        self._feed = feed
        self.max_streams = max_streams
        self._shares = shares
        self.heartbeat = heartbeat
        self.liveness = liveness
        self._lock = threading.Lock()  # the count of held connections: admit() runs on the web app's threads
        self._admitted = 0
        self._feeds: dict[str, Feed] = {}
        self._keyed: dict[str, set[Held]] = {}  # the connections opened with a player's key, by player
        self._changed: set[str] = set()
        self._players: set[str] = set()  # whose keys to check in the next round
        self._all_keys = False
        self._keys_checked = float("-inf")  # when every key was last checked (time.monotonic())
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="coins-realtime-read")
        self._background = ThreadPoolExecutor(BACKGROUND, thread_name_prefix="coins-realtime")
        self._kept: tuple[ExitStack, StoreSession] | None = None
        self._kept_since = 0.0  # when it was taken (time.monotonic())
        self.closing = False

    # -- any thread ------------------------------------------------------------------------

    def admit(self, address: str, credential: str | None) -> Callable[[], None]:
        """Take a slot of this process and of the caller's shares; return what gives them back
        (once). Raises :class:`.ShareTaken` or :class:`.StreamsFull`."""
        with self._lock:
            if self.closing or self._admitted >= self.max_streams:
                raise StreamsFull(f"this process holds {self.max_streams} streams already")
            self._admitted += 1
        try:
            share = self._shares.take(address, credential)
        except BaseException:
            self.give_back_slot()
            raise
        STREAMS_HELD.inc()
        return Slot(self, share)

    def give_back_slot(self) -> None:
        """One slot of this process is free again (its :class:`.Slot` gives it back)."""
        with self._lock:
            self._admitted -= 1

    @property
    def held(self) -> int:
        """Connections held now (streams and waiting long polls)."""
        return sum(len(feed.held) for feed in self._feeds.values())

    def signalled(self, feed_id: str | None) -> None:
        """A feed changed (``None``: any may have): the next round reads it. From any thread."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._signalled, feed_id)

    # -- the loop --------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the rounds and the clock, and listen to the channel."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._tasks = [self._loop.create_task(self._rounds()), self._loop.create_task(self._clock())]
        self._feed.channel.listen(self.signalled)
        # alive from the start (then every MARK_SECONDS): /readyz does not call a fresh process down
        self._loop.run_in_executor(self._background, self._mark, "the process", self._follow, [])

    def end_all(self) -> None:
        """The process is stopping: no new connection is admitted, and every held one ends (its
        client resumes elsewhere with Last-Event-ID). From any thread, a signal handler's too."""
        with self._lock:
            self.closing = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._end_held)

    def _end_held(self) -> None:
        for feed in list(self._feeds.values()):
            for held in list(feed.held):
                held.finish()

    async def close(self) -> None:
        """Stop the rounds, the clock and the listener."""
        self.closing = True
        self._end_held()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._feed.close()
        self._reader.submit(self._drop_session)
        self._reader.shutdown(wait=False)
        self._background.shutdown(wait=False)

    async def hold(self, hold: Hold, send: Send, receive: Receive) -> None:
        """Keep the connection of ``hold`` (its answer started, its first events sent) until it ends."""
        held = Held(hold, send)
        held.task = asyncio.current_task()
        feed_id, wait = hold.opening.feed_id, hold.wait
        del hold  # the Hold and its Opening are not kept while the connection lasts: `held` has what it needs
        feed = self._feeds.get(feed_id)
        if feed is None:
            feed = self._feeds[feed_id] = Feed(feed_id)
        feed.held.add(held)
        if held.key_hash is not None:
            feed.keyed.add(held)
            feed.keys_changed()
            self._keyed.setdefault(held.player_id or "", set()).add(held)
        try:
            if self.closing:
                held.finish()
            else:
                if not held.stream:
                    held.timer = asyncio.get_running_loop().call_later(wait, held.finish)
                await self._catch_up(feed, held)
            while not held.done:
                message = await receive()
                if message["type"] == "http.disconnect":
                    break
        except asyncio.CancelledError:
            if not held.cut:
                raise
        finally:
            if held.timer is not None:
                held.timer.cancel()
            feed.held.discard(held)
            if held in feed.keyed:
                feed.keyed.discard(held)
                feed.keys_changed()
            keyed = self._keyed.get(held.player_id or "")
            if keyed is not None and held.key_hash is not None:
                keyed.discard(held)
                if not keyed:
                    del self._keyed[held.player_id or ""]
            if not feed.held and self._feeds.get(feed.feed_id) is feed:
                del self._feeds[feed.feed_id]
            held.release()

    async def _catch_up(self, feed: Feed, held: Held) -> None:
        """Hand ``held`` what followed its position: from the cache, or read for itself."""
        while feed.start == -1 or held.position < feed.start:
            position = held.position
            new, key_holds = await asyncio.get_running_loop().run_in_executor(
                self._background, self._feed.read_for, feed.feed_id, position, held.key_hash
            )
            if not key_holds:  # replaced since the connection opened: none of its private events
                held.finish()
                break
            if feed.start == -1 and len(new) < PAGE_EVENTS:  # not cached by another connection meanwhile
                # The cache starts at its position, never past the feed's last event (the views refuse
                # an `after` past it: service.events.feed); the rounds read what follows the cache.
                feed.start, feed.items = position, []
                feed.add(new)
            elif new:
                held.hand(new)
            self._signalled(feed.feed_id)  # a change saved while it read: the next round reads it
            if not new or held.ending:
                break
        held.catching_up = False
        if not held.ending:
            held.hand(feed.after(held.position))
            if feed.ended:  # the game ended at or before its position
                held.finish()
            if feed.start == -1:  # its own read was cut short and nothing cached: the rounds read on
                self._signalled(feed.feed_id)

    def _signalled(self, feed_id: str | None) -> None:
        if feed_id is None:
            self._changed.update(self._feeds)
            self._all_keys = True
        else:
            if feed_id in self._feeds:
                self._changed.add(feed_id)
            if feed_id.startswith(PLAYER_FEED):
                self._players.add(feed_id.removeprefix(PLAYER_FEED))
        if self._wake is not None:
            self._wake.set()

    async def _rounds(self) -> None:
        assert self._wake is not None and self._loop is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            this = self._next_round()
            if not this.after and not this.keys:
                continue
            try:
                await self._loop.run_in_executor(self._reader, self._read, this)
            except Exception as error:  # the database is away: the next heartbeat reads again
                log.warning("could not read the changes of %d feeds: %s", len(this.after), type(error).__name__)
                continue
            self._apply(this)

    def _next_round(self) -> _Round:
        changed, self._changed = self._changed, set()
        players, self._players = self._players, set()
        everyone = self._every_key_now()
        after = {n: feed.last for n in changed if (feed := self._feeds.get(n)) is not None and feed.start != -1}
        checked = self._keyed.values() if everyone else (self._keyed.get(player, set()) for player in players)
        keys = {held.key_hash for connections in checked for held in connections if held.key_hash is not None}
        private = {key: feed.key_hashes for key in after if (feed := self._feeds[key]).key_hashes}
        return _Round(after, keys, private)

    def _every_key_now(self) -> bool:
        """Whether this round checks every key: asked to, and not done in the last :data:`KEYS_EVERY_SECONDS`."""
        now = time.monotonic()
        if not self._all_keys or now - self._keys_checked < KEYS_EVERY_SECONDS:
            return False
        self._all_keys, self._keys_checked = False, now
        return True

    def _read(self, this: _Round) -> None:
        """On the reading thread: the heads of the changed feeds, the new events of those that have
        any, and whether the keys to check (and those about to see private events) still hold."""
        try:
            session = self._session()
            if this.after:
                heads = self._feed.heads_on(session, this.after)
                newer = {key: last for key, last in this.after.items() if heads.get(key, 0) > last}
                this.items = self._feed.read_on(session, newer, CACHED_EVENTS) if newer else {}
            for feed_id, items in this.items.items():
                if feed_id in this.private_keys and holds_private(feed_id, items):
                    this.keys |= this.private_keys[feed_id]  # checked before private events are handed on
            this.known = self._feed.known_keys_on(session, this.keys) if this.keys else set()
        except BaseException:
            self._drop_session()
            raise

    def _session(self) -> StoreSession:
        now = time.monotonic()  # kept between rounds, taken anew every SESSION_SECONDS
        if self._kept is not None and now - self._kept_since >= SESSION_SECONDS:
            self._drop_session()
        if self._kept is None:
            held = ExitStack()
            self._kept = (held, held.enter_context(self._feed.session()))
            self._kept_since = now
        return self._kept[1]

    def _drop_session(self) -> None:
        kept, self._kept = self._kept, None
        if kept is not None:
            kept[0].close()

    def _apply(self, this: _Round) -> None:
        """Back on the loop: end the connections of keys that no longer hold, then hand every
        connection of each feed read what follows its position."""
        revoked = this.keys - this.known
        if revoked:
            for connections in list(self._keyed.values()):
                for held in list(connections):
                    if held.key_hash in revoked:
                        held.finish()
        for feed_id, items in this.items.items():
            feed = self._feeds.get(feed_id)
            if feed is None or feed.start == -1:
                continue  # no longer followed
            if feed.last != this.after[feed_id]:  # filled by a connection's own read meanwhile: read again
                self._signalled(feed_id)
                continue
            feed.add(items)
            frames: dict[tuple[int, int | None], bytes] = {}  # one chunk per position and seat
            for held in list(feed.held):
                if not held.catching_up:
                    held.hand(feed.after(held.position), frames)
                    if feed.ended:  # one whose position is past the game's end gets none of it, yet ends
                        held.finish()
            if len(items) == CACHED_EVENTS:  # cut short: read the rest
                self._signalled(feed_id)

    async def _clock(self) -> None:
        assert self._loop is not None
        heartbeat = marked = time.monotonic()
        while True:
            await asyncio.sleep(TICK_SECONDS)
            now = time.monotonic()
            quiet_for = self.heartbeat - TICK_SECONDS / 2  # a heartbeat is due
            await keep_alive(
                [held for feed in self._feeds.values() for held in feed.held if now - held.last_write >= quiet_for]
            )
            if now - heartbeat >= self.heartbeat:
                heartbeat = now
                self._signalled(None)  # every followed feed read again, every key checked
                players = [
                    feed_id.removeprefix(PLAYER_FEED) for feed_id in self._feeds if feed_id.startswith(PLAYER_FEED)
                ]
                # the followed players' feeds are alive (quick play's tickets), all at once (a statement
                # per few hundred players: a process may follow thousands)
                self._loop.run_in_executor(self._background, self._mark, "the players' feeds", self._feed.beat, players)
            elif self._all_keys and self._wake is not None:
                self._wake.set()  # every key to check, asked for too soon after the last check
            if now - marked >= MARK_SECONDS:
                marked = now
                games = [key for key in self._feeds if not key.startswith(PLAYER_FEED)]
                self._loop.run_in_executor(self._background, self._mark, "the games followed", self._follow, games)

    def _follow(self, games: list[str]) -> None:
        """The followed games are followed, and this process is alive (listening or not)."""
        self.liveness.games_followed(games, seconds=3 * MARK_SECONDS)
        self.liveness.alive(listening=self._feed.channel.listening)

    @staticmethod
    def _mark(what: str, mark: Callable[[list[str]], None], ids: list[str]) -> None:
        """On a background thread: ``mark(ids)``, a liveness mark; a failure is logged (the next tick marks again)."""
        try:
            mark(ids)
        except Exception as error:
            log.warning("could not mark %s alive: %s", what, type(error).__name__)
