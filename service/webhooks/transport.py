"""One delivery's HTTPS POST, to the very address the policy checked, bounded in time and size.

:func:`post` opens a TCP connection to ``target.address`` (never resolving the name again), wraps it
in TLS for ``target.host`` (SNI, and the certificate verified for that name), sends ``Host:
target.host``, and reads only the status line and headers (``http.client`` caps their number and
length); the body is never read. It follows no redirect (``http.client`` does not): a 3xx is a
failure like any other non-2xx. A watchdog closes the socket once ``seconds`` have passed in all,
so that a receiver that trickles bytes cannot hold a worker longer.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
from collections.abc import Mapping

from .addresses import Target

__all__ = ["SECONDS", "post", "tls_context"]

SECONDS = 10.0  # a delivery's time in all: connect, TLS, request, status and headers
USER_AGENT = "coins-webhooks/1"


def tls_context(ca_bundle: str = "") -> ssl.SSLContext:
    """The TLS settings of deliveries: the system's CAs, or ``ca_bundle``'s (the tests' own CA)."""
    context = ssl.create_default_context(cafile=ca_bundle or None)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


class _PinnedConnection(http.client.HTTPSConnection):
    """An HTTPS connection to one checked address, speaking TLS and HTTP for the host name."""

    def __init__(self, target: Target, context: ssl.SSLContext, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=context)
        self._address = target.address
        self._context = context

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        try:
            self.sock = self._context.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def post(
    target: Target, body: bytes, headers: Mapping[str, str], context: ssl.SSLContext, seconds: float = SECONDS
) -> int:
    """POST ``body`` to ``target``; the answer's status (OSError, ssl.SSLError or
    http.client.HTTPException when there is none in time)."""
    connection = _PinnedConnection(target, context, timeout=seconds)
    watchdog = threading.Timer(seconds, connection.close)
    watchdog.daemon = True
    watchdog.start()
    try:
        sent = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "Connection": "close", **headers}
        connection.request("POST", target.path, body=body, headers=sent)
        return connection.getresponse().status
    finally:
        watchdog.cancel()
        connection.close()
