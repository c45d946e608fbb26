"""A real server for contract tests: gunicorn on a free 127.0.0.1 port, on a fresh SQLite database."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.support.server import free_port, serve

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 30


@contextlib.contextmanager
def live_server(directory: Path, workers: int = 2) -> Iterator[str]:
    """Start gunicorn, yield its base URL once /readyz answers, stop it afterwards."""
    port = free_port()
    env = {
        **os.environ,
        "BIND": f"127.0.0.1:{port}",
        "DATABASE_URL": f"sqlite:///{directory / 'coins.sqlite3'}",
        "WEB_CONCURRENCY": str(workers),
        "ACCESS_LOG": "",  # quiet: the tests read answers, not logs
        "GUNICORN_CMD_ARGS": "--no-control-socket",  # else ~/.gunicorn/gunicorn.ctl, shared by every server
    }
    command = [sys.executable, "-m", "gunicorn", "wsgi:app"]
    if (ROOT / "gunicorn.conf.py").exists():
        command[3:3] = ["-c", "gunicorn.conf.py"]
    log = directory / "gunicorn.log"
    with serve(command, port=port, env=env, cwd=ROOT, log=log, start_seconds=START_SECONDS, stop_seconds=15) as server:
        yield server.url
