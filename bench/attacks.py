"""The attacks of issue 25 from one address, against the service as deployed: what each gets now.

Serves ``gunicorn -c gunicorn.conf.py wsgi:app`` (the README's command, its limits on) on a fresh
SQLite database on 127.0.0.1, and attacks it from 127.0.0.2, .3 and .4 (one address an attack, so
that their limits stay apart), each attack for ``--seconds``:

- ``rematches``: a one-person game against two random bots to 1 point, played to its end, then
  ``rematchGame`` again and again, each new game played to its end too: the games it makes;
- ``bots-only``: ``createGame`` with three expert bots, as fast as answered: the games it makes;
- ``unauthenticated``: POSTs with an ``Idempotency-Key`` and a bogus token (deal, rematch, play) and
  POSTs to a game that does not exist: the rows they leave in ``idempotency_keys`` and ``rate_limits``.

The issue measured the same attacks before the fixes (2026-12-01): 717 rematch games in 30 s, 30
bot-only games a minute, 687 stored keys a second on SQLite. Streams and records have their own
scripts (``bench.stream_shares``, ``bench.record_cache``)::

    .venv/bin/python -m bench.attacks [--seconds 30]

Every request goes to 127.0.0.1 from 127.0.0.2 to .4; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sqlite3
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.server import free_port, serve

ROOT = Path(__file__).resolve().parents[1]
MAX_REQUESTS = 20_000  # per attack: far above what its seconds allow


class Client:
    """JSON over one keep-alive connection from the attacker's address; counts the statuses."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.statuses: Counter[int | str] = Counter()
        self._connection = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(self.source, 0))

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Accept": "application/json", "Idempotency-Key": str(uuid.uuid4())}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            self._connection.request(method, path, body=data, headers=headers)
            response = self._connection.getresponse()
            status, raw = response.status, response.read()
        except (OSError, http.client.HTTPException):
            self._connection.close()
            self._connection = self._connect()
            self.statuses[0] += 1
            return 0, None
        answer = json.loads(raw) if raw else None
        self.statuses[f"{status} {answer.get('code')}" if status >= 400 and isinstance(answer, dict) else status] += 1
        return status, answer


def play_out(client: Client, game: dict[str, Any], token: str, deadline: float) -> bool:
    """Play the person's cards (the first in hand) until the game ends; False if it could not."""
    game_id = game["id"]
    for _ in range(200):
        if game["status"] == "finished":
            return True
        if time.monotonic() > deadline:
            return False
        status, hand = client.call("GET", f"/v1/games/{game_id}/hand", token=token)
        if status != 200 or not hand["cards"]:
            status, game = client.call("GET", f"/v1/games/{game_id}")
            if status != 200:
                return False
            continue
        status, result = client.call("POST", f"/v1/games/{game_id}/plays", {"card": hand["cards"][0]}, token=token)
        if status == 201:
            game = result["game"]
            continue
        status, game = client.call("GET", f"/v1/games/{game_id}")  # not its turn, or the bots ended it
        if status != 200:
            return False
    return False


def rematches(port: int, seconds: float) -> dict[str, Any]:
    client, deadline, made = Client(port, "127.0.0.2"), time.monotonic() + seconds, 0
    seats = [{"name": "Ana"}, {"bot": "random"}, {"bot": "random"}]
    status, game = client.call("POST", "/v1/games", {"seats": seats, "target_score": 1, "auto_deal": True})
    if status != 201:
        return {"error": status}
    token, made = game["credentials"][0]["token"], 1
    for _ in range(MAX_REQUESTS):
        if time.monotonic() > deadline or not play_out(client, game, token, deadline):
            break
        status, rematch = client.call("POST", f"/v1/games/{game['id']}/rematch", token=token)
        if status == 429:
            time.sleep(0.05)  # as an attacker would: try again at once, not after Retry-After
            continue
        if status not in (200, 201):
            break
        game, token, made = rematch["game"], rematch["token"], made + (status == 201)
    return {"games": made, "statuses": dict(client.statuses)}


def bots_only(port: int, seconds: float) -> dict[str, Any]:
    client, deadline, made = Client(port, "127.0.0.3"), time.monotonic() + seconds, 0
    body = {"seats": [{"bot": "expert"}] * 3, "target_score": 100, "auto_deal": True}
    for _ in range(MAX_REQUESTS):
        if time.monotonic() > deadline:
            break
        status, _ = client.call("POST", "/v1/games", body)
        made += status == 201
    return {"games": made, "statuses": dict(client.statuses)}


def unauthenticated(port: int, seconds: float, database: Path) -> dict[str, Any]:
    client, deadline = Client(port, "127.0.0.4"), time.monotonic() + seconds
    people = [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}]
    _, game = Client(port, "127.0.0.1").call("POST", "/v1/games", {"seats": people})  # a game of another address
    paths = [f"/v1/games/{game['id']}/hands", f"/v1/games/{game['id']}/rematch", f"/v1/games/{game['id']}/plays"]
    paths.append("/v1/games/01ARZ3NDEKTSV4RRFFQ69G5FAV/hands")  # a game that does not exist
    before, sent = _rows(database), 0
    for number in range(MAX_REQUESTS):
        if time.monotonic() > deadline:
            break
        body = {"card": "ace-coins"} if paths[number % 4].endswith("/plays") else None
        client.call("POST", paths[number % 4], body, token=uuid.uuid4().hex)
        sent += 1
    after = _rows(database)
    return {"requests": sent, "rows_added": {table: after[table] - before[table] for table in after},
            "statuses": dict(client.statuses)}  # fmt: skip


def _rows(database: Path) -> dict[str, int]:
    with sqlite3.connect(database) as connection:
        return {
            table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("idempotency_keys", "rate_limits")
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="each attack's length")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "coins.sqlite3"
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{database}",
            "BIND": f"127.0.0.1:{port}",
            "LOG_LEVEL": "WARNING",
        }
        for name in ("PROMETHEUS_MULTIPROC_DIR", "RATE_LIMITS", "WEB_CONCURRENCY", "REDIS_URL"):
            env.pop(name, None)
        command = [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py", "wsgi:app"]
        with serve(command, port=port, env=env, cwd=ROOT, log=Path(folder) / "gunicorn.log", start_seconds=60):
            summary = {
                "seconds": args.seconds,
                "rematches": rematches(port, args.seconds),
                "bots_only": bots_only(port, args.seconds),
                "unauthenticated": unauthenticated(port, args.seconds, database),
            }
    for name in ("rematches", "bots_only", "unauthenticated"):
        print(f"{name:16} {summary[name]}")
    print("attacks=" + json.dumps(summary))


if __name__ == "__main__":
    main()
