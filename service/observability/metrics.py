"""Prometheus metrics: requests by route and status, their latency, games created, cards played,
and the streams the real-time role holds.

Under gunicorn the workers are separate processes, so with ``PROMETHEUS_MULTIPROC_DIR`` set
(gunicorn.conf.py sets it) prometheus_client keeps each worker's values in files there and
``/metrics`` adds them up across workers. Without it (tests, ``flask run``) the values live
in this process's default registry.
"""

from __future__ import annotations

import errno
import hmac
import os
from collections.abc import Iterable
from pathlib import Path

from flask import Flask, Response, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client import multiprocess as prometheus_multiprocess
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from werkzeug.datastructures import WWWAuthenticate
from werkzeug.exceptions import Unauthorized

__all__ = [
    "CARDS_PLAYED",
    "GAMES_CREATED",
    "REQUESTS",
    "REQUEST_SECONDS",
    "STREAMS_HELD",
    "init_metrics",
    "render_metrics",
]

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _multiprocess_directory() -> None:
    """Before the first metric: prometheus_client writes each one's file into PROMETHEUS_MULTIPROC_DIR at
    once, and a directory that was missing stopped every command (coins-migrate, -worker, -realtime) with a
    traceback. A missing directory is made; one that cannot be, or spaces (which prometheus_client, read
    before this, takes for a directory), stop the process with one line."""
    raw = os.environ.get(MULTIPROC_ENV, "")
    path = raw.strip()
    try:
        if raw and not path:
            raise OSError(errno.EINVAL, "spaces name no directory (leave it empty, or unset)")
        if path:
            os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise SystemExit(
            f"{MULTIPROC_ENV} must be a directory this process can write, not {raw!r}: {error.strerror}"
        ) from None


_multiprocess_directory()
disable_created_metrics()  # type: ignore[no-untyped-call]  # no `*_created` series: scrapers do not need them, and they double the output

REQUESTS = Counter(
    "coins_http_requests",
    "HTTP requests answered, by method, route (the URL rule, never a raw path) and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "coins_http_request_duration_seconds",
    "Time from the request reaching the app to its response, by method and route.",
    ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
GAMES_CREATED = Counter("coins_games_created", "Games created (createGame answered 201).")
STREAMS_HELD = Gauge(
    "coins_streams_held",
    "Event streams and waiting long polls the real-time role's processes hold now.",
    multiprocess_mode="livesum",
)
ROLE_UP = Gauge(
    "coins_role_up",
    "1 while a process of the role (worker, realtime) was seen within the last 15 s, else 0: as /readyz last found.",
    ["role"],
    multiprocess_mode="mostrecent",
)
ROLE_LISTENING = Gauge(
    "coins_role_listening",
    "1 while every process of the role (worker, realtime) seen within the last 15 s hears the changes of games "
    "(its listener is not lost), else 0 (the role down too): as /readyz last found.",
    ["role"],
    multiprocess_mode="mostrecent",
)
CARDS_PLAYED = Counter(
    "coins_cards_played",
    "Cards played by players (playCard answered 201); moves the server makes for bot seats and stand-ins are not counted.",
)


def render_metrics() -> tuple[bytes, str]:
    """The exposition text: every worker's values in multiprocess mode, this process's otherwise."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        registry.register(WorkersFiles(os.environ[MULTIPROC_ENV]))
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


class WorkersFiles(Collector):
    """Every worker's values, as prometheus_client's MultiProcessCollector reads them, minus the files
    a worker has created and not yet sized. prometheus_client creates a worker's file for a kind of
    metric, then sizes it; a scrape in between failed on the empty file (struct.error, a 500) and lost
    every value with it (prometheus/client_python#1199). An empty file holds no values yet, and one
    gone since the listing is a dead worker's live gauge: neither is read."""

    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)

    def collect(self) -> Iterable[Metric]:
        return prometheus_multiprocess.MultiProcessCollector.merge(  # type: ignore[no-any-return,no-untyped-call]
            [str(path) for path in self.directory.glob("*.db") if _sized(path)], accumulate=True
        )


def _sized(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except FileNotFoundError:
        return False


def init_metrics(app: Flask, token: str = "") -> None:
    """Serve ``GET /metrics`` (outside the versioned API and its spec); with ``token``
    (``METRICS_TOKEN``) only to requests that send ``Authorization: Bearer <token>``."""

    def metrics() -> Response:
        if token and not _bearer_is(token):
            challenge = WWWAuthenticate("bearer", {"realm": "metrics"})
            raise Unauthorized("send METRICS_TOKEN as 'Authorization: Bearer <token>'", www_authenticate=challenge)
        body, content_type = render_metrics()
        return Response(body, content_type=content_type)

    app.add_url_rule("/metrics", endpoint="metrics", view_func=metrics, methods=["GET"])


def _bearer_is(token: str) -> bool:
    """Whether the request's ``Authorization`` is ``Bearer <token>``, compared in constant time."""
    scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(sent.strip().encode(), token.encode())
