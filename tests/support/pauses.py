"""A stop event for the worker's loops whose waits are recorded, not waited: its tests never sleep."""

from __future__ import annotations

import threading


class Pauses(threading.Event):
    """A stop event whose waits are recorded and return at once."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    def wait(self, timeout: float | None = None) -> bool:
        assert timeout is not None
        self.waits.append(timeout)
        return self.is_set()
