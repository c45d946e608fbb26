"""A gunicorn instance's processes, from /proc: its workers and their CPU.

Shared by the tests that kill processes and by bench/ (which counts their CPU and memory).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["children", "cpu_seconds", "descendants", "gunicorn_workers"]

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

MOST_PROCESSES = 1000  # a bound on the walk of descendants


def children(pid: int) -> list[int]:
    """The live children of ``pid`` ([] once it is gone)."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def gunicorn_workers(master: int) -> list[int]:
    """The master's workers: its children."""
    return children(master)


def descendants(master: int) -> list[int]:
    """Every process under the master (its workers, and anything they started)."""
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
