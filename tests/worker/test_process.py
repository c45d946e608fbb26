"""``coins-worker`` as a process, on both databases: with nobody reading, a turn's deadline passes and
the stand-in's move is made; a worker SIGKILLed and started again goes on; SIGTERM stops it cleanly.
Real time, so a turn of the shortest clock (5 s): each wait is bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import text

TURN = 5  # the shortest clock
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def coins_worker(database_url: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    environment = {**os.environ, "DATABASE_URL": database_url, "WORKER_POLL_MS": "50", "LOG_LEVEL": "INFO"}
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("coins-worker"))], env=environment, cwd=ROOT, stdout=out, stderr=out
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def _actions(app: Flask, game_id: str) -> int:
    with app.extensions["coins.db"].engine.connect() as connection:
        found = connection.execute(text("SELECT action_count FROM games WHERE id = :id"), {"id": game_id}).scalar()
    return int(found)


def _until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return bool(check())


def _dealt_game(new_table) -> str:
    table = new_table(first_dealer=0, turn_timeout_seconds=TURN)
    assert table.deal(0).status_code == 201
    return table.id


@pytest.mark.slow
def test_the_worker_process_makes_the_moves_nobody_reads(app, client, new_table, database_url, tmp_path):
    log = tmp_path / "worker.log"
    with coins_worker(database_url, log) as worker:
        game_id = _dealt_game(new_table)
        dealt = _actions(app, game_id)
        assert _until(lambda: _actions(app, game_id) > dealt, TURN + 10), log.read_text()[-2000:]
        assert _until(lambda: client.get("/readyz").json["roles"]["worker"] == "up", 10)
        worker.send_signal(signal.SIGKILL)  # killed at any instant: what it had not committed is still due
        worker.wait(10)
    with coins_worker(database_url, log) as again:
        game_id = _dealt_game(new_table)
        dealt = _actions(app, game_id)
        assert _until(lambda: _actions(app, game_id) > dealt, TURN + 10), log.read_text()[-2000:]
        again.send_signal(signal.SIGTERM)
        assert again.wait(10) == 0
    assert "Traceback" not in log.read_text()
