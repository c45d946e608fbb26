"""What the asyncio benchmarks share: one keep-alive HTTP/1.1 connection, a percentile, the
service on one port as the README serves it (``coins-realtime``: every role's requests, with
``coins-worker`` beside it), and a wait until its worker is up."""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.server import LiveServer, free_port, serve, worker_beside

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
START_TIMEOUT = 180.0  # seconds for the server to answer /readyz on a busy machine
REQUEST_TIMEOUT = 30.0
WORKER_SECONDS = 60.0  # the worker up (as /readyz says) by then, or the run fails


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


@contextmanager
def one_port(name: str, database_url: str, workdir: Path, env: dict[str, str], log_level: str) -> Iterator[LiveServer]:
    """``coins-realtime`` on a free port of 127.0.0.1 (limits off: one address plays everything), and
    ``coins-worker`` beside it."""
    port = free_port()
    environment = {
        **os.environ,
        **env,
        "BIND": f"{HOST}:{port}",
        "DATABASE_URL": database_url,
        "LOG_LEVEL": log_level,
        "RATE_LIMITS": "off",
    }
    command = [str(Path(sys.executable).with_name("coins-realtime"))]
    log = workdir / f"{name}-{port}.log"
    with (
        serve(command, port=port, env=environment, cwd=REPO, log=log, start_seconds=START_TIMEOUT) as live,
        worker_beside(environment, cwd=REPO, log=workdir / f"{name}-worker-{port}.log"),
    ):
        yield live


class HttpError(Exception):
    pass


class Http:
    """One keep-alive HTTP/1.1 connection on asyncio streams, reopened when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        try:
            self.writer.write(head.encode() + payload)
            raw = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
            status = int(raw[9:12])
            headers = raw.lower()
            match = re.search(rb"content-length:\s*(\d+)", headers)
            length = int(match.group(1)) if match else 0
            data = await asyncio.wait_for(self.reader.readexactly(length), REQUEST_TIMEOUT) if length else b""
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError) as error:
            self.close()
            raise HttpError(type(error).__name__) from error
        if b"connection: close" in headers:
            self.close()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = None
        return status, parsed

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def worker_up(port: int) -> None:
    """Return once ``/readyz`` says the worker is up: matching and the feeds' fan-out are its work, so
    a measure begun before it started would time its start-up (a second or two) as a latency."""
    http = Http(port)
    deadline = time.perf_counter() + WORKER_SECONDS
    try:
        for _ in range(int(WORKER_SECONDS / 0.1)):
            status, ready = await http.call("GET", "/readyz")
            if status == 200 and ready["roles"]["worker"] == "up":
                return
            if time.perf_counter() > deadline:
                break
            await asyncio.sleep(0.1)
    finally:
        http.close()
    raise RuntimeError(f"the worker was not up after {WORKER_SECONDS:.0f} s")
