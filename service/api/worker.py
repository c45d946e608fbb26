"""The gunicorn worker: gthread, whose own refusals of requests it cannot read are the service's problems.

gunicorn answers a request it cannot parse itself, before the application sees it
(``gunicorn.workers.base.Worker.handle_error``): a request line over ``limit_request_line`` (414),
too many header fields or one over ``limit_request_field_size`` (431), a malformed request line,
header or chunked body (400). Its page is HTML, with none of the headers every answer of the
service carries. :class:`Worker` overrides only that public method, and only for those three: it
answers them as ``application/problem+json`` (codes ``uri_too_long``, ``header_fields_too_large``
and ``bad_request``, listed in the spec) with the security headers (:func:`.refusals.problem`), and
logs the refusal by its kind, never the text that gunicorn would quote (the request line or a
header, which may hold a token). Every other failure (the application's, a proxy-protocol line, TLS)
is gunicorn's own handling. ``gunicorn.conf.py`` names it as its ``worker_class``.
"""

from __future__ import annotations

from typing import Any

from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers.gthread import ThreadWorker

from .refusals import REASONS, problem

__all__ = ["Worker", "refusal"]

_MALFORMED = (
    errors.InvalidRequestLine,
    errors.InvalidRequestMethod,
    errors.InvalidHTTPVersion,
    errors.InvalidHeader,
    errors.InvalidHeaderName,
    errors.ObsoleteFolding,
    errors.InvalidSchemeHeaders,
    errors.InvalidChunkSize,
    errors.ChunkMissingTerminator,
    errors.InvalidChunkExtension,
)


def refusal(error: BaseException) -> str | None:
    """The problem code of a request gunicorn could not read; None for any other failure."""
    if isinstance(error, errors.InvalidResponseHeader | errors.InvalidResponseHeaderName):
        return None  # a header the application sent: its fault, gunicorn's 500
    if isinstance(error, errors.LimitRequestLine):
        return "uri_too_long"
    if isinstance(error, errors.LimitRequestHeaders):
        return "header_fields_too_large"
    return "bad_request" if isinstance(error, _MALFORMED) else None


def problem_bytes(code: str) -> bytes:
    """The whole HTTP/1.1 answer of the problem ``code``: status line, headers and body."""
    status, headers, body = problem(code)
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return f"HTTP/1.1 {status} {REASONS[status]}\r\n{head}\r\n".encode("latin-1") + body


class Worker(ThreadWorker):  # type: ignore[misc]  # gunicorn ships no types
    """gunicorn's gthread worker, answering the requests it cannot read as problems."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        code = refusal(exc)
        if code is None:
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s (%s)", (addr or ("",))[0], type(exc).__name__, code)
        try:
            util.write_nonblock(client, problem_bytes(code))
        except Exception:  # the client went away: as gunicorn does, nothing more to tell it
            self.log.debug("Failed to send error message.")
