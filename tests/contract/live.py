"""A real server for contract tests: the service on one port as the README serves it (honcho and the
``Procfile``: ``coins-realtime`` answers, ``coins-worker`` does what is due), on a free 127.0.0.1 port,
on a fresh SQLite database."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from tests.support.server import serve_roles

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 30


@contextlib.contextmanager
def live_server(directory: Path, workers: int = 2) -> Iterator[str]:
    """Start the service's roles, yield its base URL once /readyz answers, stop them afterwards
    (``workers``: the threads that answer the web app's requests)."""
    settings = {"REALTIME_THREADS": str(4 * workers), "LOG_LEVEL": "WARNING"}  # quiet: the tests read answers
    with serve_roles(directory, cwd=ROOT, start_seconds=START_SECONDS, **settings) as server:
        yield server.url
