"""Observability: JSON logs with request ids, and Prometheus metrics."""

from __future__ import annotations

from flask import Flask

from ..config import Settings
from .access import RequestIdFilter, current_request_id, init_access
from .logs import configure_logging
from .metrics import init_metrics

__all__ = ["current_request_id", "init_observability"]


def init_observability(app: Flask, settings: Settings) -> None:
    """Log as JSON at ``LOG_LEVEL``, give every request an id, count and time it, serve ``/metrics``
    (to ``METRICS_TOKEN``'s bearer only, when it is set)."""
    handler = configure_logging(settings.log_level)
    handler.addFilter(RequestIdFilter())
    init_access(app)
    init_metrics(app, token=settings.metrics_token)
