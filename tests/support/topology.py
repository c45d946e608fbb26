"""The service as deployed on loopback: gunicorn with gunicorn.conf.py, alone or behind HAProxy
running the shipped ``deploy/haproxy.cfg``; and a client that times each of its requests.

    with service(database_url, tmp_path) as app, behind_haproxy(binary, [app.port], tmp_path) as proxy:
        answer = timed(proxy.port, "GET", "/readyz")

One backend uses the shipped file itself (its settings come from the environment: where to
listen, the service's address, its maxconn); several get a copy whose one ``server`` line is
repeated for each, everything else as shipped.
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

from tests.support.server import HOST, LiveServer, free_port, serve

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_CONFIG = ROOT / "deploy" / "haproxy.cfg"
SERVER_ADDRESS = '"${COINS_SERVICE-service:8000}"'  # the shipped server line's address


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or next(
        (path for path in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(path, os.X_OK)), None
    )


@contextmanager
def service(database_url: str, tmp_path: Path, **env: str) -> Iterator[LiveServer]:
    """``gunicorn -c gunicorn.conf.py wsgi:app`` with its defaults (workers included) on a free port."""
    port = free_port()
    environment = {**os.environ, "DATABASE_URL": database_url, "BIND": f"{HOST}:{port}", "LOG_LEVEL": "WARNING"}
    for name in ("PROMETHEUS_MULTIPROC_DIR", "WEB_CONCURRENCY", "PORT"):
        environment.pop(name, None)
    environment.update(env)
    command = [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py", "wsgi:app"]
    log = tmp_path / f"gunicorn-{port}.log"
    with serve(command, port=port, env=environment, cwd=ROOT, log=log, start_seconds=60) as live:
        yield live


def haproxy_config(backends: list[int], directory: Path) -> Path:
    """The shipped configuration for one backend; for several, a copy with a server line for each."""
    if len(backends) == 1:
        return SHIPPED_CONFIG
    lines = SHIPPED_CONFIG.read_text().splitlines(keepends=True)
    [server] = [line for line in lines if line.strip().startswith("server ")]
    assert SERVER_ADDRESS in server, server
    servers = [
        server.replace(f"server service {SERVER_ADDRESS}", f"server instance{index} {HOST}:{port}")
        for index, port in enumerate(backends)
    ]
    config = directory / "haproxy.cfg"
    config.write_text("".join(line if line is not server else "".join(servers) for line in lines))
    errors = directory / "errors"
    if not errors.exists():
        errors.symlink_to(SHIPPED_CONFIG.parent / "errors", target_is_directory=True)
    return config


@contextmanager
def behind_haproxy(binary: str, backends: list[int], tmp_path: Path, *, maxconn: int = 1000) -> Iterator[LiveServer]:
    """HAProxy in the foreground (``-db``) on a free port of 127.0.0.1, in front of ``backends``."""
    port = free_port()
    env = {
        **os.environ,
        "COINS_PROXY_BIND": f"{HOST}:{port}",
        "COINS_SERVICE": f"{HOST}:{backends[0]}",
        "COINS_SERVICE_MAXCONN": str(maxconn),
    }
    command = [binary, "-db", "-f", str(haproxy_config(backends, tmp_path))]
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
