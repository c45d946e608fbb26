"""One delivery's HTTPS POST, to the very address the policy checked, bounded in time and size.

:func:`post` opens a TCP connection to ``target.address`` (never resolving the name again), wraps it
in TLS for ``target.host`` (SNI, and the certificate verified for that name), sends ``Host:
target.host``, and reads the status line and headers (``http.client`` caps their number and
length). It follows no redirect (``http.client`` does not): a 3xx is a failure like any other
non-2xx. It takes ``seconds`` in all, so that a receiver that trickles bytes cannot hold a worker
longer: the connection's TLS socket (:class:`_DeadlineSocket`, which the TLS context makes) gives each
of its reads and writes only the time left to the try, as the connect and the handshake get it.

:class:`Connections` is the same POST over kept-alive connections (the worker's deliveries: a TLS
handshake per delivery is most of a delivery's CPU). A connection is kept by the triple it was
opened for, (checked address, port, host name), and only a delivery whose own check, made just
before, answered that very triple takes it: a kept connection never reaches an address this
delivery's check did not answer, and its TLS was verified for the same name. It is kept only when
the receiver keeps it open and its answer's body is short (read, at most :data:`MOST_BODY` bytes),
for :data:`IDLE_SECONDS` at most, :data:`MOST_IDLE` in all. A kept connection the receiver closed
meanwhile fails before any answer; the delivery is then sent once more on a new connection.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from typing import Any

from .addresses import Target

__all__ = ["IDLE_SECONDS", "MOST_BODY", "MOST_IDLE", "SECONDS", "Connections", "post", "tls_context"]

SECONDS = 10.0  # a delivery's time in all: connect, TLS, request, status and headers
USER_AGENT = "coins-webhooks/1"
IDLE_SECONDS = 15.0  # a kept connection unused this long is closed (receivers close theirs near here)
MOST_IDLE = 64  # kept connections in all, oldest closed first
MOST_BODY = 4096  # an answer's body read to keep its connection; a longer one closes it
_KEY = tuple[str, int, str]  # (checked address, port, host name)


def tls_context(ca_bundle: str = "") -> ssl.SSLContext:
    """The TLS settings of deliveries: the system's CAs, or ``ca_bundle``'s (the tests' own CA); its
    sockets keep to their try's deadline (:class:`_DeadlineSocket`)."""
    context = ssl.create_default_context(cafile=ca_bundle or None)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.sslsocket_class = _DeadlineSocket
    return context


class _DeadlineSocket(ssl.SSLSocket):
    """A TLS socket whose every read and write may take only what is left until ``deadline`` (a
    :func:`time.monotonic` time; None: its own timeout for each): a receiver that sends a byte now
    and then cannot stretch a try."""

    deadline: float | None = None

    def read(self, len: int = 1024, buffer: Any = None) -> Any:  # SSLSocket's own names
        self._keep_to_deadline()
        return super().read(len, buffer)

    def write(self, data: Any) -> int:
        self._keep_to_deadline()
        return super().write(data)

    def _keep_to_deadline(self) -> None:
        if self.deadline is not None:
            self.settimeout(_left(self.deadline))


def _left(deadline: float) -> float:
    """Seconds until ``deadline``; a TimeoutError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the delivery's time is up")
    return left


class _PinnedConnection(http.client.HTTPSConnection):
    """An HTTPS connection to one checked address, speaking TLS and HTTP for the host name, each
    exchange within its own deadline (:meth:`start`)."""

    def __init__(self, target: Target, context: ssl.SSLContext, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=context)
        self.address = target.address
        self._context = context
        self.deadline = time.monotonic() + timeout

    def start(self, seconds: float) -> None:
        """The next exchange, the connect and the handshake included when they are still to come,
        has ``seconds`` in all."""
        self.deadline = time.monotonic() + seconds
        if isinstance(self.sock, _DeadlineSocket):
            self.sock.deadline = self.deadline

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), _left(self.deadline))
        try:
            # As http.client's own connect: a request's head and body are two writes, and with Nagle's
            # algorithm the body waits for the receiver's delayed ACK of the head (about 40 ms a delivery).
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            raw.settimeout(_left(self.deadline))  # the handshake's time: what the connect left
            self.sock = self._context.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise
        if isinstance(self.sock, _DeadlineSocket):
            self.sock.deadline = self.deadline


def _key(target: Target) -> _KEY:
    return (target.address, target.port, target.host)


def _exchange(
    connection: _PinnedConnection, target: Target, body: bytes, headers: Mapping[str, str], seconds: float, keep: bool
) -> tuple[int, bool]:
    """POST on ``connection`` within ``seconds``: the status, and whether the connection may be kept
    (``keep`` asked it, the receiver keeps it, the body was short and read in time)."""
    connection.start(seconds)
    sent = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
    if not keep:
        sent["Connection"] = "close"
    connection.request("POST", target.path, body=body, headers=sent)
    response = connection.getresponse()
    kept = keep and not response.will_close and response.length is not None and response.length <= MOST_BODY
    if kept:
        response.read(MOST_BODY)
    return response.status, kept and connection.sock is not None


def post(
    target: Target, body: bytes, headers: Mapping[str, str], context: ssl.SSLContext, seconds: float = SECONDS
) -> int:
    """POST ``body`` to ``target`` on a connection of its own; the answer's status (OSError,
    ssl.SSLError or http.client.HTTPException when there is none in time)."""
    connection = _PinnedConnection(target, context, timeout=seconds)
    try:
        return _exchange(connection, target, body, headers, seconds, keep=False)[0]
    finally:
        connection.close()


class Connections:
    """Kept-alive delivery connections (see the module's docstring); safe across threads."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self._context = context
        self._idle: dict[_KEY, list[tuple[float, _PinnedConnection]]] = {}
        self._lock = threading.Lock()

    def post(self, target: Target, body: bytes, headers: Mapping[str, str], seconds: float = SECONDS) -> int:
        """As :func:`post`, on a kept connection opened for ``target``'s very address, port and name
        when there is one."""
        kept = self._take(target)
        if kept is not None:
            try:
                return self._send(kept, target, body, headers, seconds)
            except (ConnectionResetError, BrokenPipeError, ssl.SSLEOFError, ssl.SSLZeroReturnError):
                pass  # the receiver closed it while it was idle: once more on a new one
        return self._send(_PinnedConnection(target, self._context, timeout=seconds), target, body, headers, seconds)

    def _send(
        self, connection: _PinnedConnection, target: Target, body: bytes, headers: Mapping[str, str], seconds: float
    ) -> int:
        keep = False
        try:
            status, keep = _exchange(connection, target, body, headers, seconds, keep=True)
            return status
        finally:
            if keep:
                self._give(target, connection)
            else:
                connection.close()

    def _take(self, target: Target) -> _PinnedConnection | None:
        now = time.monotonic()
        with self._lock:
            kept = self._idle.get(_key(target), [])
            while kept:
                since, connection = kept.pop()
                if now - since < IDLE_SECONDS:
                    return connection
                connection.close()
        return None

    def _give(self, target: Target, connection: _PinnedConnection) -> None:
        """Keep ``connection`` for ``target``'s triple; close those idle too long, then the oldest
        beyond :data:`MOST_IDLE`."""
        assert connection.address == target.address
        now = time.monotonic()
        with self._lock:
            self._idle.setdefault(_key(target), []).append((now, connection))
            every = sorted(
                ((since, key, held) for key, kept in self._idle.items() for since, held in kept),
                key=lambda item: item[0],
            )
            for number, (since, key, held) in enumerate(every):
                if now - since >= IDLE_SECONDS or number < len(every) - MOST_IDLE:
                    self._idle[key].remove((since, held))
                    held.close()
            self._idle = {key: kept for key, kept in self._idle.items() if kept}

    def close(self) -> None:
        """Close every kept connection."""
        with self._lock:
            for kept in self._idle.values():
                for _, connection in kept:
                    connection.close()
            self._idle.clear()
