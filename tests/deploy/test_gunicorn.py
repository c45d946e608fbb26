"""The deployed service: boot the Dockerfile's own command (bin/start → gunicorn) and play a game over HTTP."""

from __future__ import annotations

import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60  # gunicorn up and the database migrated
GAME_SECONDS = 120
STOP_SECONDS = 30
MAX_ACTIONS = 400  # a game to 15 points takes at most 4 hands: 4 deals and 192 plays


def dockerfile_command(dockerfile: Path = ROOT / "Dockerfile") -> list[str]:
    """ENTRYPOINT + CMD of the Dockerfile's last stage, as the container would run them."""
    text = dockerfile.read_text().replace("\\\n", " ")
    entrypoint: list[str] = []
    cmd: list[str] = []
    for line in text.splitlines():
        instruction, _, argument = line.strip().partition(" ")
        if instruction.upper() == "FROM":
            entrypoint, cmd = [], []
        elif instruction.upper() in ("CMD", "ENTRYPOINT"):
            argument = argument.strip()
            words = json.loads(argument) if argument.startswith("[") else ["/bin/sh", "-c", argument]
            if instruction.upper() == "CMD":
                cmd = words
            else:
                entrypoint = words
    assert entrypoint or cmd, "the Dockerfile names no command"
    return entrypoint + cmd


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


def wait_until_ready(server: Server) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"the server exited with {server.process.returncode}:\n{server.output()}")
        try:
            status, _, _ = server.request("GET", "/healthz")
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the server was not ready within {START_SECONDS} s:\n{server.output()}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """The container's command, run from the repository root (the image's /app holds the same files)."""
    port = free_port()
    venv_bin = str(Path(sys.executable).parent)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PROMETHEUS_MULTIPROC_DIR", "WEB_CONCURRENCY", "BIND", "PORT", "AUTO_MIGRATE")
    }
    env.update(
        PATH=f"{venv_bin}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        DATABASE_URL=f"sqlite:///{tmp_path / 'coins.sqlite3'}",
        BIND=f"127.0.0.1:{port}",  # the image listens on 0.0.0.0:$PORT; a test stays on loopback
        WEB_CONCURRENCY="2",
        LOG_LEVEL="WARNING",
    )
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            dockerfile_command(), cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    running = Server(process, port, log)
    try:
        wait_until_ready(running)
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(STOP_SECONDS)


def test_dockerfile_starts_the_start_script() -> None:
    assert dockerfile_command() == ["bin/start"]
    script = (ROOT / "bin" / "start").read_text()
    assert "exec gunicorn -c gunicorn.conf.py wsgi:app" in script, shlex.quote(script)


@pytest.mark.slow
def test_a_complete_game_over_http(server: Server) -> None:
    seats = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]
    status, headers, game = server.request(
        "POST", "/v1/games", {"seats": seats, "seed": "deploy-test", "target_score": 15}
    )
    assert status == 201, game
    assert headers["Location"] == f"/v1/games/{game['id']}"
    tokens = {credential["seat"]: credential["token"] for credential in game["credentials"]}
    assert sorted(tokens) == [0, 1, 2]
    path = f"/v1/games/{game['id']}"

    deadline = time.monotonic() + GAME_SECONDS
    plays = deals = 0
    for _ in range(MAX_ACTIONS):
        assert time.monotonic() < deadline, "the game took too long"
        status, headers, state = server.request("GET", path)
        assert status == 200, state
        assert headers["ETag"].startswith('"'), headers  # strong, so If-Match works
        if state["status"] == "finished":
            break
        seat = state["turn"]
        if state["status"] == "waiting_for_deal":
            status, _, dealt = server.request("POST", f"{path}/hands", token=tokens[seat])
            assert status == 201, dealt
            deals += 1
            continue
        assert state["status"] == "playing", state
        status, _, hand = server.request("GET", f"{path}/hand", token=tokens[seat])
        assert status == 200, hand
        assert hand["seat"] == seat and hand["cards"]
        status, _, played = server.request("POST", f"{path}/plays", {"card": hand["cards"][0]}, token=tokens[seat])
        assert status == 201, played
        plays += 1
    else:
        pytest.fail(f"no winner after {MAX_ACTIONS} actions")

    assert deals >= 2  # 12 points a hand: nobody reaches 15 in one
    status, _, scores = server.request("GET", f"{path}/scores")
    assert status == 200, scores
    winner = scores["winner"]
    assert winner is not None
    assert max(entry["score"] for entry in scores["scores"]) >= 15
    status, _, tricks = server.request("GET", f"{path}/tricks")
    assert status == 200, tricks
    assert tricks["items"][0]["trick_number"] == 1 and len(tricks["items"][0]["plays"]) == 3
    assert plays >= 16 * 3


@pytest.mark.slow
def test_sigterm_stops_the_server_gracefully(server: Server) -> None:
    assert server.request("GET", "/readyz")[0] == 200
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(STOP_SECONDS) == 0, server.output()
