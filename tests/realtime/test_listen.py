"""Where coins-realtime listens: BIND as the web role's gunicorn takes it (``host:port`` or
``unix:/path``), else every interface on PORT; the README's serve command runs it so."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service.realtime.server import listen_address


@pytest.mark.parametrize(
    ("bind", "port", "expected"),
    [
        ("", "9000", {"host": "0.0.0.0", "port": 9000}),
        ("127.0.0.1:8001", "9000", {"host": "127.0.0.1", "port": 8001}),
        ("[::1]:8002", "", {"host": "::1", "port": 8002}),
        ("unix:/run/coins.sock", "", {"uds": "/run/coins.sock"}),
    ],
)
def test_bind_wins_over_port(monkeypatch: pytest.MonkeyPatch, bind: str, port: str, expected: dict[str, object]):
    monkeypatch.setenv("BIND", bind)
    monkeypatch.setenv("PORT", port)
    assert listen_address() == expected


@pytest.mark.parametrize("bind", ["8000", "unix:", "localhost:http"])
def test_a_bind_it_cannot_read_stops_it_with_its_name(monkeypatch: pytest.MonkeyPatch, bind: str):
    monkeypatch.setenv("BIND", bind)
    with pytest.raises(SystemExit, match="BIND must be host:port or unix:/path"):
        listen_address()


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=5)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(self._path)


def test_it_serves_on_a_unix_socket(tmp_path: Path):
    path = str(tmp_path / "coins.sock")
    env = {**os.environ, "BIND": f"unix:{path}", "DATABASE_URL": f"sqlite:///{tmp_path / 'c.sqlite3'}"}
    env["LOG_LEVEL"] = "WARNING"
    command = [str(Path(sys.executable).parent / "coins-realtime")]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, status = time.monotonic() + 30, 0
        while time.monotonic() < deadline and process.poll() is None:
            if os.path.exists(path):
                try:
                    connection = _UnixConnection(path)
                    connection.request("GET", "/healthz")
                    status = connection.getresponse().status
                    connection.close()
                    break
                except OSError:
                    pass
            time.sleep(0.1)
        assert status == 200, process.stderr.read() if process.poll() is not None else "no answer in 30 s"
    finally:
        process.terminate()
        process.wait(timeout=30)
