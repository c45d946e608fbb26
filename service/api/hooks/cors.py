"""CORS for browser frontends: the origins of ``CORS_ORIGINS`` may call the API; none when it is empty.

A browser may use every method the API has (``DELETE`` cancels a quick-play ticket, ``PATCH`` changes
a player's settings), send every
header the API reads (``Authorization`` with a seat token or a player key, ``Idempotency-Key`` on
POSTs, ``Last-Event-ID`` when a ``fetch`` resumes a stream) and read every header it answers with (``Idempotent-Replayed``
on a retry's answer, ``Deprecation`` and ``Sunset`` on a deprecated operation's). The answer for an allowed origin differs from the one for any other (or none),
so it always says ``Vary: Origin``, with one allowed origin too: a cache must not hand one to the other.
"""

from __future__ import annotations

from collections.abc import Sequence

from flask import Flask, Response, request
from flask_cors import CORS

from ..idempotency import HEADER as IDEMPOTENCY_KEY
from ..idempotency import REPLAYED

__all__ = ["ALLOW_HEADERS", "EXPOSE_HEADERS", "init_cors"]

EXPOSE_HEADERS = (
    "ETag",
    "Location",
    "Link",
    "X-Request-ID",
    "Retry-After",
    "WWW-Authenticate",
    REPLAYED,
    "Deprecation",  # with Sunset, on the answers of what is deprecated (api/deprecation.py)
    "Sunset",
    "RateLimit",  # with RateLimit-Policy, on the answers of limited operations (hooks/limits.py)
    "RateLimit-Policy",
)
ALLOW_HEADERS = (
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "X-Request-ID",
    IDEMPOTENCY_KEY,
    "Last-Event-ID",
)
CORS_PATHS = ("/v1/", "/openapi.json")  # as the resources below
METHODS = ("GET", "HEAD", "POST", "PATCH", "DELETE", "OPTIONS")  # every method of the API's routes (a test checks)
PREFLIGHT_MAX_AGE = 600


def init_cors(app: Flask, origins: Sequence[str]) -> None:
    """Answer preflights and add CORS headers for the API and its spec. Tokens travel in
    ``Authorization``, never in cookies, so credentials mode stays off."""
    if not origins:
        return
    CORS(
        app,
        resources={r"/v1/*": {}, r"/openapi.json": {}},
        origins=list(origins),
        methods=list(METHODS),
        allow_headers=list(ALLOW_HEADERS),
        expose_headers=list(EXPOSE_HEADERS),
        supports_credentials=False,
        max_age=PREFLIGHT_MAX_AGE,
        vary_header=True,
    )

    @app.after_request
    def vary_by_origin(response: Response) -> Response:
        """flask-cors says ``Vary: Origin`` only when more than one origin is allowed."""
        if request.path.startswith(CORS_PATHS):
            response.vary.add("Origin")
        return response
