"""Tries in flight (service/webhooks/tries.py): a try slower than the caller's patience stays in
flight, and a later call collects its outcome; a try never starts beyond the senders."""

from __future__ import annotations

import threading
import time

import pytest

from service.webhooks.tries import Tries


def ended_within(tries: Tries[str, str], seconds: float = 10.0) -> list[tuple[str, str]]:
    """The next tries to end (waiting for one, ``seconds`` at most: a busy machine is slow to start a thread)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ended := tries.ended():
            return ended
        time.sleep(0.01)
    return []


def test_a_slow_try_stays_in_flight_and_a_later_call_collects_it() -> None:
    gate = threading.Event()

    def send(item: str) -> str:
        if item == "slow":
            gate.wait(10.0)
        return item.upper()

    tries: Tries[str, str] = Tries(send, senders=3, name="test")
    tries.run(["slow", "fast"], patience=0.2)  # returns though "slow" has not ended
    assert ended_within(tries) == [("fast", "FAST")]
    assert (len(tries), tries.free) == (1, 2)
    tries.run(["next"], patience=None)  # waits for its own tries only
    assert tries.ended() == [("next", "NEXT")]
    gate.set()
    assert ended_within(tries) == [("slow", "SLOW")] and tries.free == 3


def test_no_more_tries_start_than_senders_are_free() -> None:
    tries: Tries[int, int] = Tries(lambda item: item, senders=2, name="test")
    with pytest.raises(ValueError):
        tries.run([1, 2, 3], patience=None)
    assert len(tries) == 0
