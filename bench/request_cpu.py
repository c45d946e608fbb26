"""CPU per request: what one request costs the worker that serves it, by kind, with bots at the table.

Each request runs in process through Flask's test client (SQLite in a temporary directory, access
logs off) and is timed with :func:`time.thread_time`: the CPU time of the serving thread, the
engine, the bots, the rendering and the driver's calls included, waits excluded. The kinds:

- ``play_3_people``: ``playCard`` at a table of three people (no bots): the request that
  bench/http_load.py repeats, its cost the service's own (parsing, use case, store, rendering);
- ``create_3_experts``: ``createGame`` with three expert bots to 100 points (unauthenticated);
- ``play_vs_2_experts``: a person's ``playCard`` at a table with two expert bots (their answers
  included), over whole hands;
- ``worker_bots_game``: the worker's step for the three-expert game (``make_due_moves``, what a
  pass does for one due game), step after step until it is finished: the moves a request left owed
  (a read makes none);
- ``play_3_people_keyed`` (with ``--idempotency-keys``): ``playCard`` at a second table of three
  people, each play with an ``Idempotency-Key`` of its own, played turn about with the first table;
- ``play_3_players`` (with ``--player-keys``): ``playCard`` at a table of three players, each
  sending their player key (``{"player": "me"}`` seats), played turn about with the table of
  people's seat tokens, so that both are measured in one run, alike;
- ``worker_pass_empty`` and ``worker_pass_after_play`` (with ``--worker-passes N``): the worker's
  pass as ``coins-worker`` runs one (``Worker.run_due``, then ``pause``), N times with nothing due,
  then after each of N plays at a table of three players (what the play owes their feeds: a pass
  follows every signalled change);
- ``player_feed_start`` and ``player_feed_page`` (with ``--feed-reads N``): ``getPlayerEvents``
  (``wait=0``) of a player in five games, N times from the start (the ``player`` event first: the
  profile and the games in progress) and N times after its last event (the page a bot's poll, or a
  stream resumed, reads), in turn.

``--before REF`` also measures the code of a git commit, checked out in a temporary worktree
(``git worktree add``) and run in a subprocess with the same script: ``--rounds`` runs of each,
alternating, the requests of each side pooled.

``--compare NAME,...`` measures what each fast path buys: ``--rounds`` runs (subprocesses), each
alternating the plays and reads among people request by request between the service as it is and
the service with one named fast path swapped for its slow twin (:mod:`bench.slow_twins`); it prints,
by kind, the median over the runs of each run's median, and each twin's extra CPU as a share of the
request's CPU without the fast path (``gain``). ``--database-url`` runs on PostgreSQL (a fresh
database per subprocess, dropped after); ``--rate-limits on`` counts the requests as deployed.

Whichever the mode, the last line is ``request_cpu=<json>``: by kind, the count and the CPU
milliseconds (``p50_ms``, ``p99_ms``, ``max_ms``) under ``after`` (and ``before``); with ``--compare``,
by kind and variant, ``p50_ms`` and ``gain``, and the ``rounds``::

    .venv/bin/python -m bench.request_cpu [--games 3] [--plays 120] [--people-plays 0] [--before HEAD]
    .venv/bin/python -m bench.request_cpu --games 0 --plays 0 --people-plays 1400 --rounds 5 \\
        --compare fast_dump,driver [--database-url postgresql://postgres@127.0.0.1:5432/test]
    .venv/bin/python -m bench.request_cpu --games 0 --plays 0 --people-plays 1000 --player-keys
    .venv/bin/python -m bench.request_cpu --games 0 --plays 0 --people-plays 1000 --idempotency-keys
    .venv/bin/python -m bench.request_cpu --games 0 --plays 0 --worker-passes 300 --before HEAD~1 --rounds 3
    .venv/bin/python -m bench.request_cpu --games 0 --plays 0 --feed-reads 500 --before HEAD~1 --rounds 3
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KINDS = (
    "play_3_people", "play_3_people_keyed", "play_3_players", "read_game", "create_3_experts", "play_vs_2_experts", "worker_bots_game",
    "worker_pass_empty", "worker_pass_after_play", "player_feed_start", "player_feed_page",
)  # fmt: skip
MAX_READS = 5_000
AS_IS = "as_is"


def measure(
    games: int,
    plays: int,
    people_plays: int,
    database_url: str,
    rate_limits: str,
    twins: list[str],
    player_keys: bool = False,
    worker_passes: int = 0,
    idempotency_keys: bool = False,
    feed_reads: int = 0,
) -> dict[str, list[float]]:
    """CPU seconds of each request, by kind (``service`` is whichever tree is first on the path);
    with ``twins``, the plays and reads among people also as ``<kind>@<twin>``, in turn."""
    from service import create_app
    from service.config import Settings

    with _database(database_url) as url:
        # No pace: the worker's steps here make the moves due at once (a tree before it has none).
        no_pace: dict[str, Any] = (
            {"bot_pace_ms": 0, "trick_pause_ms": 0} if "bot_pace_ms" in Settings.__dataclass_fields__ else {}
        )
        settings = Settings(database_url=url, log_level="WARNING", rate_limits=rate_limits, **no_pace)
        app = create_app(settings)
        client = app.test_client()
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}

        def timed(kind: str, method: str, url: str, twin: str = AS_IS, **kwargs: Any) -> Any:
            from bench.slow_twins import TWINS

            with contextlib.nullcontext() if twin == AS_IS else TWINS[twin](app):
                started = time.thread_time()
                response = client.open(url, method=method, **kwargs)
                spent = time.thread_time() - started
            times.setdefault(kind if twin == AS_IS else f"{kind}@{twin}", []).append(spent)
            assert response.status_code < 300, (url, response.status_code, response.json)
            return response.json

        for number in range(games):
            body = {"target_score": 100, "seats": [{"bot": "expert"}] * 3, "seed": f"cpu-{number}"}
            game = timed("create_3_experts", "POST", "/v1/games", json=body)
            games_service = app.extensions["coins.games"]
            for _ in range(MAX_READS):
                started = time.thread_time()
                moved = games_service.make_due_moves(game["id"])
                times.setdefault("worker_bots_game", []).append(time.thread_time() - started)
                if not moved:
                    break
        _play_against_experts(client, timed, plays)
        variants = [AS_IS, *twins]
        _play_among_people(client, timed, people_plays, variants, player_keys=player_keys, keyed=idempotency_keys)
        if worker_passes:
            _worker_passes(settings, client, worker_passes, times)
        if feed_reads:
            _feed_reads(client, timed, feed_reads)
        app.extensions["coins.db"].dispose()
        return times


@contextlib.contextmanager
def _database(database_url: str) -> Iterator[str]:
    """A fresh database: SQLite in a temporary directory, or a new PostgreSQL database on the
    server of ``database_url``, dropped afterwards."""
    if not database_url:
        with tempfile.TemporaryDirectory() as directory:
            yield f"sqlite:///{directory}/bench.sqlite3"
        return
    import psycopg
    from sqlalchemy.engine import make_url

    name = f"bench_cpu_{os.getpid()}"
    server = make_url(database_url)
    admin = server.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def _play_against_experts(client: Any, timed: Any, plays: int) -> None:
    """Ana (seat 0) plays her first legal card each turn; the two experts answer."""
    if plays <= 0:
        return
    body = {"target_score": 100, "seats": [{"name": "Ana"}, {"bot": "expert"}, {"bot": "expert"}], "first_dealer": 0}
    created = client.post("/v1/games", json={**body, "seed": "cpu-play"}).json
    game_id, headers = created["id"], {"Authorization": f"Bearer {created['credentials'][0]['token']}"}
    made = 0
    while made < plays:
        game = client.get(f"/v1/games/{game_id}").json
        if game["status"] == "finished":
            break
        if game["turn"] != 0:
            client.application.extensions["coins.games"].make_due_moves(game_id)  # the worker's step
            continue  # the experts owed moves the play's request left
        if game["status"] == "waiting_for_deal":
            client.post(f"/v1/games/{game_id}/hands", headers=headers)
            continue
        card = client.get(f"/v1/games/{game_id}/hand", headers=headers).json["cards"][0]
        timed("play_vs_2_experts", "POST", f"/v1/games/{game_id}/plays", json={"card": card}, headers=headers)
        made += 1


def _play_among_people(
    client: Any, timed: Any, plays: int, variants: list[str], *, player_keys: bool = False, keyed: bool = False
) -> None:
    """Three people play whole games, each the first card of their hand (any card held is legal);
    a new game when one ends. The plays, and the reads of the game before them, are timed, each
    with the next of ``variants`` (the service as it is, or one slow twin) in turn. With
    ``player_keys``, a table of three players (each with their key) plays too, a turn of one
    table then a turn of the other; its plays are timed as ``play_3_players``. With ``keyed``, a table
    of three people whose every play has an ``Idempotency-Key`` (``play_3_people_keyed``) too."""
    tables = [_Table(client, "play_3_people", _people_table)]
    if keyed:
        tables.append(_Table(client, "play_3_people_keyed", _people_table))
    if player_keys:
        tables.append(_Table(client, "play_3_players", _players_table))
    made = [0] * len(tables)
    for step in range(plays * 4 * len(tables) + 10):  # each play takes one turn, with a deal now and then
        if min(made) >= plays:
            return
        number = step % len(tables)
        made[number] += tables[number].turn(timed, variants[made[number] % len(variants)])


class _Table:
    """One table at a time of a kind (made by ``new``: its id and each seat's headers), a turn at a time."""

    def __init__(self, client: Any, kind: str, new: Any) -> None:
        self.client, self.kind, self.new = client, kind, new
        self.game_id = ""
        self.headers: list[dict[str, str]] = [{}] * 3

    def turn(self, timed: Any, variant: str) -> int:
        """Deal or play the turn due (the play timed; so the read before it, at the people's table): 1 if a play."""
        client = self.client
        if not self.game_id:
            self.game_id, self.headers = self.new(client)
        url = f"/v1/games/{self.game_id}"
        game = timed("read_game", "GET", url, twin=variant) if self.kind == "play_3_people" else client.get(url).json
        if game["status"] == "finished":
            self.game_id = ""
        elif game["status"] == "waiting_for_deal":
            client.post(f"{url}/hands", headers=self.headers[game["dealer"]])
        else:
            seat = game["turn"]
            card = client.get(f"{url}/hand", headers=self.headers[seat]).json["cards"][0]
            headers = self.headers[seat]
            if self.kind == "play_3_people_keyed":
                headers = {**headers, "Idempotency-Key": uuid.uuid4().hex}
            timed(self.kind, "POST", f"{url}/plays", twin=variant, json={"card": card}, headers=headers)
            return 1
        return 0


def _worker_passes(settings: Any, client: Any, passes: int, times: dict[str, list[float]]) -> None:
    """The worker's pass (see the module's docstring), on a worker of its own as ``coins-worker`` wires one."""
    from service.worker.main import worker_for

    worker = worker_for(settings)

    def one_pass(kind: str) -> None:
        started = time.thread_time()
        worker.run_due(datetime.now(UTC))
        worker.pause()
        times[kind].append(time.thread_time() - started)

    for _ in range(passes):
        one_pass("worker_pass_empty")

    def untimed(kind: str, method: str, url: str, twin: str = AS_IS, **kwargs: Any) -> Any:
        return client.open(url, method=method, **kwargs).json

    table = _Table(client, "players", _players_table)
    for _ in range(passes * 4 + 10):
        if len(times["worker_pass_after_play"]) >= passes:
            return
        if table.turn(untimed, AS_IS):
            one_pass("worker_pass_after_play")
        else:
            worker.run_due(datetime.now(UTC))  # what a new table or a deal owes, delivered untimed


def _feed_reads(client: Any, timed: Any, reads: int) -> None:
    """A player in five games (each waiting for its other players) reads their feed ``reads`` times
    from the start and ``reads`` times after its last event, in turn."""
    headers = {"Authorization": f"Bearer {client.post('/v1/players', json={'name': 'Gil'}).json['key']}"}
    for _ in range(5):
        assert (
            client.post("/v1/games", json={"seats": [{"player": "me"}, None, None]}, headers=headers).status_code == 201
        )
    for _ in range(reads):
        first = timed("player_feed_start", "GET", "/v1/players/me/events?wait=0", headers=headers)
        assert first["items"][0]["type"] == "player" and len(first["items"][0]["games"]) == 5
        timed("player_feed_page", "GET", f"/v1/players/me/events?wait=0&after={first['last_id']}", headers=headers)


def _people_table(client: Any) -> tuple[str, list[dict[str, str]]]:
    """A game of three anonymous people: each seat's token."""
    seats = [{"name": name} for name in ("Ana", "Bo", "Cy")]
    created = client.post("/v1/games", json={"target_score": 50, "seats": seats, "first_dealer": 0}).json
    return created["id"], [{"Authorization": f"Bearer {c['token']}"} for c in created["credentials"]]


def _players_table(client: Any) -> tuple[str, list[dict[str, str]]]:
    """A game of three players, each seat taken with ``{"player": "me"}``: each player's key."""
    keys = [client.post("/v1/players", json={"name": name}).json["key"] for name in ("Di", "Ed", "Flo")]
    headers = [{"Authorization": f"Bearer {key}"} for key in keys]
    body = {"target_score": 50, "seats": [{"player": "me"}, None, None], "first_dealer": 0}
    game_id = client.post("/v1/games", json=body, headers=headers[0]).json["id"]
    for seat in (1, 2):
        client.post(f"/v1/games/{game_id}/players", json={"player": "me", "seat": seat}, headers=headers[seat])
    return game_id, headers


def run_tree(tree: Path, args: argparse.Namespace) -> dict[str, list[float]]:
    """Run :func:`measure` in a subprocess importing ``service`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT}"}  # bench.slow_twins: this tree's
    command = [sys.executable, __file__, "--measure", "--compare", args.compare or "", "--games", str(args.games)]
    command += ["--plays", str(args.plays), "--people-plays", str(args.people_plays)]
    command += ["--database-url", args.database_url, "--rate-limits", args.rate_limits]
    command += ["--player-keys"] if args.player_keys else []
    command += ["--idempotency-keys"] if args.idempotency_keys else []
    command += ["--worker-passes", str(args.worker_passes), "--feed-reads", str(args.feed_reads)]
    done = subprocess.run(command, env=env, cwd=tree, check=True, capture_output=True, text=True)
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def by_kind(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """By kind measured (in the order of KINDS), the count and the CPU's p50, p99 and max in ms."""
    figures = {}
    for kind in sorted(times, key=lambda kind: (KINDS.index(kind.split("@")[0]), kind)):
        values = sorted(times[kind])
        if not values:
            continue
        p99 = values[min(len(values) - 1, round(0.99 * (len(values) - 1)))]
        figures[kind] = {
            "n": len(values),
            "p50_ms": statistics.median(values) * 1000,
            "p99_ms": p99 * 1000,
            "max_ms": values[-1] * 1000,
        }
    return figures


def summary(label: str, figures: dict[str, dict[str, float]]) -> list[str]:
    return [
        f"{label:<8} {kind:<30} n={kind_figures['n']:<5} p50={kind_figures['p50_ms']:8.3f} ms"
        f"  p99={kind_figures['p99_ms']:8.1f} ms  max={kind_figures['max_ms']:8.1f} ms"
        for kind, kind_figures in figures.items()
    ]


def rounded(figures: Any) -> Any:
    """``figures`` (of :func:`by_kind` or :func:`compare`) for the last line, to the thousandth."""
    if isinstance(figures, dict):
        return {name: rounded(value) for name, value in figures.items()}
    return round(figures, 3)


def compare(args: argparse.Namespace) -> tuple[list[str], dict[str, dict[str, dict[str, float]]]]:
    """``--rounds`` runs, each alternating request by request between the service as it is and
    each slow twin; by kind, the median over the runs of each run's median, and each twin's gain:
    the CPU it costs over the fast path, as a share of the request's CPU without the fast path.
    The lines printed, and the figures by kind and variant: ``p50_ms`` and, of a twin, ``gain``."""
    medians: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for kind, values in run_tree(ROOT, args).items():
            if values:
                medians.setdefault(kind, []).append(statistics.median(values))
    lines = [f"{'kind':<16} {'variant':<18} {'p50 CPU':>11} {'gain':>7}   (median of {args.rounds} runs)"]
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for kind in ("play_3_people", "read_game"):
        fast = statistics.median(medians[kind])
        lines.append(f"{kind:<16} {AS_IS:<18} {fast * 1000:8.3f} ms")
        figures[kind] = {AS_IS: {"p50_ms": fast * 1000}}
        for twin in args.compare.split(","):
            slow = statistics.median(medians[f"{kind}@{twin}"])
            lines.append(f"{kind:<16} {twin:<18} {slow * 1000:8.3f} ms {(slow - fast) / slow:7.1%}")
            figures[kind][twin] = {"p50_ms": slow * 1000, "gain": (slow - fast) / slow}
    return lines, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="three-expert games to 100 (default 3)")
    parser.add_argument("--plays", type=int, default=120, help="plays against two experts (default 120)")
    parser.add_argument("--people-plays", type=int, default=0, help="plays among three people (default 0)")
    parser.add_argument("--before", metavar="REF", help="also measure this git commit's code, first")
    parser.add_argument("--compare", metavar="NAME,...", help="fast paths to measure against their slow twins")
    parser.add_argument(
        "--rounds", type=int, default=5, help="runs of --compare, or of each side of --before (default 5)"
    )
    parser.add_argument("--database-url", default="", help="PostgreSQL server to run on (default: SQLite)")
    parser.add_argument("--rate-limits", choices=("on", "off"), default="off", help="(default off)")
    parser.add_argument(
        "--player-keys", action="store_true", help="also play a table of players with their keys (play_3_players)"
    )
    parser.add_argument("--worker-passes", type=int, default=0, help="the worker's passes, empty and after a play")
    parser.add_argument(
        "--idempotency-keys",
        action="store_true",
        help="also play a table of people with a key on every play (play_3_people_keyed)",
    )
    parser.add_argument(
        "--feed-reads", type=int, default=0, help="a player's feed read from the start and after its last event"
    )
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the subprocess's part
    args = parser.parse_args()
    if args.compare and not args.measure:
        from bench.slow_twins import TWINS

        unknown = sorted(set(args.compare.split(",")) - set(TWINS))
        if unknown:
            parser.error(f"--compare: no fast path named {', '.join(unknown)} (there are {', '.join(TWINS)})")
        if args.people_plays < 1 + len(args.compare.split(",")):  # the plays go round the service and each twin
            parser.error(
                "--compare needs --people-plays of at least 1 + the fast paths named, so that each is measured"
            )
    if args.measure:
        twins = args.compare.split(",") if args.compare else []
        times = measure(
            args.games, args.plays, args.people_plays, args.database_url, args.rate_limits, twins, args.player_keys,
            args.worker_passes, args.idempotency_keys, args.feed_reads,
        )  # fmt: skip
        print(json.dumps(times))
        return
    if args.compare:
        lines, figures = compare(args)
        print("\n".join(lines))
        print("request_cpu=" + json.dumps({"rounds": args.rounds, "compare": rounded(figures)}))
        return
    if not args.before:
        after = by_kind(run_tree(ROOT, args))
        print("\n".join(summary("after", after)))
        print("request_cpu=" + json.dumps({"after": rounded(after)}))
        return
    pooled: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    with tempfile.TemporaryDirectory() as directory:
        tree = Path(directory) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), args.before], cwd=ROOT, check=True)
        try:
            for number in range(args.rounds):  # before first, then after first, and so on
                order = [("before", tree), ("after", ROOT)]
                for label, where in order if number % 2 == 0 else order[::-1]:
                    for kind, values in run_tree(where, args).items():
                        pooled[label].setdefault(kind, []).extend(values)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True)
    before, after = by_kind(pooled["before"]), by_kind(pooled["after"])
    print("\n".join(summary("before", before) + summary("after", after)))
    print("request_cpu=" + json.dumps({"before": rounded(before), "after": rounded(after)}))


if __name__ == "__main__":
    main()
