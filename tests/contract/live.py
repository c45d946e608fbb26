"""A real server for contract tests: gunicorn on a free 127.0.0.1 port, on a fresh SQLite database."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


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
    log = (directory / "gunicorn.log").open("w")
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _ready(url):
            if server.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError(f"gunicorn did not start:\n{(directory / 'gunicorn.log').read_text()[-3000:]}")
            time.sleep(0.1)
        yield url
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
