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
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["ShareTaken", "StreamShares"]


class ShareTaken(Exception):
    """The caller already holds as many readers of this process as it may."""


class StreamShares:
    """The readers each address and each credential hold in this process."""

    def __init__(self, *, per_address: int, per_credential: int) -> None:
        self.per_address = per_address
        self.per_credential = per_credential
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, address: str, credential: str | None) -> Callable[[], None]:
        """Take one reader of ``address``'s share and of ``credential``'s (a token's hash, or None for
        a spectator); the function returned gives it back (once, however often it is called).
        Raises :class:`ShareTaken` when either is used up."""
        holders = [(f"address:{address}", self.per_address, "address")]
        if credential is not None:
            holders.append((f"credential:{credential}", self.per_credential, "credential"))
        capped = [(key, cap, name) for key, cap, name in holders if cap > 0]
        with self._lock:
            for key, cap, name in capped:
                if self._held[key] >= cap:
                    raise ShareTaken(f"this {name} holds {cap} streams or long polls here already")
            for key, _, _ in capped:
                self._held[key] += 1
        given_back = [False]  # a flag, not an Event: one per held stream, and an Event weighs a lock and a condition

        def give_back() -> None:
            with self._lock:
                if given_back[0]:
                    return
                given_back[0] = True
                for key, _, _ in capped:
                    self._held[key] -= 1
                    if not self._held[key]:
                        del self._held[key]

        return give_back

    @contextmanager
    def hold(self, address: str, credential: str | None) -> Iterator[None]:
        """:meth:`take` for the length of a block."""
        give_back = self.take(address, credential)
        try:
            yield
        finally:
            give_back()
