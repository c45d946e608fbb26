"""The service's roles as deployed on loopback: the web role (gunicorn with gunicorn.conf.py) and the
real-time role (coins-realtime), alone or behind HAProxy running the shipped ``deploy/haproxy.cfg``;
and a client that times each of its requests.

    with service(database_url, tmp_path) as web, realtime(database_url, tmp_path) as feeds, \
            behind_haproxy(binary, [web.port], [feeds.port], tmp_path) as proxy:
        answer = timed(proxy.port, "GET", "/readyz")

One instance of each role uses the shipped file itself (its settings come from the environment:
where to listen, each role's address and maxconn); several get a copy whose ``server`` line of a
backend is repeated for each instance, everything else as shipped.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.server import HOST, LiveServer, free_port, serve, worker_beside

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_CONFIG = ROOT / "deploy" / "haproxy.cfg"
SERVER_TEMPLATES = {  # each backend's server-template line's slots and address, as shipped
    "web": '"${COINS_WEB_SERVERS-1}" "${COINS_WEB-web:8000}"',
    "realtime": '"${COINS_REALTIME_SERVERS-1}" "${COINS_REALTIME-realtime:8000}"',
}


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or next(
        (path for path in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(path, os.X_OK)), None
    )


def _environment(database_url: str, port: int, env: dict[str, str]) -> dict[str, str]:
    environment = {**os.environ, "DATABASE_URL": database_url, "BIND": f"{HOST}:{port}", "LOG_LEVEL": "WARNING"}
    for name in ("PROMETHEUS_MULTIPROC_DIR", "WEB_CONCURRENCY", "PORT"):
        environment.pop(name, None)
    environment.update(env)
    return environment


@contextmanager
def service(database_url: str, tmp_path: Path, **env: str) -> Iterator[LiveServer]:
    """The web role, ``gunicorn -c gunicorn.conf.py wsgi:app`` with its defaults (workers included), on a free port,
    and a worker role beside it (``coins-worker``: the web role makes no bot moves, the worker does)."""
    port = free_port()
    command = [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py", "wsgi:app"]
    log = tmp_path / f"gunicorn-{port}.log"
    environment = _environment(database_url, port, env)
    with (
        serve(command, port=port, env=environment, cwd=ROOT, log=log, start_seconds=60) as live,
        worker_beside(environment, cwd=ROOT, log=tmp_path / f"worker-{port}.log"),
    ):
        yield live


@contextmanager
def realtime(database_url: str, tmp_path: Path, **env: str) -> Iterator[LiveServer]:
    """The real-time role, ``coins-realtime`` with its defaults, on a free port."""
    port = free_port()
    command = [str(Path(sys.executable).with_name("coins-realtime"))]
    log = tmp_path / f"realtime-{port}.log"
    with serve(
        command, port=port, env=_environment(database_url, port, env), cwd=ROOT, log=log, start_seconds=60
    ) as live:
        yield live


def haproxy_config(web: list[int], feeds: list[int], directory: Path) -> Path:
    """The shipped configuration for one instance of each role; for more, a copy with a server line for each."""
    if len(web) == len(feeds) == 1:
        return SHIPPED_CONFIG
    text = SHIPPED_CONFIG.read_text()
    for backend, ports in (("web", web), ("realtime", feeds)):
        [server] = [
            line for line in text.splitlines(keepends=True) if line.strip().startswith(f"server-template {backend} ")
        ]
        template = f"server-template {backend} {SERVER_TEMPLATES[backend]}"
        assert template in server, server
        servers = [
            server.replace(template, f"server {backend}{index} {HOST}:{port}") for index, port in enumerate(ports)
        ]
        text = text.replace(server, "".join(servers))
    config = directory / "haproxy.cfg"
    config.write_text(text)
    errors = directory / "errors"
    if not errors.exists():
        errors.symlink_to(SHIPPED_CONFIG.parent / "errors", target_is_directory=True)
    return config


@contextmanager
def behind_haproxy(
    binary: str,
    web: list[int],
    feeds: list[int],
    tmp_path: Path,
    *,
    web_maxconn: int = 1000,
    realtime_maxconn: int = 6000,
) -> Iterator[LiveServer]:
    """HAProxy in the foreground (``-db``) on a free port of 127.0.0.1, in front of the web role's
    instances (``web``) and the real-time role's (``feeds``)."""
    port = free_port()
    env = {
        **os.environ,
        "COINS_PROXY_BIND": f"{HOST}:{port}",
        "COINS_WEB": f"{HOST}:{web[0]}",
        "COINS_WEB_MAXCONN": str(web_maxconn),
        "COINS_REALTIME": f"{HOST}:{feeds[0]}",
        "COINS_REALTIME_MAXCONN": str(realtime_maxconn),
    }
    command = [binary, "-db", "-f", str(haproxy_config(web, feeds, tmp_path))]
    with serve(command, port=port, env=env, cwd=tmp_path, log=tmp_path / "haproxy.log", start_seconds=30) as live:
        yield live


@dataclass(frozen=True)
class Answer:
    status: int  # 0: no answer (a timeout, a refused or reset connection)
    seconds: float
    body: Any
    error: str = ""


def timed(
    port: int, method: str, path: str, body: Any = None, token: str | None = None, *, timeout: float = 5.0
) -> Answer:
    """One request on a fresh connection from 127.0.0.1, timed from connect to the end of the body."""
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    started = time.monotonic()
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        seconds = time.monotonic() - started
        return Answer(response.status, seconds, json.loads(raw) if raw else None)
    except (OSError, http.client.HTTPException, ValueError) as error:
        return Answer(0, time.monotonic() - started, None, f"{type(error).__name__}: {error}")
    finally:
        connection.close()
