"""The scripts in examples/ work against a real server, as a reader would run them."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GAME_SECONDS = 120

pytestmark = pytest.mark.slow


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=GAME_SECONDS,
        check=False,
    )


def test_play_random_plays_a_game_to_the_end(server_url: str) -> None:
    done = run("play_random.py", "--base-url", server_url, "--target-score", "10", "--seed", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(" trick  1: " in line for line in lines), done.stdout
    assert lines[-3].startswith("final scores: ")
    assert lines[-2].startswith("winner: ")


def _post(url: str, body: object) -> dict[str, object]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)  # type: ignore[no-any-return]


def test_three_seat_clients_play_a_game_together(server_url: str) -> None:
    """One seat taken at creation (token given), two joined by the clients themselves."""
    game = _post(f"{server_url}/v1/games", {"target_score": 10, "seats": [{"name": "Ana", "age": 41}, None, None]})
    token = game["credentials"][0]["token"]  # type: ignore[index]
    common = ["--base-url", server_url, "--game", str(game["id"]), "--poll", "0.05", "--timeout", str(GAME_SECONDS)]
    clients = [
        subprocess.Popen(
            [sys.executable, str(EXAMPLES / "seat_client.py"), *common, *who, "--seed", str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n, who in enumerate([[f"--token={token}"], ["--join", "Bo"], ["--join", "Cy"]])
    ]
    outputs = []
    try:
        for client in clients:
            out, err = client.communicate(timeout=GAME_SECONDS + 10)
            assert client.returncode == 0, err
            outputs.append(out)
    finally:
        for client in clients:
            client.kill()
    with urllib.request.urlopen(f"{server_url}/v1/games/{game['id']}", timeout=10) as response:
        final = json.load(response)
    assert final["status"] == "finished"
    for out in outputs:
        assert f"game over, seat {final['winner']} wins" in out
    assert sum(int(out.split(" events read")[0].rsplit(" ", 1)[1]) for out in outputs) > 0


def test_verify_record_downloads_a_record_and_checks_it(server_url: str, tmp_path: Path) -> None:
    played = run("play_random.py", "--base-url", server_url, "--target-score", "3", "--seed", "2")
    assert played.returncode == 0, played.stderr
    game_id = played.stdout.split()[1].rstrip(":")
    saved = tmp_path / "record.json"
    done = run("verify_record.py", "--base-url", server_url, game_id, "--output", str(saved))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"OK: game {game_id}, "), done.stdout
    assert json.loads(saved.read_text())["format"] == "coins-record"
    missing = run("verify_record.py", "--base", server_url, "01" + "0" * 24)
    assert missing.returncode == 2
    assert "404" in missing.stderr
