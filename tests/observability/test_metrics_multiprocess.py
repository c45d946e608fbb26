"""Metrics across processes: with PROMETHEUS_MULTIPROC_DIR every worker's counts add up in /metrics."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .test_metrics import metric, scrape

WORKER = textwrap.dedent(
    """
    import sys
    from service import create_app
    from service.config import Settings

    app = create_app(Settings(database_url=sys.argv[1], log_level="WARNING"))
    client = app.test_client()
    for _ in range(int(sys.argv[2])):
        assert client.get("/healthz").status_code == 200
    assert client.post("/v1/games", json={}).status_code == 201
    """
)


def run_worker(directory: Path, database_url: str, probes: int) -> None:
    env = {"PROMETHEUS_MULTIPROC_DIR": str(directory), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", WORKER, database_url, str(probes)], env=env, check=True, timeout=120)


def test_two_processes_add_up(client, tmp_path, monkeypatch):
    directory = tmp_path / "prometheus"
    directory.mkdir()
    database_url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    run_worker(directory, database_url, 3)
    run_worker(directory, database_url, 5)
    assert len(list(directory.glob("counter_*.db"))) == 2  # one file per process

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(directory))
    text = scrape(client)  # this process reads the files, whoever wrote them
    assert metric(text, "coins_http_requests_total", method="GET", route="/healthz", status="200") == 8
    assert metric(text, "coins_http_request_duration_seconds_count", method="GET", route="/healthz") == 8
    assert metric(text, "coins_games_created_total") == 2
    assert metric(text, "coins_http_requests_total", method="POST", route="/v1/games", status="201") == 2


def test_a_file_a_starting_worker_has_created_but_not_yet_sized_is_left_out(client, tmp_path, monkeypatch):
    """prometheus_client creates a worker's file, then sizes it: a scrape between the two must
    still answer, with every other worker's values (prometheus/client_python#1199)."""
    directory = tmp_path / "prometheus"
    directory.mkdir()
    run_worker(directory, f"sqlite:///{tmp_path / 'shared.sqlite3'}", 3)
    (directory / "histogram_4242.db").touch()  # as a worker's first request leaves it, for an instant
    (directory / "gauge_mostrecent_4242.db").touch()

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(directory))
    text = scrape(client)
    assert metric(text, "coins_http_requests_total", method="GET", route="/healthz", status="200") == 3
    assert metric(text, "coins_http_request_duration_seconds_count", method="GET", route="/healthz") == 3


@pytest.mark.parametrize(
    ("value", "said"),
    [("/proc/coins-nowhere", "No such file or directory"), (" ", "spaces name no directory"), ("{new}", None)],
)
def test_the_directory_setting_is_made_or_named_in_one_line(tmp_path: Path, value: str, said: str | None) -> None:
    """A directory that did not exist stopped every command (coins-migrate, -worker, -realtime) with a
    traceback at the import of the metrics, and so did spaces."""
    value = value.format(new=tmp_path / "metrics" / "new")
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": value}
    done = subprocess.run(
        [sys.executable, "-c", "import service.observability.metrics"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr
    if said is None:
        assert done.returncode == 0, done.stderr
        assert Path(value).is_dir()
    else:
        assert done.returncode == 1
        [line] = done.stderr.strip().splitlines()
        assert line.startswith(f"PROMETHEUS_MULTIPROC_DIR must be a directory this process can write, not {value!r}: ")
        assert said in line
