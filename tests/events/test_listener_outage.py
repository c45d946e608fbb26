"""A listener that cannot listen (a wrong DATABASE_LISTEN_URL, a server away) keeps saying so, at a
bounded rate, says when it listens again, and says so again when it is lost a second time. Its
clock and its waits are driven by hand (no sleeping)."""

from __future__ import annotations

import logging
import threading

import pytest

from service.events.channels import STILL_LOST_LOG_SECONDS, _Listener


class Recorded(threading.Event):
    """The listener's stop event: its waits return at once."""

    def wait(self, timeout: float | None = None) -> bool:
        return self.is_set()


def test_a_listener_that_cannot_listen_keeps_saying_so(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    heard: list[str | None] = []
    # Each run, in turn: refused (5 times, 30 s apart), then listening a while and lost, refused, listening.
    runs = ["refused"] * 5 + ["listen, then lost", "refused", "listen"]

    def run(tell, stopped: threading.Event) -> None:  # type: ignore[no-untyped-def]
        now[0] += 30.0
        step = runs.pop(0)
        if step == "refused":
            raise ConnectionRefusedError("nothing listens there")
        tell(None)  # listening now
        assert listener.listening
        if step == "listen, then lost":
            raise ConnectionResetError("the server went away")
        stopped.set()

    listener = _Listener("test-changes", run)
    listener.stopped = Recorded()
    listener.clock = lambda: now[0]
    listener._thread = threading.current_thread()  # started (its loop runs here)
    with caplog.at_level(logging.INFO, logger="service.events.channels"):
        listener._guarded(heard.append)
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert said == [
        ("WARNING", "listener for game changes lost: ConnectionRefusedError"),
        (
            "WARNING",
            f"listener for game changes still cannot listen after {STILL_LOST_LOG_SECONDS:.0f} s "
            "(ConnectionRefusedError): changes reach readers only at their heartbeats",
        ),
        (
            "WARNING",
            f"listener for game changes still cannot listen after {2 * STILL_LOST_LOG_SECONDS:.0f} s "
            "(ConnectionRefusedError): changes reach readers only at their heartbeats",
        ),
        ("INFO", "listener for game changes listens again after 150 s"),
        ("WARNING", "listener for game changes lost: ConnectionResetError"),
        ("INFO", "listener for game changes listens again after 60 s"),
    ]
    assert heard == [None, None] and listener.listening and not runs
