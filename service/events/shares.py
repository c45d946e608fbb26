"""Fair shares of a process's readers: at most so many streams and long polls at once per client
address and per credential, so that one caller cannot take every slot of :class:`.Hub`.

A share is held from the reader's start to its end: the real-time role gives it back as soon as the
connection closes. The counts are the process's own (a reader holds its connection to one
process): a caller may hold its share in each real-time process, which is still a small part of
every process's slots. ``0`` means no cap (``RATE_LIMITS=off``).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Share", "ShareTaken", "StreamShares"]


class ShareTaken(Exception):
    """The caller already holds as many readers of this process as it may."""


class Share:
    """One reader's place in the shares of its address and credential: calling it gives it back, once.
    One lives as long as each held stream: a small object, not a closure with its cells and flag."""

    __slots__ = ("_shares", "keys")

    def __init__(self, shares: StreamShares, keys: tuple[str, ...]) -> None:
        self._shares = shares
        self.keys: tuple[str, ...] | None = keys  # the capped shares it counts in; None once given back

    def __call__(self) -> None:
        self._shares._give_back(self)


class StreamShares:
    """The readers each address and each credential hold in this process."""

    def __init__(self, *, per_address: int, per_credential: int) -> None:
        self.per_address = per_address
        self.per_credential = per_credential
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, address: str, credential: str | None) -> Share:
        """Take one reader of ``address``'s share and of ``credential``'s (a token's hash, or None for
        a spectator); calling the :class:`Share` returned gives it back (once, however often it is
        called). Raises :class:`ShareTaken` when either is used up."""
        holders = [(f"address:{address}", self.per_address, "address")]
        if credential is not None:
            holders.append((f"credential:{credential}", self.per_credential, "credential"))
        capped = tuple((key, cap, name) for key, cap, name in holders if cap > 0)
        with self._lock:
            for key, cap, name in capped:
                if self._held[key] >= cap:
                    raise ShareTaken(f"this {name} holds {cap} streams or long polls here already")
            for key, _, _ in capped:
                self._held[key] += 1
        return Share(self, tuple(key for key, _, _ in capped))

    def _give_back(self, share: Share) -> None:
        with self._lock:
            if share.keys is None:
                return
            keys, share.keys = share.keys, None
            for key in keys:
                self._held[key] -= 1
                if not self._held[key]:
                    del self._held[key]

    @contextmanager
    def hold(self, address: str, credential: str | None) -> Iterator[None]:
        """:meth:`take` for the length of a block."""
        give_back = self.take(address, credential)
        try:
            yield
        finally:
            give_back()
