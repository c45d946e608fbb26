"""Per-request bookkeeping: a request id, one JSON access-log line, and the request metrics.

The id comes from the client's ``X-Request-ID`` when it looks like an id (at most 40 plain
characters, not the request's token or ``Idempotency-Key``), otherwise it is generated; either way the response echoes it. The access line
names the URL rule, never the raw path, and carries no header or body: tokens and cards
stay out of the logs. Its ``game_id`` is the path's only when it has an id's shape (else ``<malformed>``).
"""

from __future__ import annotations

import logging
import os
import re
import time
from typing import Any

from flask import Flask, Request, Response, g, has_request_context, request
from werkzeug.datastructures import Headers

from .metrics import CARDS_PLAYED, GAMES_CREATED, REQUEST_SECONDS, REQUESTS

__all__ = ["REQUEST_ID_HEADER", "RequestIdFilter", "current_request_id", "init_access"]

REQUEST_ID_HEADER = "X-Request-ID"
# A UUID, a ULID, a trace id: short and plain. Longer values look like a token (43 characters) or a
# key, and are replaced, so that a secret sent in the wrong header never reaches a log line.
_SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,39}")
UNMATCHED = "<unmatched>"
# Probes and scrapes come every few seconds: their lines are DEBUG, not INFO.
QUIET_ROUTES = frozenset({"/healthz", "/readyz", "/metrics"})
CREATE_GAME = ("POST", "/v1/games")
PLAY_CARD = ("POST", "/v1/games/<game_id>/plays")
GAME_PATH_PREFIX = "/v1/games/"
# A game id's shape (service.api.context.GAME_ID_PATTERN, which this layer does not import; a test holds
# them equal). A path value of another shape is any text a client sent there, a seat token put in the
# wrong place included: the line says only that it was no id.
_GAME_ID = re.compile(r"[0-9a-hjkmnp-tv-z]{26}")
MALFORMED = "<malformed>"
# Methods a client may invent are one label value, so they cannot grow the metrics without bound.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "OTHER"

log = logging.getLogger("service.access")


def current_request_id() -> str | None:
    """The id of the request being handled, or None outside a request."""
    if not has_request_context():
        return None
    request_id: str | None = g.get("request_id")
    return request_id


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record logged while a request is handled."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            request_id = current_request_id()
            if request_id is not None:
                record.request_id = request_id
        return True


def _request_id(headers: Headers) -> str:
    supplied = headers.get(REQUEST_ID_HEADER, "")
    if supplied and _SANE_ID.fullmatch(supplied) and not _is_token(headers, supplied):
        return str(supplied)
    return os.urandom(16).hex()


def _is_token(headers: Headers, value: str) -> bool:
    """A client that sends its own token or key as (part of) the request id must not get it logged."""
    token = headers.get("Authorization", "").partition(" ")[2].strip()
    key = headers.get("Idempotency-Key", "").strip()
    return any(secret and secret in value for secret in (token, key))


def _start() -> None:
    context = g._get_current_object()  # each attribute of a proxy is a context lookup of its own
    context.request_started = time.perf_counter()
    context.request_id = _request_id(request.headers)


def _finish(response: Response) -> Response:
    context = g._get_current_object()
    started = context.get("request_started")
    if started is None:  # a before_request hook failed before ours ran
        _start()
        started = context.request_started
    seconds = time.perf_counter() - started
    request_id = context.request_id
    headers = response.headers
    headers[REQUEST_ID_HEADER] = request_id

    current: Request = request._get_current_object()  # type: ignore[attr-defined]  # the proxy's object
    rule = current.url_rule
    route = rule.rule if rule is not None else UNMATCHED
    method = current.method if current.method in KNOWN_METHODS else OTHER_METHOD
    status = response.status_code
    _observe(method, route, status, seconds)
    if status == 201:
        if (method, route) == PLAY_CARD:
            CARDS_PLAYED.inc()
        elif (method, route) == CREATE_GAME:
            GAMES_CREATED.inc()

    level = logging.DEBUG if route in QUIET_ROUTES else logging.INFO
    if log.isEnabledFor(level):
        game_id = (current.view_args or {}).get("game_id")
        if game_id is None and status == 201:
            location = headers.get("Location", "")
            if location.startswith(GAME_PATH_PREFIX):
                game_id = location[len(GAME_PATH_PREFIX) :]
        if game_id is not None and not _GAME_ID.fullmatch(game_id):
            game_id = MALFORMED  # it comes from the path: any text a client sends, a secret too
        fields = {
            "method": method,
            "route": route,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "request_id": request_id,
            "game_id": game_id,
            "remote_addr": current.remote_addr,
        }
        # what Logger.log does, less its search of the stack for the caller: known to be here
        args = (method, route, status)
        log.handle(log.makeRecord(log.name, level, __file__, _LINE, "%s %s %d", args, None, "_finish", fields))
    return response


_LINE = _finish.__code__.co_firstlineno


_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def _observe(method: str, route: str, status: int, seconds: float) -> None:
    """Count and time one request; the labelled children are looked up once per label set."""
    key = (method, route, status)
    children = _children.get(key)
    if children is None:
        children = REQUESTS.labels(method, route, str(status)), REQUEST_SECONDS.labels(method, route)
        _children[key] = children
    children[0].inc()
    children[1].observe(seconds)


def init_access(app: Flask) -> None:
    """Give every request an id, and time, count and log it from the first before_request hook on."""
    app.before_request_funcs.setdefault(None, []).insert(0, _start)
    app.after_request(_finish)
