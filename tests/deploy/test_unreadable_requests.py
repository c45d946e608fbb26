"""Requests gunicorn cannot read (too long, too many or too large headers, malformed) are answered by
the service's worker as problems with the security headers, against the deployed server."""

from __future__ import annotations

import http.client
import json
import secrets
import socket
from typing import Any

import pytest
from gunicorn.http import errors

from service.api.hooks.security_headers import DEFAULT_CSP, SECURITY_HEADERS
from service.api.worker import refusal
from tests.support.heads import OVER_THE_LIMITS

from .conftest import Server

SECRET = secrets.token_urlsafe(32)  # sent in a malformed request: never in the server's log


def _send(port: int, raw: bytes) -> tuple[int, http.client.HTTPMessage, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(raw)
        response = http.client.HTTPResponse(connection)
        response.begin()
        body = response.read()
        return response.status, response.headers, json.loads(body)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        *OVER_THE_LIMITS,
        pytest.param(
            b"GET /v1/games HTTP/1.1\r\nHost: x\r\nBearer " + SECRET.encode() + b"\r\n\r\n",
            400,
            "bad_request",
            id="malformed-header",
        ),
        pytest.param(b"GET /v1/games HTTP/9\r\nHost: x\r\n\r\n", 400, "bad_request", id="http-version"),
    ],
)
def test_gunicorns_own_refusals_are_problems_with_the_security_headers(
    server: Server, raw: bytes, status: int, code: str
) -> None:
    answered, headers, body = _send(server.port, raw)
    assert answered == status
    assert headers["Content-Type"] == "application/problem+json"
    assert headers["Connection"] == "close"
    for name, value in {**SECURITY_HEADERS, "Content-Security-Policy": DEFAULT_CSP}.items():
        assert headers[name] == value
    assert body["code"] == code and body["status"] == status and body["type"] == f"urn:coins:problem:{code}"
    assert SECRET not in json.dumps(body) and "b" * 100 not in body["detail"]
    assert SECRET not in server.output()  # the refusal is logged by its kind, not by what was sent
    assert server.request("GET", "/healthz")[0] == 200  # and the worker serves on


def test_only_requests_gunicorn_could_not_read_are_refusals() -> None:
    assert refusal(errors.LimitRequestLine(9000, 8190)) == "uri_too_long"
    assert refusal(errors.InvalidHeader("X")) == "bad_request"
    assert refusal(errors.InvalidResponseHeader("X")) is None  # the application's header: gunicorn's 500
    assert refusal(errors.ForbiddenProxyRequest("10.0.0.1")) is None
    assert refusal(RuntimeError("the application failed")) is None
