"""A tiny webhook receiver for Coins: verifies each delivery's Standard Webhooks signature.

Standard library only. :func:`verify` is the whole check (docs/players.md, "Notifications"): the
HMAC-SHA256, keyed with the secret's bytes, of ``<webhook-id>.<webhook-timestamp>.<body>``, in
base64, must be one of the ``v1,`` signatures in ``webhook-signature``, and the timestamp within
five minutes of now (a replayed old delivery is refused). :class:`Receiver` serves HTTPS (with
``--tls-cert`` and ``--tls-key``) or plain HTTP behind a proxy that ends TLS, answers ``204`` to a
delivery that verifies (``401`` otherwise) and hands the verified events to whoever waits. Each
connection is served on a thread of its own, its TLS handshake included (at most
``HANDSHAKE_SECONDS``), so an idle or slow client holds up no delivery.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import queue
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOLERANCE_SECONDS = 300
MOST_BODY = 1024 * 1024
HANDSHAKE_SECONDS = 10.0  # a connection's TLS handshake, on its own thread
REQUEST_SECONDS = 30.0  # then each read and write of its request and answer


class Unverified(ValueError):
    """A delivery whose signature or timestamp does not verify."""


def verify(secret: str, headers: Mapping[str, str], body: bytes, now: float | None = None) -> dict[str, Any]:
    """The delivery's event, if its signature is the secret's and its timestamp recent; else Unverified."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    msg_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not msg_id or not timestamp.isdigit() or abs((now or time.time()) - int(timestamp)) > TOLERANCE_SECONDS:
        raise Unverified("missing headers, or a timestamp more than five minutes away")
    expected = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    for signature in headers.get("webhook-signature", "").split():
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(base64.b64decode(value), expected):
            return json.loads(body)  # type: ignore[no-any-return]
    raise Unverified("no signature matches")


class TLSServer(ThreadingHTTPServer):
    """A threading HTTP server that does each connection's TLS handshake on that connection's thread.

    Wrapping the listening socket instead (``context.wrap_socket(server.socket)``) runs every
    handshake inside ``accept()``, on the one thread that accepts: a client that connects and sends
    nothing would hold up every other connection until it gave up."""

    def __init__(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], context: ssl.SSLContext
    ) -> None:
        self.context = context
        super().__init__(address, handler)

    def finish_request(self, request: socket.socket, client_address: Any) -> None:  # type: ignore[override]
        request.settimeout(HANDSHAKE_SECONDS)
        try:
            connection = self.context.wrap_socket(request, server_side=True)  # the handshake, here
        except (ssl.SSLError, OSError):
            return  # not TLS, or too slow: the plain socket is closed by shutdown_request
        try:
            super().finish_request(connection, client_address)
        finally:
            self.shutdown_request(connection)


class Receiver:
    """An HTTP(S) server on ``host:port`` whose verified deliveries wait in :attr:`events`."""

    def __init__(self, secret: str, host: str, port: int, cert: str | None = None, key: str | None = None) -> None:
        self.secret = secret
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: set[str] = set()  # webhook-ids handled: a retry of one is acknowledged, not handled again
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            timeout = REQUEST_SECONDS

            def do_POST(self) -> None:
                declared = self.headers.get("Content-Length") or "0"
                length = int(declared) if declared.isascii() and declared.isdigit() else -1  # -1: not a length
                if length > MOST_BODY:
                    self.send_response(413)
                elif length < 0:  # a traceback on the bot's terminal and no answer, else (or a wait, for -1)
                    self.send_response(400)
                else:
                    receiver.receive(self, self.rfile.read(length))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        if cert:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(cert, key)
            self.server: ThreadingHTTPServer = TLSServer((host, port), Handler, context)
        else:
            self.server = ThreadingHTTPServer((host, port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def receive(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        headers = {name.lower(): value for name, value in handler.headers.items()}
        try:
            event = verify(self.secret, headers, body)
        except (Unverified, ValueError):
            handler.send_response(401)
            return
        handler.send_response(204)
        if headers["webhook-id"] not in self.seen:
            self.seen.add(headers["webhook-id"])
            self.events.put(event)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
