"""``coins-realtime``: the real-time role's process, uvicorn serving :class:`.RealtimeApp`.

Where it listens: ``BIND`` (``host:port``) or ``PORT`` (all interfaces, 8000), as the web role's
gunicorn. One process, one event loop: run more processes (each on its own port, or behind the
proxy as more servers) to hold more streams than one core can write. ``REALTIME_THREADS`` threads
answer the requests the Flask app serves in this process (a stream's first answer; on one machine,
every request). The open-files limit is raised to its hard limit: each held stream is a socket.
"""

from __future__ import annotations

import ctypes
import gc
import os
import platform
import resource
import sys
from typing import Any

import uvicorn

from ..config import ConfigError
from ..store.migrate import SchemaNotMigrated
from . import create_realtime_app

__all__ = ["main"]

GRACEFUL_SECONDS = 10  # after SIGTERM: held streams end at once, other requests get this long
KEEP_ALIVE_SECONDS = 5  # an idle connection between two requests (behind the proxy: above its idle timeout)


MAX_PORT = 65535
M_ARENA_MAX = -8  # mallopt(3)'s parameter: how many arenas glibc's malloc may make (glibc's malloc.h)


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise SystemExit(f"coins-realtime: {name} must be a whole number, not {raw!r}")
    return int(raw)


def listen_address() -> dict[str, Any]:
    """Where to listen, as uvicorn takes it: BIND (``host:port``, or ``unix:/path``, as for the web
    role's gunicorn), else every interface on PORT."""
    bind = os.environ.get("BIND", "").strip()
    if not bind:
        port = _int("PORT", 8000)
        if not 0 <= port <= MAX_PORT:  # uvloop would listen on the port modulo 65536 and log the one asked for
            raise SystemExit(f"coins-realtime: PORT must be between 0 and {MAX_PORT}, not {port}")
        return {"host": "0.0.0.0", "port": port}
    if bind.startswith("unix:") and len(bind) > len("unix:"):
        return {"uds": bind.removeprefix("unix:")}
    host, _, port_text = bind.rpartition(":")
    if not host or not port_text.isdigit() or not 0 <= int(port_text) <= MAX_PORT:
        raise SystemExit(f"coins-realtime: BIND must be host:port or unix:/path, not {bind!r}")
    return {"host": host.strip("[]"), "port": int(port_text)}


def _raise_open_files_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def one_malloc_arena() -> bool:
    """Let glibc's malloc keep one arena for the process, unless ``MALLOC_ARENA_MAX`` says otherwise;
    whether it was set. By default each thread that allocates gets an arena of its own (up to 8 a
    core): a stream opens on a2wsgi's threads (the Flask view) and lives on the event loop's, and the
    pieces its opening left in a thread's arena are not reused by the others. On SQLite a held stream
    cost 1.9 KiB more behind HAProxy (``bench/realtime.py``, 2026-12-06: 19.5-19.9 -> 17.8-17.9 KiB at
    the margin; PostgreSQL unchanged). Threads that allocate at once now wait for each other's
    malloc (the drivers' C code runs without the GIL): the bench's latencies did not move."""
    if os.environ.get("MALLOC_ARENA_MAX") or platform.libc_ver()[0] != "glibc":
        return False  # the operator's choice (glibc read it at start), or another C library
    return bool(ctypes.CDLL(None).mallopt(M_ARENA_MAX, 1))


def main() -> None:
    one_malloc_arena()  # before any thread allocates
    address = listen_address()
    _raise_open_files_limit()
    try:
        app = create_realtime_app(threads=max(1, _int("REALTIME_THREADS", 10)))
    except ConfigError as error:
        sys.exit(f"coins-realtime: {error}")
    except SchemaNotMigrated:  # the database was not migrated (AUTO_MIGRATE=false): create_app logged which revision
        sys.exit(1)
    gc.freeze()  # the wiring lives as long as the process: full collections need not scan it
    uvicorn.run(
        app,
        **address,
        http="httptools",
        loop="uvloop",
        lifespan="on",
        workers=1,  # one event loop a process (uvicorn would read WEB_CONCURRENCY, the web role's setting)
        log_config=None,  # the service's JSON logs (service/observability); its access line per request
        access_log=False,
        proxy_headers=False,  # the Flask app reads X-Forwarded-For itself (TRUSTED_PROXY_HOPS)
        server_header=False,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=_int("REALTIME_GRACEFUL_SECONDS", GRACEFUL_SECONDS),
        backlog=4096,
    )
