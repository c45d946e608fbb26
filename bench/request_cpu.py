"""CPU per request: what one request costs the worker that serves it, by kind, with bots at the table.

Each request runs in process through Flask's test client (SQLite in a temporary directory, access
logs off) and is timed with :func:`time.thread_time`: the CPU time of the serving thread, the
engine, the bots, the rendering and the driver's calls included, waits excluded. Three kinds:

- ``create_3_experts``: ``createGame`` with three expert bots to 100 points (unauthenticated);
- ``play_vs_2_experts``: a person's ``playCard`` at a table with two expert bots (their answers
  included), over whole hands;
- ``read_bots_game``: ``getGame`` of the three-expert game, read until it is finished (these reads
  make the moves the server still owes);
- ``play_3_people`` and ``play_3_people_keyed``: ``playCard`` at a table of three people (no bots:
  the request's own cost), the second with an ``Idempotency-Key`` on every POST.

``--before REF`` also measures the code of a git commit, checked out in a temporary worktree
(``git worktree add``) and run in a subprocess with the same script, the same run::

    .venv/bin/python -m bench.request_cpu [--games 3] [--plays 120] [--before HEAD]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("create_3_experts", "play_vs_2_experts", "read_bots_game", "play_3_people", "play_3_people_keyed")
MAX_READS = 5_000


def measure(games: int, plays: int) -> dict[str, list[float]]:
    """CPU seconds of each request, by kind (``service`` is whichever tree is first on the path)."""
    from service import create_app
    from service.config import Settings

    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(database_url=f"sqlite:///{directory}/bench.sqlite3", log_level="WARNING", rate_limits="off")
        client = create_app(settings).test_client()
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}

        def timed(kind: str, method: str, url: str, **kwargs: Any) -> Any:
            started = time.thread_time()
            response = client.open(url, method=method, **kwargs)
            times[kind].append(time.thread_time() - started)
            assert response.status_code < 300, (url, response.status_code, response.json)
            return response.json

        for number in range(games):
            body = {"target_score": 100, "seats": [{"bot": "expert"}] * 3, "seed": f"cpu-{number}"}
            game = timed("create_3_experts", "POST", "/v1/games", json=body)
            for _ in range(MAX_READS):
                game = timed("read_bots_game", "GET", f"/v1/games/{game['id']}")
                if game["status"] == "finished":
                    break
        _play_against_experts(client, timed, plays)
        _play_among_people(client, timed, plays, keyed=False)
        _play_among_people(client, timed, plays, keyed=True)
        return times


def _play_against_experts(client: Any, timed: Any, plays: int) -> None:
    """Ana (seat 0) plays her first legal card each turn; the two experts answer."""
    body = {"target_score": 100, "seats": [{"name": "Ana"}, {"bot": "expert"}, {"bot": "expert"}], "first_dealer": 0}
    created = client.post("/v1/games", json={**body, "seed": "cpu-play"}).json
    game_id, headers = created["id"], {"Authorization": f"Bearer {created['credentials'][0]['token']}"}
    made = 0
    while made < plays:
        game = client.get(f"/v1/games/{game_id}").json
        if game["status"] == "finished":
            break
        if game["turn"] != 0:
            continue  # the experts still owe moves: this read made some
        if game["status"] == "waiting_for_deal":
            client.post(f"/v1/games/{game_id}/hands", headers=headers)
            continue
        card = client.get(f"/v1/games/{game_id}/hand", headers=headers).json["cards"][0]
        timed("play_vs_2_experts", "POST", f"/v1/games/{game_id}/plays", json={"card": card}, headers=headers)
        made += 1


def _play_among_people(client: Any, timed: Any, plays: int, *, keyed: bool) -> None:
    """Three people play their first legal card each turn, over new games as they end; ``keyed``:
    each POST with a new ``Idempotency-Key``."""
    kind = "play_3_people_keyed" if keyed else "play_3_people"
    made, number = 0, 0
    while made < plays:
        body = {"seats": [{"name": name} for name in ("Ana", "Bo", "Cy")], "seed": f"cpu-{kind}-{number}"}
        created = client.post("/v1/games", json={**body, "auto_deal": True, "first_dealer": 0}).json
        number += 1
        game_id = created["id"]
        auth = {c["seat"]: {"Authorization": f"Bearer {c['token']}"} for c in created["credentials"]}
        while made < plays:
            game = client.get(f"/v1/games/{game_id}").json
            if game["status"] != "playing":
                break
            seat = game["turn"]
            card = client.get(f"/v1/games/{game_id}/hand", headers=auth[seat]).json["cards"][0]
            headers = {**auth[seat], **({"Idempotency-Key": f"cpu-{made}-{number}"} if keyed else {})}
            timed(kind, "POST", f"/v1/games/{game_id}/plays", json={"card": card}, headers=headers)
            made += 1


def run_tree(tree: Path, games: int, plays: int) -> dict[str, list[float]]:
    """Run :func:`measure` in a subprocess importing ``service`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, __file__, "--measure", "--games", str(games), "--plays", str(plays)]
    done = subprocess.run(command, env=env, cwd=tree, check=True, capture_output=True, text=True)
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summary(label: str, times: dict[str, list[float]]) -> list[str]:
    lines = []
    for kind in KINDS:
        values = sorted(times.get(kind, []))
        if not values:
            lines.append(f"{label:<8} {kind:<20} n=0")
            continue
        p99 = values[min(len(values) - 1, round(0.99 * (len(values) - 1)))]
        lines.append(
            f"{label:<8} {kind:<20} n={len(values):<5} p50={statistics.median(values) * 1000:8.1f} ms"
            f"  p99={p99 * 1000:8.1f} ms  max={values[-1] * 1000:8.1f} ms"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="three-expert games to 100 (default 3)")
    parser.add_argument("--plays", type=int, default=120, help="plays against two experts (default 120)")
    parser.add_argument("--before", metavar="REF", help="also measure this git commit's code, first")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the subprocess's part
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.games, args.plays)))
        return
    lines = []
    if args.before:
        with tempfile.TemporaryDirectory() as directory:
            tree = Path(directory) / "before"
            subprocess.run(["git", "worktree", "add", "--detach", str(tree), args.before], cwd=ROOT, check=True)
            try:
                lines += summary("before", run_tree(tree, args.games, args.plays))
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True)
    lines += summary("after", run_tree(ROOT, args.games, args.plays))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
