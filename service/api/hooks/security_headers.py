"""Security headers on every response: no MIME sniffing, no referrer, no framing.

One ``after_request`` hook, so errors, 304s, event streams, ``/docs`` and ``/metrics`` get them
too. A header a response already carries is kept: the browser client's pages (``/``) set their
own Content-Security-Policy, and only a response without one gets ``frame-ancestors 'none'``.
"""

from __future__ import annotations

from flask import Flask, Response

__all__ = ["DEFAULT_CSP", "SECURITY_HEADERS", "add_security_headers", "init_security_headers"]

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # for browsers that predate CSP's frame-ancestors
}
DEFAULT_CSP = "frame-ancestors 'none'"


def add_security_headers(response: Response) -> Response:
    headers = response.headers
    for name, value in SECURITY_HEADERS.items():
        if name not in headers:
            headers[name] = value
    if "Content-Security-Policy" not in headers:
        headers["Content-Security-Policy"] = DEFAULT_CSP
    return response


def init_security_headers(app: Flask) -> None:
    """Register the hook. Flask runs ``after_request`` hooks last-registered first: call this
    before the other hooks are registered, so it sees what they added."""
    app.after_request(add_security_headers)
