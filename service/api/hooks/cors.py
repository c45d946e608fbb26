"""CORS for browser frontends: the origins of ``CORS_ORIGINS`` may call the API; none when it is empty."""

from __future__ import annotations

from collections.abc import Sequence

from flask import Flask
from flask_cors import CORS

__all__ = ["ALLOW_HEADERS", "EXPOSE_HEADERS", "init_cors"]

EXPOSE_HEADERS = ("ETag", "Location", "Link", "X-Request-ID", "Retry-After", "WWW-Authenticate")
ALLOW_HEADERS = ("Authorization", "Content-Type", "If-Match", "If-None-Match", "X-Request-ID")
METHODS = ("GET", "HEAD", "POST", "OPTIONS")
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
