"""Issue 34's goal: a rated quick-play game nobody reads, played to its end on schedule.

Serves every role (``honcho`` runs the ``Procfile``: the real-time role answering every request, the
worker beside it, as ``tests/support/server.py``'s ``serve_roles`` does) on a fresh SQLite database,
with the production pace (``BOT_PACE_MS`` 1000, ``TRICK_PAUSE_MS`` 1500 unless given). One player,
Ana, queues for a rated quick-play game with a short clock (``--clock`` seconds, 5) and bots at once;
the wave seats the two bots of different strengths closest to her rating: the script first rates
the bots in their order of strength and Ana between the ``basic`` and the ``expert`` bot (in the
database, before she queues), so that those two are hers. Once matched, she stops reading (with ``--first-card``, once she has
played one card: a rated game a seat leaves before its holder played is void, and rates nobody):
nobody reads the game or follows its events until it is over (the script looks at the database
file alone, for its status). Ana lets her deadlines pass: a stand-in plays for her at the first,
and at the second she has left, a ``basic`` bot in her seat. The game then plays on, unfollowed,
as a game a player left must (her rating waits for its result). At the end the script reads the
action log, the game and Ana's profile: it prints the timeline and the gaps between moves, by kind
(a bot's after a move, after a trick, a stand-in's after its deadline, the leave), and whether the
result was rated. The last line is ``unread_game=<json>``: those figures (``finished`` true), or,
when the game outlasts ``--seconds``, ``finished`` false with the game's status then::

    .venv/bin/python -m bench.unread_game [--clock 5] [--target 3] [--first-card] [--seconds 600]

Bounded: the game must end within ``--seconds``, else the script says so and stops the server.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
import urllib.error
import urllib.request
from collections import defaultdict
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from tests.support.server import serve_roles

ROOT = Path(__file__).resolve().parent.parent
BOT_MU = {"random": 15.0, "basic": 25.0, "expert": 30.0, "master": 35.0}  # the ratings' scale: 25 a new player


def call(base: str, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
    """One JSON request; the decoded answer."""
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def rated_between_basic_and_expert(database: Path, player_id: str) -> None:
    """The bots rated in their order of strength, as a service's ratings come to rank them (a fresh
    database rates all four alike), and Ana halfway between the basic and the expert bot: quick play
    seats those two beside her."""
    with sqlite3.connect(database, timeout=30) as connection:
        for bot, mu in BOT_MU.items():
            connection.execute("UPDATE players SET mu = ? WHERE bot = ?", (mu, bot))
        connection.execute(
            "UPDATE players SET mu = ? WHERE id = ?", ((BOT_MU["basic"] + BOT_MU["expert"]) / 2, player_id)
        )


def first_card(base: str, key: str, player_id: str, game_id: str) -> None:
    """Ana plays one card (the first her hand allows) on her first turn, reading until then."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        game = call(base, "GET", f"/v1/games/{game_id}", key=key)
        mine = next(number for number, seat in enumerate(game["seats"]) if seat.get("player") == player_id)
        if game["status"] == "playing" and game["turn"] == mine:
            for card in call(base, "GET", f"/v1/games/{game_id}/hand", key=key)["cards"]:
                try:
                    call(base, "POST", f"/v1/games/{game_id}/plays", {"card": card}, key)
                    return
                except urllib.error.HTTPError:
                    continue
        time.sleep(0.2)
    raise SystemExit("Ana's first turn did not come within 60 s")


def matched(base: str, key: str, args: argparse.Namespace) -> tuple[str, float]:
    """Ana queues and reads her ticket until it is matched: the game's id, and the time it was seen."""
    body = {"rated": True, "bots_after": 0, "turn_timeout_seconds": args.clock, "target_score": args.target}
    ticket = call(base, "POST", "/v1/queue", body, key)
    deadline = time.monotonic() + 60
    while ticket["status"] != "matched":
        if time.monotonic() > deadline:
            raise SystemExit(f"not matched within 60 s: {ticket}")
        time.sleep(0.2)
        ticket = call(base, "GET", f"/v1/queue/{ticket['id']}", key=key)
    return ticket["game"], time.time()


def status(database: Path, game_id: str) -> str:
    """The game's status from the database file: no request, no stream (nobody reads the game)."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
        row = connection.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
    return str(row[0])


def actions(base: str, game_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = ""
    while True:
        page = call(base, "GET", f"/v1/games/{game_id}/actions?limit=500{cursor}")
        found += page["items"]
        if not page.get("next_cursor"):
            return found
        cursor = f"&cursor={page['next_cursor']}"


def gaps(log: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Seconds from each action to the next, by what the next one is: ``pace`` (a bot's or an
    auto-deal after a move), ``trick`` (the same after a trick or a hand), ``timeout`` (a stand-in),
    ``leave`` (the bot's move in the seat of a person who let a deadline pass again)."""
    kinds: dict[str, list[float]] = defaultdict(list)
    plays_in_hand = 0
    lapsed: set[int] = set()
    for before, after in pairwise(log):
        plays_in_hand = 0 if before["kind"] == "deal" else plays_in_hand + 1
        gap = (_at(after) - _at(before)).total_seconds()
        if after["cause"] == "timeout":
            kinds["timeout"].append(gap)
            lapsed.add(after["seat"])
        elif after["cause"] == "bot" and after["seat"] in lapsed:
            kinds["leave"].append(gap)
            lapsed.discard(after["seat"])
        elif after["cause"] in ("bot", "auto"):
            kinds["trick" if before["kind"] == "play" and plays_in_hand % 3 == 0 else "pace"].append(gap)
    return kinds


def _at(action: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(action["created_at"])


def report(log: list[dict[str, Any]], game: dict[str, Any], profile: dict[str, Any], started: float) -> dict[str, Any]:
    """Print the game's timeline, its gaps by kind and its result; return those figures."""
    first = _at(log[0])
    seats = [(seat.get("bot") or "person", seat["score"]) for seat in game["seats"]]
    print(f"game {game['id']}: {game['status']}, winner seat {game.get('winner')}; seats (holder, score) {seats}")
    for action in log if len(log) <= 16 else [*log[:12], {"seq": "…"}, *log[-4:]]:
        if "kind" not in action:
            print("   …")
            continue
        offset = (_at(action) - first).total_seconds()
        print(f"  +{offset:7.2f} s  #{action['seq']:<4} {action['kind']:4} seat {action['seat']} {action['cause']}")
    gaps_by_kind: dict[str, dict[str, float]] = {}
    for kind, values in sorted(gaps(log).items()):
        values.sort()
        print(
            f"  gaps before a {kind:7} n={len(values):3}  min {values[0]:.2f}  median {statistics.median(values):.2f}"
            f"  max {values[-1]:.2f} s"
        )
        gaps_by_kind[kind] = {
            "n": len(values),
            "min_s": round(values[0], 2),
            "median_s": round(statistics.median(values), 2),
            "max_s": round(values[-1], 2),
        }
    length = (_at(log[-1]) - first).total_seconds()
    seen = time.time() - started
    print(f"  {len(log)} actions in {length:.1f} s; {seen:.1f} s from the match to the end seen")
    print(f"  rated {game['rated']}, void {game.get('void')}; Ana's rating now {profile['rating']}")
    return {
        "status": game["status"],
        "winner_seat": game.get("winner"),
        "seats": [{"holder": holder, "score": score} for holder, score in seats],
        "actions": len(log),
        "game_s": round(length, 1),
        "match_to_end_seen_s": round(seen, 1),
        "gaps": gaps_by_kind,
        "rated": game["rated"],
        "void": game.get("void"),
        "rating": profile["rating"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clock", type=int, default=5, help="the turn clock, seconds (5 at least)")
    parser.add_argument("--target", type=int, default=3, help="the game's target score")
    parser.add_argument("--first-card", action="store_true", help="Ana plays one card before she stops reading")
    parser.add_argument("--seconds", type=float, default=600.0, help="the bound on the game's length")
    parser.add_argument("--pace-ms", default="1000", help="BOT_PACE_MS")
    parser.add_argument("--trick-pause-ms", default="1500", help="TRICK_PAUSE_MS")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {
            "QUEUE_MATCH_SECONDS": "1",
            "LOG_LEVEL": "WARNING",
            "BOT_PACE_MS": args.pace_ms,
            "TRICK_PAUSE_MS": args.trick_pause_ms,
        }
        with serve_roles(Path(folder), cwd=ROOT, **env) as server:
            base = server.url
            database = Path(folder) / "coins.sqlite3"
            ana = call(base, "POST", "/v1/players", {"name": "Ana"})
            rated_between_basic_and_expert(database, ana["id"])
            game_id, started = matched(base, ana["key"], args)
            if args.first_card:
                first_card(base, ana["key"], ana["id"], game_id)
            print(f"matched in game {game_id}; Ana stops reading")
            while (state := status(database, game_id)) != "finished":
                if time.time() - started > args.seconds:
                    unfinished = {"finished": False, "game_id": game_id, "status": state, "limit_s": args.seconds}
                    print("unread_game=" + json.dumps(unfinished), flush=True)
                    raise SystemExit(f"the game did not finish within {args.seconds:.0f} s")
                time.sleep(0.5)
            time.sleep(2)  # the worker applies the rated result just after the end
            game = call(base, "GET", f"/v1/games/{game_id}")
            profile = call(base, "GET", f"/v1/players/{ana['id']}")
            figures = report(actions(base, game_id), game, profile, started)
    print("unread_game=" + json.dumps({"finished": True, "game_id": game_id, **figures}))


if __name__ == "__main__":
    main()
