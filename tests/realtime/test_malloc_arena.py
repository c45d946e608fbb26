"""coins-realtime keeps glibc's malloc to one arena (service.realtime.server.one_malloc_arena): the
memory a stream's opening leaves on a2wsgi's threads is reused by the event loop's. Each case runs
in a process of its own, where threads allocate and glibc's malloc_stats(3) lists the arenas."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="an arena is glibc's malloc's")

PROBE = """
import ctypes, sys, threading
if sys.argv[1] == "set":
    from service.realtime.server import one_malloc_arena
    print(one_malloc_arena())
else:
    print("not asked")
kept = []
together = threading.Barrier(4)  # alive at once: an ended thread's arena goes to the next
def allocate():
    together.wait()
    kept.append([bytes(1000) for _ in range(100)])  # above pymalloc's 512 bytes: malloc's, in this thread
    together.wait()
threads = [threading.Thread(target=allocate) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
ctypes.CDLL(None).malloc_stats()  # one "Arena n:" block per arena, on stderr
"""


def arenas(*, ask: bool, limit: str | None = None) -> tuple[str, int]:
    env = {key: value for key, value in os.environ.items() if key != "MALLOC_ARENA_MAX"}
    if limit is not None:
        env["MALLOC_ARENA_MAX"] = limit
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "set" if ask else "no"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), sum(line.startswith("Arena ") for line in done.stderr.splitlines())


def test_threads_that_allocate_share_one_arena():
    assert arenas(ask=True) == ("True", 1)


def test_without_it_each_thread_takes_an_arena_of_its_own():
    assert arenas(ask=False) == ("not asked", 5)  # the main thread's and one for each of the four


def test_the_operators_malloc_arena_max_wins():
    assert arenas(ask=True, limit="3") == ("False", 3)
