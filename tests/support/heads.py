"""Requests whose head is over gunicorn's limits (``service.api.refusals``): raw bytes, the status and
the problem code each is answered with, by gunicorn's worker and by the real-time process alike."""

from __future__ import annotations

import pytest

OVER_THE_LIMITS = [
    pytest.param(
        b"GET /v1/games?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long", id="request-line"
    ),
    pytest.param(
        b"GET /v1/games HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
        431,
        "header_fields_too_large",
        id="header-size",
    ),
    pytest.param(
        b"GET /v1/games HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: y\r\n" % n for n in range(120)) + b"\r\n",
        431,
        "header_fields_too_large",
        id="header-count",
    ),
]
