"""The deployed service: boot the Dockerfile's own command (bin/start → gunicorn) and play a game over HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ROOT, STOP_SECONDS, Server, dockerfile_command, final_stage, free_port

GAME_SECONDS = 120
MAX_ACTIONS = 400  # a game to 15 points takes at most 4 hands: 4 deals and 192 plays


def test_dockerfile_starts_the_start_script() -> None:
    assert dockerfile_command() == ["bin/start"]
    script = (ROOT / "bin" / "start").read_text()
    assert "exec gunicorn -c gunicorn.conf.py wsgi:app" in script


def test_the_image_runs_as_an_unprivileged_numeric_user() -> None:
    user = final_stage().user.split(":")[0]
    assert user.isdigit() and int(user) != 0


def run_healthcheck(port: int) -> int:
    env = {**os.environ, "PORT": str(port)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(final_stage().healthcheck, env=env, capture_output=True, timeout=30, check=False).returncode


@pytest.mark.slow
def test_the_image_healthcheck_passes_on_a_live_server_only(server: Server) -> None:
    assert run_healthcheck(server.port) == 0
    assert run_healthcheck(free_port()) != 0


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
def test_sigterm_stops_the_server_gracefully(fresh_server: Server) -> None:
    assert fresh_server.request("GET", "/readyz")[0] == 200
    fresh_server.process.send_signal(signal.SIGTERM)
    assert fresh_server.process.wait(STOP_SECONDS) == 0, fresh_server.output()
