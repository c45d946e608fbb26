"""A server process on a free port of 127.0.0.1, for the tests and the benchmarks.

    port = free_port()
    env = {**os.environ, "BIND": f"127.0.0.1:{port}"}
    with serve(["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"], port=port, env=env, cwd=ROOT, log=log) as server:
        ...  # GET /readyz has answered 200 on server.port

The caller tells the program where to listen (``--bind``, ``BIND``, ``PORT``: the command is
its own, the Dockerfile's start script for one), so it picks the port first. On leaving the
block the process gets SIGTERM, then SIGKILL if it has not exited in time. Every wait is
bounded in time and in count; a server that exits or never answers raises ServerError with
the end of its output.

Imported as ``tests.support.server`` with the repository's root on sys.path: pytest puts it
there (``pythonpath`` in pyproject.toml), and the bench/ scripts run as modules from it (``python -m bench.http_load``).
"""

from __future__ import annotations

import http.client
import math
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

HOST = "127.0.0.1"
POLL_SECONDS = 0.1  # between two readiness requests
PROBE_SECONDS = 2.0  # one readiness request
KILL_SECONDS = 10.0  # after SIGKILL
TAIL_BYTES = 4000  # of the output, in a ServerError


class ServerError(RuntimeError):
    """The server exited, or did not answer in time, before it was ready."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on (now: the caller binds it soon after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def answers(port: int, path: str, timeout: float = PROBE_SECONDS) -> bool:
    """Whether GET ``path`` on 127.0.0.1:``port`` answers 200 now."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", path)
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


@dataclass
class LiveServer:
    command: list[str]
    port: int
    process: subprocess.Popen[bytes]
    log: Path  # stdout, and stderr unless stderr_log names a file of its own
    stderr_log: Path | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def log_tail(self, size: int = TAIL_BYTES) -> str:
        """The last ``size`` bytes of the output (of each file, when stderr has its own)."""
        logs = [self.log] if self.stderr_log is None else [self.log, self.stderr_log]
        return "\n".join(f"--- {log}:\n{_tail(log, size)}" for log in logs)


def _tail(path: Path, size: int) -> str:
    try:
        with path.open("rb") as file:
            file.seek(max(0, file.seek(0, 2) - size))
            return file.read().decode(errors="replace")
    except OSError as error:
        return f"({error})"


def wait_until_ready(server: LiveServer, path: str, seconds: float) -> None:
    """Until GET ``path`` answers 200: raise ServerError if the process exits or ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    for _ in range(math.ceil(seconds / POLL_SECONDS) + 1):  # each round takes POLL_SECONDS at least
        if server.process.poll() is not None:
            raise ServerError(
                f"`{shlex.join(server.command)}` exited with code {server.process.returncode} before GET {path} "
                f"answered 200; the end of its output:\n{server.log_tail()}"
            )
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if answers(server.port, path, timeout=min(PROBE_SECONDS, left)):
            return
        time.sleep(POLL_SECONDS)
    raise ServerError(
        f"`{shlex.join(server.command)}` did not answer GET {path} with 200 within {seconds:g} s; "
        f"the end of its output:\n{server.log_tail()}"
    )


def stop(process: subprocess.Popen[bytes], seconds: float) -> int:
    """SIGTERM (unless it has exited), up to ``seconds`` for it to exit, then SIGKILL; its exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(seconds)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait(KILL_SECONDS)


@contextmanager
def serve(
    command: Sequence[str],
    *,
    port: int,
    env: Mapping[str, str],
    cwd: Path,
    log: Path,
    stderr_log: Path | None = None,
    ready_path: str = "/readyz",
    start_seconds: float = 60.0,
    stop_seconds: float = 30.0,
) -> Iterator[LiveServer]:
    """Run ``command`` (which listens on ``port``) until the block ends; enter once ``ready_path`` answers 200.

    Its stdout goes to ``log``, and its stderr too unless ``stderr_log`` is given; stdin is empty."""
    with ExitStack() as files:
        out = files.enter_context(log.open("wb"))
        err: IO[bytes] | int = files.enter_context(stderr_log.open("wb")) if stderr_log else subprocess.STDOUT
        process = subprocess.Popen(
            list(command), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
    server = LiveServer(list(command), port, process, log, stderr_log)
    try:
        wait_until_ready(server, ready_path, start_seconds)
        yield server
    finally:
        stop(process, stop_seconds)


@contextmanager
def serve_roles(folder: Path, *, cwd: Path, start_seconds: float = 60.0, **env: str) -> Iterator[LiveServer]:
    """Every role of the service on one free port of 127.0.0.1, as the README serves them (honcho runs
    the ``Procfile``: ``coins-realtime`` answers every request, ``coins-worker`` does what is due), on a
    fresh SQLite database in ``folder``; ``env`` adds to (or overrides) the environment."""
    port = free_port()
    scripts = Path(sys.executable).parent
    environment = {
        **os.environ,
        "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",  # the Procfile's commands
        "BIND": f"127.0.0.1:{port}",
        "DATABASE_URL": f"sqlite:///{folder / 'coins.sqlite3'}",
        "WORKER_POLL_MS": "100",
        **env,
    }
    command = [str(scripts / "honcho"), "start", "-p", str(port)]
    with serve(
        command, port=port, env=environment, cwd=cwd, log=folder / "server.log", start_seconds=start_seconds
    ) as server:
        yield server


@contextmanager
def worker_beside(env: Mapping[str, str], *, cwd: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The worker role (``coins-worker``) beside a server started on its own, on the database of
    ``env``'s ``DATABASE_URL``, until the block ends (SIGTERM, as a process manager stops it)."""
    command = [str(Path(sys.executable).with_name("coins-worker"))]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    try:
        yield process
    finally:
        stop(process, 30.0)
