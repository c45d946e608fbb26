"""A TCP proxy in front of a server that can cut every connection through it at once: a dropped
connection, as a restart or a flaky network makes one, for the feed readers to survive."""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType

HOST = "127.0.0.1"
CHUNK = 65536


class CuttingProxy:
    """Listens on a free port of 127.0.0.1 and forwards each connection to ``upstream_port``.
    ``cut()`` closes every open connection; new ones are forwarded as before. ``sent`` holds what the
    clients sent (the requests, headers included), one entry per connection."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._listener = socket.create_server((HOST, 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self.sent: list[bytearray] = []
        self.cuts = 0
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            upstream = socket.create_connection((HOST, self.upstream_port))
            record = bytearray()
            with self._lock:
                self._open += [client, upstream]
                self.sent.append(record)
            threading.Thread(target=self._pump, args=(client, upstream, record), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, None), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, record: bytearray | None) -> None:
        try:
            while data := source.recv(CHUNK):
                if record is not None:
                    record += data
                target.sendall(data)
        except OSError:
            return  # cut
        finally:
            for end in (source, target):
                _close(end)

    def cut(self) -> None:
        """Close every connection open now (both ends), as a dropped network would."""
        with self._lock:
            connections, self._open = self._open, []
            self.cuts += 1
        for connection in connections:
            _close(connection)

    def close(self) -> None:
        self._listener.close()
        self.cut()

    def __enter__(self) -> CuttingProxy:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def _close(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)
    connection.close()
