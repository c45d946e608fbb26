"""The scripts in examples/ work against a real server, as a reader would run them."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.client_package import environment
from tests.support.typescript_client import BOT_PLAYER, built_typescript_client

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
        env=environment(),  # the examples on coins-client (clients/python)
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


def test_verify_record_finds_the_verifier_in_a_clone_or_copied_beside_it(server_url: str, tmp_path: Path) -> None:
    """``python -S``: no site-packages, so neither the installed service nor Flask (which the service's
    ``__init__.py`` imports); the verifier folder needs neither."""
    played = run("play_random.py", "--base-url", server_url, "--target-score", "3", "--seed", "3")
    assert played.returncode == 0, played.stderr
    game_id = played.stdout.split()[1].rstrip(":")
    shutil.copytree(EXAMPLES.parent / "service" / "verify", tmp_path / "verify")
    shutil.copy(EXAMPLES / "verify_record.py", tmp_path)
    for script, path in [(EXAMPLES / "verify_record.py", str(EXAMPLES.parent)), (tmp_path / "verify_record.py", "")]:
        command = [sys.executable, "-S", str(script), "--base-url", server_url, game_id]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, env={"PYTHONPATH": path})
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.startswith(f"OK: game {game_id}, "), done.stdout


def _together(commands: list[list[str]]) -> list[str]:
    """Run the commands at once; their outputs, once each has exited 0."""
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
        for command in commands
    ]
    outputs = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=GAME_SECONDS + 10)
            assert process.returncode == 0, err
            outputs.append(out)
    finally:
        for process in processes:
            process.kill()
    return outputs


def _bot(server_url: str, key_file: Path, name: str, *extra: str) -> list[str]:
    """The command line of examples/bot_player.py as player ``name`` with its key in ``key_file``."""
    script = str(EXAMPLES / "bot_player.py")
    return [sys.executable, script, "--base-url", server_url, "--name", name, "--key-file", str(key_file), *extra]


def _results(name: str, out: str, key_file: Path, games: int) -> set[str]:
    """The games of a bot's output, after checking it made its player, kept the key 0600 and never printed it."""
    assert out.startswith(f"created player {name} ("), out
    assert key_file.stat().st_mode & 0o777 == 0o600
    key = key_file.read_text().strip()
    assert key.startswith("cpk_") and key not in out
    results = [line for line in out.splitlines() if line.startswith("game ") and " over: place " in line]
    assert [line.split()[1] for line in results] == [f"{n}/{games}" for n in range(1, games + 1)], out
    assert all(line.endswith("; unrated") for line in results)  # unrated games: no rating change
    return {line.split()[2] for line in results}


def _finished_by(server_url: str, games: set[str], names: list[str]) -> None:
    for game in games:
        with urllib.request.urlopen(f"{server_url}/v1/games/{game}", timeout=10) as response:
            state = json.load(response)
        assert state["status"] == "finished"
        assert sorted(seat["name"] for seat in state["seats"]) == sorted(names)


def test_three_bot_players_queue_and_play_two_games_from_their_feeds(server_url: str, tmp_path: Path) -> None:
    names = ["Ana", "Bo", "Cy"]
    game = ["--games", "2", "--target-score", "3", "--unrated", "--timeout", str(GAME_SECONDS)]
    keys = {name: tmp_path / f"{name}.key" for name in names}
    outputs = _together([_bot(server_url, keys[name], name, *game, "--seed", str(n)) for n, name in enumerate(names)])
    games = set()
    for name, out in zip(names, outputs, strict=True):
        games |= _results(name, out, keys[name], 2)
    assert len(games) == 2  # the three queued together, twice: the same two games
    _finished_by(server_url, games, names)


def test_a_bot_player_reuses_its_key_and_plays_with_bots_after_zero(server_url: str, tmp_path: Path) -> None:
    key = tmp_path / "Di.key"
    game = ["--games", "1", "--target-score", "3", "--unrated", "--bots-after", "0", "--timeout", str(GAME_SECONDS)]
    (first,) = _together([_bot(server_url, key, "Di", *game)])
    (again,) = _together([_bot(server_url, key, "Di", *game)])
    _results("Di", first, key, 1)
    assert again.startswith("player Di: rating 1500, 0 games in progress"), again  # the same player, no new one
    player_id = first.split("(", 1)[1].split(")", 1)[0]
    with urllib.request.urlopen(f"{server_url}/v1/players/{player_id}", timeout=10) as response:
        assert json.load(response)["games"]["played"] == 2


def test_a_bot_player_with_a_key_no_player_has_stops_with_the_problem(server_url: str, tmp_path: Path) -> None:
    key = tmp_path / "bad.key"
    key.write_text("cpk_" + "0" * 43 + "\n")
    key.chmod(0o600)
    command = _bot(server_url, key, "X", "--timeout", "30")
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment())
    assert done.returncode == 1
    assert "401 invalid_key" in done.stderr, done.stderr


@contextlib.contextmanager
def _refusing_url() -> Iterator[str]:
    """The URL of a port of ours, bound and never listening: every connection to it is refused."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{closed.getsockname()[1]}"


def test_a_bot_player_with_an_empty_key_file_says_so(tmp_path: Path) -> None:
    """An empty key file was sent as "Bearer ", which httpx refuses: a traceback each time, then --timeout."""
    key = tmp_path / "empty.key"
    key.write_text("\n")
    key.chmod(0o600)
    with _refusing_url() as url:
        done = subprocess.run(
            _bot(url, key, "X", "--timeout", "30"), capture_output=True, text=True, timeout=60, env=environment()
        )
    assert done.returncode == 1, done.stderr
    assert f"error: {key} holds no key" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_bot_player_whose_ticket_cannot_be_read_stops_with_the_error(tmp_path: Path) -> None:
    """The ticket's thread queues and reads the ticket: its error (here no server answers) stops the bot
    with status 1, as an error of the feed does (docs/players.md), not a thread's traceback and then a
    wait for --timeout (status 2) while the feed's reader retries."""
    key = tmp_path / "bot.key"
    key.write_text("cpk_" + "0" * 43 + "\n")
    key.chmod(0o600)
    with _refusing_url() as url:
        done = subprocess.run(
            _bot(url, key, "X", "--timeout", "50"), capture_output=True, text=True, timeout=90, env=environment()
        )
    assert done.returncode == 1, done.stderr
    assert "error: " in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("script", "args"),
    [("play_random.py", []), ("seat_client.py", ["--game", "0" * 26, "--join", "Z"]), ("verify_record.py", ["0" * 26])],
)
def test_an_example_with_no_server_answering_says_so_in_one_line(script: str, args: list[str]) -> None:
    """No server at --base-url: one line saying so and status 1 (verify_record.py: 2, as coins-verify's),
    not a traceback."""
    with _refusing_url() as url:
        done = run(script, "--base-url", url, *args)
    assert done.returncode == (2 if script == "verify_record.py" else 1), done.stderr
    assert "Connection refused" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_bot_player_copied_with_coins_http_alone_plays_from_its_feed(server_url: str, tmp_path: Path) -> None:
    """docs/players.md, "For scripts": the package, and coins_http.py beside it (webhook_receiver.py
    only for --webhook)."""
    for name in ("bot_player.py", "coins_http.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    key = tmp_path / "Jo.key"
    game = ["--games", "1", "--target-score", "3", "--unrated", "--bots-after", "0", "--timeout", str(GAME_SECONDS)]
    command = [sys.executable, str(tmp_path / "bot_player.py"), "--base-url", server_url, "--name", "Jo"]
    (out,) = _together([[*command, "--key-file", str(key), *game]])
    _results("Jo", out, key, 1)


def test_three_typescript_bot_players_play_two_games(server_url: str, tmp_path: Path) -> None:
    """clients/typescript/examples/bot_player.mjs, on the built coins-client package."""
    built_typescript_client()
    names = ["Ed", "Flo", "Gus"]
    game = ["--games", "2", "--target-score", "3", "--unrated", "--timeout", str(GAME_SECONDS)]
    keys = {name: tmp_path / f"{name}.key" for name in names}
    outputs = _together(
        [
            ["node", str(BOT_PLAYER), "--base-url", server_url, "--key-file", str(keys[name]), "--name", name, *game]
            for name in names
        ]
    )
    games = set()
    for name, out in zip(names, outputs, strict=True):
        games |= _results(name, out, keys[name], 2)
        assert out.splitlines()[-1].startswith("2 games played; "), out
    assert len(games) == 2
    _finished_by(server_url, games, names)


def test_the_typescript_bot_takes_the_python_bots_options_and_refuses_any_other() -> None:
    """The same options (each --help lists them), the same status for a bad command line (2)."""
    built_typescript_client()
    node = ["node", str(BOT_PLAYER)]
    helps = [run("bot_player.py", "--help"), subprocess.run([*node, "--help"], capture_output=True, text=True)]
    assert [done.returncode for done in helps] == [0, 0], [done.stderr for done in helps]
    python, typescript = (set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", done.stdout)) for done in helps)
    assert "--seed" in python and typescript == python
    for wrong in (["--help-me"], ["--key-file"], ["--key-file", "k", "--games", "two"], ["--games", "1"]):
        python_run = run("bot_player.py", *wrong)
        typescript_run = subprocess.run([*node, *wrong], capture_output=True, text=True, timeout=30)
        assert (python_run.returncode, typescript_run.returncode) == (2, 2), (wrong, typescript_run.stderr)
        assert "error: " in typescript_run.stderr and typescript_run.stdout == ""
