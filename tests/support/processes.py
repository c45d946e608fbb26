"""A gunicorn instance's processes, from /proc: its workers, the stream process apart from them, their CPU.

With streams on, the master has one child that is not a worker: gunicorn's dirty arbiter, whose
one child is the stream process (gunicorn.conf.py's ``dirty_apps``). A worker has no child.
Shared by the tests that kill processes and by bench/ (which counts their CPU and memory).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["children", "cpu_seconds", "descendants", "gunicorn_workers", "stream_processes"]

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

MOST_PROCESSES = 1000  # a bound on the walk of descendants


def children(pid: int) -> list[int]:
    """The live children of ``pid`` ([] once it is gone)."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def gunicorn_workers(master: int) -> list[int]:
    """The master's workers: its children but the dirty arbiter, the one with a child of its own."""
    return [pid for pid in children(master) if not children(pid)]


def stream_processes(master: int) -> list[int]:
    """The stream process (gunicorn's dirty worker): a child of a child of the master."""
    return [pid for child in children(master) for pid in children(child)]


def descendants(master: int) -> list[int]:
    """Every process under the master: the workers, the dirty arbiter and the stream process."""
    found: list[int] = []
    todo = children(master)
    while todo and len(found) < MOST_PROCESSES:
        pid = todo.pop()
        found.append(pid)
        todo += children(pid)
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the live processes ``pids`` have used so far."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError):  # the process ended while we looked
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            ticks += int(fields[11]) + int(fields[12])  # after "pid (comm)": state, ppid, …, utime, stime
    return ticks / CLOCK_TICKS
