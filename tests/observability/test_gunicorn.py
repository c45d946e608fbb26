"""Under gunicorn with 2 sync workers: metrics add up across workers (and survive a worker's death),
and each request is logged once, as JSON, by the app (gunicorn's own access log stays off)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.server import answers, free_port, serve

from .test_metrics import metric

REPO = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
START_TIMEOUT = 60.0
pytestmark = pytest.mark.slow


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    metrics_dir: Path
    stdout: Path
    stderr: Path

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def worker_pids(self) -> set[int]:
        """The processes that wrote counters (a dead worker's file stays)."""
        return {int(path.stem.rpartition("_")[2]) for path in self.metrics_dir.glob("counter_*.db")}


def _wait_for(condition, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def server(tmp_path: Path, database_url: str) -> Iterator[Server]:
    port = free_port()
    metrics_dir = tmp_path / "prometheus"
    metrics_dir.mkdir()
    (metrics_dir / "counter_1.db").write_bytes(b"stale")  # left by an earlier run: wiped at start
    env = {
        **{k: v for k, v in os.environ.items() if k != "ACCESS_LOG"},
        "DATABASE_URL": database_url,
        "WEB_CONCURRENCY": "2",
        "BIND": f"127.0.0.1:{port}",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "LOG_LEVEL": "INFO",
    }
    stdout, stderr = tmp_path / "stdout.log", tmp_path / "stderr.log"
    command = [str(GUNICORN), "-c", "gunicorn.conf.py", "--worker-class", "sync", "--no-control-socket", "wsgi:app"]
    with serve(
        command, port=port, env=env, cwd=REPO, log=stdout, stderr_log=stderr, start_seconds=START_TIMEOUT
    ) as live:
        running = Server(port, live.process, metrics_dir, stdout, stderr)
        _wait_for(lambda: len(running.worker_pids()) == 2, START_TIMEOUT, "both workers")
        yield running


def _ready(server: Server) -> bool:
    assert server.process.poll() is None, server.stderr.read_text()[-3000:]
    return answers(server.port, "/readyz")


def _healthz_count(server: Server) -> float:
    status, body = server.get("/metrics")
    assert status == 200
    return metric(body.decode(), "coins_http_requests_total", method="GET", route="/healthz", status="200")


def test_metrics_add_up_across_workers_and_survive_a_dead_worker(server: Server):
    assert 1 not in server.worker_pids()  # the stale file is gone
    requests = 60
    with ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(lambda _: server.get("/healthz")[0], range(requests)))
    assert statuses == [200] * requests
    assert _healthz_count(server) == requests

    victim = min(server.worker_pids())
    os.kill(victim, signal.SIGKILL)
    _wait_for(lambda: len(server.worker_pids() - {victim}) == 2, START_TIMEOUT, "a replacement worker")
    _wait_for(lambda: _ready(server), START_TIMEOUT, "the service after the replacement")
    assert _healthz_count(server) == requests  # the dead worker's counts are kept


def test_each_request_is_logged_once_as_json(server: Server):
    status, _ = server.get("/v1/games", headers={"X-Request-ID": "gunicorn-once"})
    assert status == 200
    _wait_for(lambda: "gunicorn-once" in server.stderr.read_text(), 10, "the access line")
    lines = [line for line in server.stderr.read_text().splitlines() if "gunicorn-once" in line]
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["route"] == "/v1/games" and entry["status"] == 200
    assert "gunicorn-once" not in server.stdout.read_text()  # gunicorn's access log is off
