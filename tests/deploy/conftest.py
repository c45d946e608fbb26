"""A live server for the deploy tests: the Dockerfile's own command (bin/start → gunicorn) on loopback."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import free_port, serve

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60  # gunicorn up and the database migrated
STOP_SECONDS = 30
SERVER_VARIABLES = ("PROMETHEUS_MULTIPROC_DIR", "WEB_CONCURRENCY", "BIND", "PORT", "AUTO_MIGRATE", "ACCESS_LOG")


@dataclass
class FinalStage:
    """What the Dockerfile's last stage runs and holds: enough to rebuild its /app without Docker."""

    command: list[str]  # ENTRYPOINT + CMD
    healthcheck: list[str]  # HEALTHCHECK CMD
    copies: list[tuple[list[str], str]]  # COPY sources (from the build context) -> destination
    user: str


def final_stage(dockerfile: Path = ROOT / "Dockerfile") -> FinalStage:
    text = dockerfile.read_text().replace("\\\n", " ")
    stage = FinalStage([], [], [], "root")
    entrypoint: list[str] = []
    for line in text.splitlines():
        instruction, _, argument = line.strip().partition(" ")
        instruction, argument = instruction.upper(), argument.strip()
        if instruction == "FROM":
            stage, entrypoint = FinalStage([], [], [], "root"), []
        elif instruction in ("CMD", "ENTRYPOINT"):
            words = json.loads(argument) if argument.startswith("[") else ["/bin/sh", "-c", argument]
            if instruction == "CMD":
                stage.command = words
            else:
                entrypoint = words
        elif instruction == "HEALTHCHECK":
            stage.healthcheck = json.loads(argument.split(" CMD ", 1)[1].strip())
        elif instruction == "COPY" and not argument.startswith("--from"):
            *sources, destination = argument.split()
            stage.copies.append((sources, destination))
        elif instruction == "USER":
            stage.user = argument
    stage.command = entrypoint + stage.command
    assert stage.command, "the Dockerfile names no command"
    return stage


def dockerfile_command() -> list[str]:
    return final_stage().command


def image_app_dir(directory: Path) -> Path:
    """The image's WORKDIR, rebuilt from the final stage's COPY lines: no source tree beside it,
    so the service runs from the installed package, as in the container."""
    app = directory / "app"
    for sources, destination in final_stage().copies:
        for source in sources:
            target = app / destination / Path(source).name if destination.endswith("/") else app / destination
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / source, target)
    return app


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, dict[str, str], Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        try:
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            return response.status, dict(response.getheaders()), json.loads(raw) if raw else None
        finally:
            connection.close()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-5000:]


@contextmanager
def running_server(
    directory: Path,
    command: list[str] | None = None,
    cwd: Path | None = None,
    workers: int = 2,
    database_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[Server]:
    """A server on a free loopback port and a new SQLite database (unless ``database_url`` names
    one): by default the container's command in a replica of the image's /app. ``env`` adds or
    overrides settings (``RATE_LIMITS=off`` for a load test)."""
    port = free_port()
    venv_bin = str(Path(sys.executable).parent)
    settings = {key: value for key, value in os.environ.items() if key not in SERVER_VARIABLES}
    settings.update(
        PATH=f"{venv_bin}{os.pathsep}{settings.get('PATH', '/usr/bin:/bin')}",
        DATABASE_URL=database_url or f"sqlite:///{directory / 'coins.sqlite3'}",
        PORT=str(port),  # what the image's HEALTHCHECK reads
        BIND=f"127.0.0.1:{port}",  # the image listens on 0.0.0.0:$PORT; a test stays on loopback
        WEB_CONCURRENCY=str(workers),
        LOG_LEVEL="WARNING",
    )
    settings.update(env or {})
    with serve(
        command or dockerfile_command(),
        port=port,
        env=settings,
        cwd=cwd or image_app_dir(directory),
        log=directory / "server.log",
        ready_path="/healthz",
        start_seconds=START_SECONDS,
        stop_seconds=STOP_SECONDS,
    ) as live:
        yield Server(live.process, port, live.log)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for every test that leaves it running."""
    with running_server(tmp_path_factory.mktemp("server")) as running:
        yield running


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Server]:
    """A server of its own, for a test that stops it."""
    with running_server(tmp_path) as running:
        yield running
