"""A webhook receiver for tests: a local HTTPS server with its own CA (trustme), on 127.0.0.1.

Its certificate is for the name :data:`HOST` only, which resolves nowhere: the service reaches it
only through the tests' resolver (which answers 127.0.0.1) and verifies it for that name, as a
delivery to a real host does. It keeps every request it gets and answers the statuses queued in
``answers`` (then 204), a request to a path in ``held`` once its event is set. It keeps
connections alive (HTTP/1.1), as receivers do, and counts them; :meth:`Receiver.drop_connections`
closes the open ones (a receiver closing idle connections), as stopping it does. A client that does
not trust its certificate ends the handshake: counted in ``refused_handshakes``, not printed as a
server error (the tests' own case: a delivery that must not verify).
"""

from __future__ import annotations

import socket
import ssl
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import trustme

__all__ = ["HOST", "Receiver", "Received", "receiver"]

HOST = "hooks.test"


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = 0.0  # time.monotonic() on arrival (bench/webhooks.py)


@dataclass
class Receiver:
    port: int
    ca_file: str
    received: list[Received] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    host: str = HOST
    connections: int = 0  # accepted in all
    refused_handshakes: int = 0  # TLS handshakes the client broke off (it did not trust the certificate)
    open: set[ssl.SSLSocket] = field(default_factory=set)
    held: dict[str, threading.Event] = field(default_factory=dict)  # by path: answer once set (10 s at most)

    def drop_connections(self) -> None:
        for connection in list(self.open):
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    @property
    def url(self) -> str:
        return f"https://{self.host}:{self.port}/hook"


@contextmanager
def receiver(directory: Path, *, ca: trustme.CA | None = None, host: str = HOST, port: int = 0) -> Iterator[Receiver]:
    """A running receiver, its CA's certificate written in ``directory``. The benches name their own
    ``ca`` (a receiver stopped and started again keeps it), ``host`` (the certificate's name: an
    address such as 127.0.0.1 for a service in another process, which the system's resolver reaches)
    and ``port`` (0: a free one)."""
    ca = ca or trustme.CA()
    ca_file = directory / "webhook-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(host).configure_cert(context)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:  # TLS in the connection's own thread, not in the accepting one
            self.request = context.wrap_socket(self.request, server_side=True)
            kept.connections += 1
            kept.open.add(self.request)
            super().setup()

        def finish(self) -> None:
            kept.open.discard(self.request)
            super().finish()

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {k.lower(): v for k, v in self.headers.items()}
            kept.received.append(Received(self.path, headers, body, time.monotonic()))
            if self.path in kept.held:
                kept.held[self.path].wait(10.0)
            status = kept.answers.pop(0) if kept.answers else 204
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            if isinstance(sys.exc_info()[1], ssl.SSLError):
                kept.refused_handshakes += 1
            else:
                super().handle_error(request, client_address)  # type: ignore[arg-type]

    server = Server(("127.0.0.1", port), Handler)
    kept = Receiver(server.server_address[1], str(ca_file), host=host)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield kept
    finally:
        server.shutdown()
        server.server_close()
        kept.drop_connections()
