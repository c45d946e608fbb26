"""Requests refused before the application reads them: a request line or headers over the limits.

gunicorn enforces its limits itself (``limit_request_line``, ``limit_request_fields``,
``limit_request_field_size``; :mod:`.worker` answers its refusals); uvicorn, which serves every
request on one machine (the real-time process, the README's serve command), has no such limits, so
:func:`refusal_of_head` applies gunicorn's defaults to what uvicorn read (``service.realtime.app``).
Both answer with :func:`problem`: ``application/problem+json`` with the security headers, the
connection closed after it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .hooks.security_headers import DEFAULT_CSP, SECURITY_HEADERS
from .problems import PROBLEM_MEDIA_TYPE, PROBLEMS

__all__ = ["MAX_FIELD_BYTES", "MAX_FIELDS", "MAX_LINE_BYTES", "REASONS", "problem", "refusal_of_head"]

MAX_LINE_BYTES = 4094  # the request line: gunicorn's limit_request_line
MAX_FIELDS = 100  # header fields: gunicorn's limit_request_fields
MAX_FIELD_BYTES = 8190  # one header field, its name and value: gunicorn's limit_request_field_size

_DETAILS = {
    "uri_too_long": "the request line is longer than this server reads",
    "header_fields_too_large": "the request has more header fields, or a longer one, than this server reads",
    "bad_request": "the request is not well-formed HTTP (its request line, a header or its chunked body)",
}
REASONS = {400: "Bad Request", 414: "URI Too Long", 431: "Request Header Fields Too Large"}


def refusal_of_head(method: str, target: bytes, headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The problem code of a request whose head is over the limits (``target``: its path and query
    as sent), or None."""
    if len(method) + len(target) + len(" HTTP/1.1") + 1 > MAX_LINE_BYTES:
        return "uri_too_long"
    for count, (name, value) in enumerate(headers, start=1):
        if count > MAX_FIELDS or len(name) + len(": ") + len(value) > MAX_FIELD_BYTES:
            return "header_fields_too_large"
    return None


def problem(code: str) -> tuple[int, list[tuple[str, str]], bytes]:
    """The answer to a refused request: its status, headers and body (the connection closes after it:
    what was left unread of the request cannot be trusted)."""
    status, title = PROBLEMS[code]
    body = json.dumps(
        {"type": f"urn:coins:problem:{code}", "title": title, "status": status, "detail": _DETAILS[code], "code": code}
    ).encode()
    headers = [
        ("Connection", "close"),
        ("Content-Type", PROBLEM_MEDIA_TYPE),
        ("Content-Length", str(len(body))),
        *SECURITY_HEADERS.items(),
        ("Content-Security-Policy", DEFAULT_CSP),
    ]
    return status, headers, body
