"""Gunicorn settings for the Coins service: ``gunicorn -c gunicorn.conf.py wsgi:app``.

Every value comes from the environment with a default that suits one container or VM (an empty
value is the default too); the table in README.md lists them. The service keeps no state in its processes (games live in the
database, behind row locks), so any number of workers and instances can serve together.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import runpy
import shutil
import tempfile
from pathlib import Path
from typing import Any

MAX_DEFAULT_WORKERS = 12  # past this, more workers mostly add database connections


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"gunicorn.conf.py: {name} must be a whole number, not {raw!r}") from None
    if value < 0:
        raise SystemExit(f"gunicorn.conf.py: {name} must not be negative")
    return value


def _default_workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(2 * cores + 1, MAX_DEFAULT_WORKERS)


def _bind() -> str:
    """Where to listen: BIND (host:port, or unix:/path) wins over PORT (all interfaces). Checked here, as
    coins-realtime checks it: gunicorn would take a word without a port for a host name, try to listen on
    its port 8000 five times over five seconds, and stop with "Can't connect to ('nonsense', 8000)"."""
    bind = os.environ.get("BIND", "").strip()
    if not bind:
        port = _int("PORT", 8000)
        if not 0 <= port <= 65535:  # gunicorn's bind() would stop with an OverflowError's traceback
            raise SystemExit(f"gunicorn.conf.py: PORT must be between 0 and 65535, not {port}")
        return f"0.0.0.0:{port}"
    host, _, port_text = bind.rpartition(":")
    named = any(bind.startswith(scheme) and len(bind) > len(scheme) for scheme in ("unix:", "fd://"))
    if not named and (not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535):
        raise SystemExit(f"gunicorn.conf.py: BIND must be host:port or unix:/path, not {bind!r}")
    return bind


bind = [_bind()]
proc_name = "coins@" + ",".join(bind)  # the process titles name the instance: two on one host stay apart
# gunicorn 27's control socket would sit at one path per user ($HOME/.gunicorn/gunicorn.ctl): a second
# master on the host takes it over and deletes it as it stops, and in the image (HOME=/app, not the
# user's) it cannot be made. Nothing here uses it; older gunicorns ignore the setting.
control_socket_disable = True
workers = max(1, _int("WEB_CONCURRENCY", _default_workers()))
# gthread workers (gunicorn's threaded worker): each worker process serves requests on a pool of
# threads. The web role holds no event stream (the real-time role does: service/realtime, and
# docs/scaling.md), so every thread answers ordinary requests. A thread is started only when a
# connection needs one, so the thousand threads of WORKER_CONNECTIONS cost nothing at rest; they
# are there for slow clients: gunicorn gives a thread to a connection at its first byte and has no
# header timeout, so 5 workers of 1,000 threads keep serving others while one address holds 3,000
# slow connections (docs/security.md, "Slow clients"; past that, the proxy in front of the
# recommended deployment refuses them: deploy/haproxy.cfg).
worker_class = "service.api.worker.Worker"  # gthread; its own 400/414/431 answers are problems
threads = max(1, _int("WORKER_CONNECTIONS", 1000))
# Connections a worker holds at once: its busy threads, and as many again idle between two requests
# of a keep-alive connection (gthread keeps worker_connections - threads of them; none would close
# every connection after its response).
worker_connections = 2 * threads
timeout = _int("GUNICORN_TIMEOUT", 30)  # a silent worker is killed and replaced after this long
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)  # on SIGTERM, in-flight requests get this long
keepalive = _int("GUNICORN_KEEPALIVE", 5)  # behind a load balancer, above its idle timeout
max_requests = _int("GUNICORN_MAX_REQUESTS", 0)  # 0: workers are never recycled
max_requests_jitter = max_requests // 10
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # heartbeats off slow disks
preload_app = False  # each worker opens its own database pool after the fork

# The app logs one JSON line per request (with its request id) on stderr, so gunicorn's own
# access log would repeat every request: it is off unless ACCESS_LOG names a file ("-": stdout).
accesslog = os.environ.get("ACCESS_LOG", "").strip() or None
if accesslog not in (None, "-") and not os.path.isdir(os.path.dirname(os.path.abspath(accesslog))):
    # gunicorn would say "Error: Error: '…' isn't writable [FileNotFoundError(…)]", naming no setting
    raise SystemExit(
        f"gunicorn.conf.py: ACCESS_LOG must be '-' or a file in a directory that exists, not {accesslog!r}"
    )
access_log_format = '%(h)s "%(r)s" %(s)s %(B)s %(M)sms request_id=%({x-request-id}o)s'
errorlog = "-"
loglevel = (os.environ.get("LOG_LEVEL", "").strip() or "INFO").lower()

# Prometheus metrics across workers (service/observability/metrics.py): each worker writes its
# values into files in PROMETHEUS_MULTIPROC_DIR and /metrics adds them up. Set it here, before
# any worker imports prometheus_client; a fresh directory per run unless the operator names one.
# gunicorn runs this file again on SIGHUP (a reload), in the same process: the directory made at the
# start is then in PROMETHEUS_MULTIPROC_DIR, and is still ours to remove at the exit (COINS_METRICS_DIR_MADE).
_MADE = "COINS_METRICS_DIR_MADE"
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "").strip()
_metrics_dir_is_ours = not _metrics_dir or _metrics_dir == os.environ.get(_MADE)
if not _metrics_dir:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.environ[_MADE] = tempfile.mkdtemp(
        prefix="coins-prometheus-", dir=worker_tmp_dir
    )


def on_starting(server: Any) -> None:
    """Before the workers start: the service's settings are checked once, here (a bad one stops
    gunicorn with one line naming it, instead of every worker failing to boot); values left over
    from an earlier run would be added in."""
    error = _settings_error()
    if error is not None:
        on_exit(server)  # on_exit is not called on this way out
        raise SystemExit(f"gunicorn.conf.py: {error}")
    directory = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink()


def _settings_error() -> str | None:
    """What service/config.py says of the environment's settings (None: they are good). The module
    alone is run, not the package: importing the service would make its metrics in this process,
    the master, whose files the workers' would then not replace (with a worker class of gunicorn's
    own, the master imports nothing of the service)."""
    package = importlib.util.find_spec("service")  # found, not imported
    assert package is not None and package.submodule_search_locations, "the service is not installed"
    config = runpy.run_path(str(Path(next(iter(package.submodule_search_locations))) / "config.py"))
    try:
        config["Settings"].from_env()
    except config["ConfigError"] as error:
        return str(error)
    return None


def post_worker_init(worker: Any) -> None:
    """The app is loaded: its objects live as long as the worker, so the collector stops scanning
    them on every full collection (gc.freeze); what requests leave behind is collected as before."""
    gc.freeze()


def child_exit(server: Any, worker: Any) -> None:
    """A worker died or was replaced: its live gauges must stop counting."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def on_exit(server: Any) -> None:
    if _metrics_dir_is_ours:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
