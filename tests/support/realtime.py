"""The real-time role in the test's own process: :class:`RealtimeApp` around a test's Flask app, on
uvicorn in a thread, on a free port of 127.0.0.1. The test's ``client`` (Flask's test client) talks
to the same app as the web role would; streams and long polls that wait go to this server.

    with realtime_role(app, settings) as realtime:
        status, headers, body = realtime.get(f"/v1/games/{game_id}/events?after=0&wait=5")
        with realtime.stream(f"/v1/games/{game_id}/events") as stream: ...
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from flask import Flask

from service.config import Settings
from service.realtime import RealtimeApp, realtime_app
from tests.support.server import HOST, free_port
from tests.support.sse import EventStream

START_SECONDS = 10.0


@dataclass
class Realtime:
    port: int
    app: RealtimeApp

    def get(
        self, path: str, headers: dict[str, str] | None = None, timeout: float = 40.0
    ) -> tuple[int, dict[str, str], Any]:
        """One request: its status, headers and JSON body (None when empty)."""
        connection = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            connection.request("GET", path, headers={"Accept": "application/json", **(headers or {})})
            response = connection.getresponse()
            raw = response.read()
            return response.status, dict(response.getheaders()), json.loads(raw) if raw else None
        finally:
            connection.close()

    def stream(self, path: str, *, token: str | None = None, **options: Any) -> EventStream:
        """An open Server-Sent Events stream of ``path`` (a feed's path)."""
        return EventStream(self.port, "", token=token, path=path, **options)


@contextmanager
def realtime_role(web: Flask, settings: Settings) -> Iterator[Realtime]:
    """The real-time role around ``web`` until the block ends (then its streams end and it stops)."""
    port = free_port()
    app = realtime_app(web, settings, threads=4)
    config = uvicorn.Config(
        app,
        host=HOST,
        port=port,
        lifespan="on",
        log_config=None,
        access_log=False,
        proxy_headers=False,
        http="httptools",
        loop="asyncio",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="coins-test-realtime", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the real-time role did not start"
        time.sleep(0.02)
    try:
        yield Realtime(port, app)
    finally:
        app.hub.end_all()
        server.should_exit = True
        thread.join(START_SECONDS)
