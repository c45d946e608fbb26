"""Tries in flight: the worker's sends of deliveries on threads of their own, each waited for a while.

A deliverer (webhooks', push messages') starts the tries of what it claimed and waits for them
``patience`` seconds at most (None: until each has ended). A try still running then keeps its
thread and stays in flight; a later call collects its outcome with the others that ended
(:meth:`Tries.ended`). So a receiver that answers late holds up only its own delivery, and the
number of tries in flight, the threads', bounds what the deliverer claims next (:attr:`Tries.free`).
One caller at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Generic, TypeVar

__all__ = ["Tries"]

T = TypeVar("T")
R = TypeVar("R")


class Tries(Generic[T, R]):
    """Up to ``senders`` tries of ``send`` in flight, on threads made by the first try and kept."""

    def __init__(self, send: Callable[[T], R], *, senders: int, name: str) -> None:
        self._send = send
        self._senders = senders
        self._name = name
        self._threads: ThreadPoolExecutor | None = None
        self._in_flight: dict[Future[R], T] = {}

    @property
    def free(self) -> int:
        """How many more tries may start now."""
        return self._senders - len(self._in_flight)

    def __len__(self) -> int:
        """Tries in flight whose outcome has not been collected."""
        return len(self._in_flight)

    def run(self, items: Sequence[T], patience: float | None) -> None:
        """Start a try of each of ``items`` (no more than :attr:`free`), and wait for them ``patience``
        seconds at most (None: until each has ended)."""
        if len(items) > self.free:
            raise ValueError(f"{len(items)} tries, {self.free} senders free")
        if items and self._threads is None:
            self._threads = ThreadPoolExecutor(max_workers=self._senders, thread_name_prefix=self._name)
        started = []
        for item in items:
            assert self._threads is not None
            attempt = self._threads.submit(self._send, item)
            self._in_flight[attempt] = item
            started.append(attempt)
        wait(started, timeout=patience)

    def ended(self) -> list[tuple[T, R]]:
        """The tries that have ended since the last call, each with its outcome (no longer in flight)."""
        done = [attempt for attempt in self._in_flight if attempt.done()]
        return [(self._in_flight.pop(attempt), attempt.result()) for attempt in done]
