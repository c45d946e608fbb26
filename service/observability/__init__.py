"""Observability: JSON logs with request ids, Prometheus metrics, and health probes."""

from __future__ import annotations

import flask_smorest
from flask import Flask

from ..config import Settings
from . import health
from .access import RequestIdFilter, current_request_id, init_access
from .logs import configure_logging
from .metrics import init_metrics

__all__ = ["current_request_id", "init_observability"]


def init_observability(app: Flask, settings: Settings, api: flask_smorest.Api) -> None:
    """Log as JSON at ``LOG_LEVEL``, give every request an id, count and time it, serve
    ``/metrics``, and register the ``/healthz`` and ``/readyz`` probes with the API."""
    handler = configure_logging(settings.log_level)
    handler.addFilter(RequestIdFilter())
    init_access(app)
    init_metrics(app)
    api.register_blueprint(health.blp)
