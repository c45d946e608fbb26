"""The real-time process, which serves every request on one machine (uvicorn, with no limits of its
own on a request's head), refuses a request line or headers over gunicorn's limits as the web role
does: a problem with its code and the security headers, the connection closed after it."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from service.api.hooks.security_headers import DEFAULT_CSP, SECURITY_HEADERS
from service.api.refusals import MAX_FIELD_BYTES, MAX_FIELDS, MAX_LINE_BYTES, refusal_of_head
from tests.support.heads import OVER_THE_LIMITS
from tests.support.realtime import Realtime


def _send(port: int, raw: bytes) -> tuple[int, http.client.HTTPMessage, dict]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(raw)
        response = http.client.HTTPResponse(connection)
        response.begin()
        return response.status, response.headers, json.loads(response.read())


@pytest.mark.parametrize(("raw", "status", "code"), OVER_THE_LIMITS)
def test_a_head_over_the_limits_is_refused_as_a_problem(realtime: Realtime, raw: bytes, status: int, code: str) -> None:
    answered, headers, body = _send(realtime.port, raw)
    assert answered == status
    assert headers["Content-Type"] == "application/problem+json" and headers["Connection"] == "close"
    for name, value in {**SECURITY_HEADERS, "Content-Security-Policy": DEFAULT_CSP}.items():
        assert headers[name] == value
    assert body["code"] == code and body["status"] == status
    assert "b" * 100 not in json.dumps(body)
    assert realtime.get("/v1/games")[0] == 200  # and it serves on


def test_the_limits_are_gunicorns_own() -> None:
    assert refusal_of_head("GET", b"/" + b"a" * (MAX_LINE_BYTES - 14), []) is None  # "GET /… HTTP/1.1": 4,094 bytes
    assert refusal_of_head("GET", b"/" + b"a" * (MAX_LINE_BYTES - 13), []) == "uri_too_long"
    fields = [(b"x-%d" % n, b"y") for n in range(MAX_FIELDS)]
    assert refusal_of_head("GET", b"/", fields) is None
    assert refusal_of_head("GET", b"/", [*fields, (b"x", b"y")]) == "header_fields_too_large"
    assert refusal_of_head("GET", b"/", [(b"x", b"y" * (MAX_FIELD_BYTES - 3))]) is None
    assert refusal_of_head("GET", b"/", [(b"x", b"y" * (MAX_FIELD_BYTES - 2))]) == "header_fields_too_large"


def test_a_long_head_within_the_limits_is_served(realtime: Realtime) -> None:
    """32 KB of headers, each field within gunicorn's limits: served, as the web role serves it."""
    fields = b"".join(b"X-Long-%d: %s\r\n" % (number, b"y" * 8000) for number in range(4))
    raw = b"GET /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n" + fields + b"\r\n"
    answered, _, body = _send(realtime.port, raw)
    assert answered == 200 and isinstance(body["items"], list)
