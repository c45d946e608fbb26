"""Holding a reader: what the web app's view hands to the process that keeps connections open.

A stream, or a long poll that must wait, is held by the real-time role (:mod:`service.realtime`),
not by a thread of the web role. The events view still answers the request (it authenticates the
caller, reads where the reader starts, and frames the first events, with every hook an answer gets:
CORS, security headers, request id, access log, metrics, problems); when it runs inside the
real-time role, it then hands the reader over as a :class:`Hold`, and the role keeps the
connection and sends what follows. A process that holds nothing (the web role) has no
:class:`Holder`: its view answers what need not wait and refuses the rest (``503 too_many_streams``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .feed import Opening

__all__ = ["Hold", "Holder", "StreamsFull"]


class StreamsFull(Exception):
    """This process already holds as many streams and long polls as it may (or holds none)."""


@dataclass(frozen=True, slots=True)
class Hold:
    """A reader handed over: where it starts (``opening``, whose items the view has sent), whether it
    is a stream (else a long poll that waits up to ``wait`` seconds for its first event), and how
    to give back its share of the process's streams once its connection ends."""

    opening: Opening
    stream: bool
    wait: float
    release: Callable[[], None]


class Holder(Protocol):
    """The process's keeper of held connections, as the events view sees it."""

    def can_hold(self, environ: Mapping[str, Any]) -> bool:
        """Whether this request's connection can be handed over (it came through the holder)."""

    def admit(self, address: str, credential: str | None) -> Callable[[], None]:
        """Take a slot for one more reader of ``address`` and ``credential`` (a token's hash, None for
        a spectator) and return what gives it back. Raises :class:`.ShareTaken` when the caller's
        share is used up, :class:`StreamsFull` when every slot is taken."""

    def hand_over(self, environ: Mapping[str, Any], hold: Hold) -> None:
        """Keep this request's connection once the view's answer has started, and go on with ``hold``."""
