"""HTTP load benchmark: simulated players through complete games against the service as deployed.

For each database (SQLite, PostgreSQL) it starts the service as it is deployed, ``gunicorn -c
gunicorn.conf.py wsgi:app`` on a free port of 127.0.0.1, with ``--workers`` workers
(``WEB_CONCURRENCY``; 5 by default, what gunicorn.conf.py picks on 2 cores) and the rest of
gunicorn.conf.py as it stands, and ``RATE_LIMITS=off``: the load comes from one address and a
few tokens, far past the limits. At each level of concurrent games (1, 4 and 16 by default) it
runs one client thread per game: create a game with three seats, deal, read the three hands,
play a card for whoever's turn it is until the game is finished (any card held is legal in
Coins), dealing again whenever a hand is due; then the next game. With ``--idempotency-keys``
every POST (create, deal, play) carries a new ``Idempotency-Key``, as the SDK examples and any
retrying client send. Each measuring window (``--seconds``) follows a short warm-up; plays in
flight when it closes are abandoned, and the next window starts new games. It prints plays per
second, the p50/p95/p99 latency of the play requests, every non-2xx answer, and the CPU time the
workers spent per request (read from /proc: unlike wall-clock rates, it holds on a busy machine).

The BASELINE is bench/baseline_app.py under the same command, settings and database kind: one
endpoint, one single-row ``UPDATE … RETURNING`` transaction per request, driven by the same
number of client threads. ``--other-tree DIR`` adds a third server: the service of another
checkout (an older commit, say), served from its own folder with its own gunicorn.conf.py and
the same settings, on a fresh database of its own with its own worker role (unless
``--without-worker-role``), so that before and after are measured in one session;
``--other-gunicorn-args`` serve it another way (alone: this checkout, e.g. ``-k gevent
--worker-connections 600`` for gunicorn's gevent worker). All servers run side by side; each level
runs ``--repeats`` rounds, one window per server, back to back, in every order in turn
(:func:`window_orders`: so that neither what a window leaves behind nor a machine speeding up or
slowing down favours one; ``--repeats 6`` with ``--other-tree``), and medians are reported. ``ratio`` is the median over the rounds of
a service's plays/s over the baseline's updates/s in the same round: the windows of a round share
whatever else the machine was doing.

Goals (both databases): plays/s at 16 concurrent games >= 55% of the baseline on SQLite, >= 50%
on PostgreSQL, >= 45% with an Idempotency-Key on every POST; p99 < 15 ms for a lone game and
< 50 ms at 4 concurrent games; zero non-2xx answers.

    .venv/bin/python -m bench.http_load [--db sqlite,postgres] [--levels 1,4,16] [--seconds 10]
        [--repeats 5] [--workers 5] [--idempotency-keys] [--other-tree ../old] [--other-gunicorn-args "-k gevent"]
        [--postgres-url postgresql://postgres@127.0.0.1:5432/test] [--log-level INFO] [--json out.json]

Everything talks to 127.0.0.1 only; every loop is bounded in count and time. The last line is
``http_load=<json summary>``.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import math
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.baseline_app import ROWS, prepare
from tests.support.processes import children, cpu_seconds
from tests.support.server import free_port, serve, worker_beside

REPO = Path(__file__).resolve().parent.parent

HOST = "127.0.0.1"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
POSTGRES_SCHEMA = "coins_bench"
WORKERS = 5  # gunicorn.conf.py's default on 2 cores (2 × cores + 1): the baseline's count too
START_TIMEOUT = 120.0  # a busy 2-core machine: a gunicorn with 5 workers can take a minute to start
REQUEST_TIMEOUT = 30.0
MAX_REQUESTS_PER_LEVEL = 200_000  # a bound on top of the time window
PLAYERS = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]
RATIO_GOALS = {"sqlite": 0.55, "postgres": 0.50, "keyed": 0.45}  # plays/s over baseline updates/s at 16 games
LATENCY_GOALS = {1: 15.0, 4: 50.0}  # p99 ms of a play, by concurrent games


# -- the server -----------------------------------------------------------------------------


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    def log_lines(self) -> int:
        with self.log_path.open("rb") as log:
            return sum(1 for _ in log)

    def problems(self, limit: int = 20) -> list[str]:
        """The last lines of the server's output that are not per-request access lines."""
        lines = self.log_path.read_text(errors="replace").splitlines()
        return [line for line in lines if '"logger": "service.access"' not in line][-limit:]


def workers_cpu_seconds(master: int) -> float:
    """User + system CPU time of the gunicorn master's live children (its workers), from /proc."""
    return cpu_seconds(children(master))


@contextmanager
def gunicorn(
    app: str,
    database_url: str,
    workdir: Path,
    *,
    log_level: str,
    workers: int = WORKERS,
    tree: Path = REPO,
    extra: list[str] | None = None,
) -> Iterator[Server]:
    """Run ``gunicorn -c gunicorn.conf.py <app>`` from ``tree`` (its own settings file and code), with
    ``workers`` workers and rate limits off, until the block ends."""
    port = free_port()
    command = [str(Path(sys.executable).with_name("gunicorn"))]
    if (tree / "gunicorn.conf.py").exists():
        command += ["-c", str(tree / "gunicorn.conf.py")]
    command += [*(extra or []), "--no-control-socket", app]  # gunicorn 27's control socket: one path per user
    env = {
        **os.environ,
        "BIND": f"{HOST}:{port}",
        "DATABASE_URL": database_url,
        "LOG_LEVEL": log_level,
        "RATE_LIMITS": "off",  # the load is one address and a few tokens: far past the limits
        "WEB_CONCURRENCY": str(workers),
        "PYTHONPATH": str(tree),  # before the editable install of this checkout on sys.path
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # gunicorn.conf.py makes a fresh one
    env.pop("STREAM_PROCESS_SOCKET", None)  # an --other-tree from before b31bf2e makes its own stream process's
    log_path = workdir / f"{app.split(':')[0]}-{port}.log"
    with serve(
        command, port=port, env=env, cwd=tree, log=log_path, start_seconds=START_TIMEOUT, stop_seconds=20
    ) as live:
        yield Server(port, live.process, log_path)


def serves_its_own_code(tree: Path) -> str:
    """Check that a server started from ``tree`` imports that tree's ``service``; its commit, for the record."""
    found = subprocess.run(
        [sys.executable, "-c", "import service; print(service.__file__)"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    if not Path(found).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"{tree}: its server would import {found}, not its own service/")
    return commit_of(tree)


def commit_of(tree: Path) -> str:
    """The short commit of a checkout, with "+changes" when its tracked files differ from it."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True, timeout=30).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


# -- the clients ----------------------------------------------------------------------------


class Stop(Exception):
    """The measuring window is over."""


@dataclass
class Stats:
    """What one level measured: every counted request's latency and every non-2xx status."""

    counted: str  # the request kind whose latencies and rate are reported ("play" or "update")
    latencies: list[float] = field(default_factory=list)
    requests: int = 0
    games_finished: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, status: int, seconds: float, detail: str) -> None:
        with self.lock:
            self.requests += 1
            if kind == self.counted and 200 <= status < 300:
                self.latencies.append(seconds)
            if not 200 <= status < 300:
                self.failures[f"{kind} {status} {detail}"] += 1


class Client:
    """One keep-alive HTTP connection (gunicorn's sync workers close it after each answer;
    http.client then reconnects on the next request)."""

    def __init__(self, port: int, stats: Stats | None, window_end: float, *, keyed: bool = False) -> None:
        self.connection = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT)
        self.stats = stats
        self.window_end = window_end
        self.keyed = keyed  # an Idempotency-Key on every POST

    def call(self, kind: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        if time.perf_counter() >= self.window_end:
            raise Stop
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if self.keyed and method == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        started = time.perf_counter()
        try:
            self.connection.request(method, path, body=payload, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.connection.close()
            if self.stats is not None:
                self.stats.record(kind, 0, time.perf_counter() - started, type(error).__name__)
            raise Stop from error
        finished = time.perf_counter()
        if finished > self.window_end:
            raise Stop  # answered after the window closed: not counted
        try:
            parsed = json.loads(data) if data else None
        except ValueError:  # an HTML error page, say: counted by its status below
            parsed = None
        if self.stats is not None:
            detail = parsed.get("code", "") if isinstance(parsed, dict) else ""
            self.stats.record(kind, response.status, finished - started, detail)
        if not 200 <= response.status < 300:
            raise Stop  # counted and printed; this client gives up
        return parsed

    def close(self) -> None:
        self.connection.close()


def play_game(client: Client, rng: random.Random) -> None:
    """One complete game: create, deal, read hands, play until finished (raises Stop at window end)."""
    created = client.call("create", "POST", "/v1/games", {"seats": PLAYERS, "target_score": 15})
    game_id = created["id"]
    tokens = {credential["seat"]: credential["token"] for credential in created["credentials"]}
    game = created
    hands: dict[int, list[str]] = {}
    while game["status"] != "finished":
        if game["status"] == "waiting_for_deal":
            dealt = client.call("deal", "POST", f"/v1/games/{game_id}/hands", token=tokens[game["dealer"]])
            game = dealt["game"]
            for seat in range(3):
                hands[seat] = client.call("hand", "GET", f"/v1/games/{game_id}/hand", token=tokens[seat])["cards"]
            continue
        seat = game["turn"]
        card = hands[seat].pop(rng.randrange(len(hands[seat])))
        game = client.call("play", "POST", f"/v1/games/{game_id}/plays", {"card": card}, token=tokens[seat])["game"]
    if client.stats is not None:
        with client.stats.lock:
            client.stats.games_finished += 1


def bump_rows(client: Client, rng: random.Random, row: int) -> None:
    """The baseline's client: one single-row update after another, on its own row."""
    for _ in range(MAX_REQUESTS_PER_LEVEL):
        client.call("update", "POST", f"/bump/{row}")


@dataclass
class Level:
    concurrency: int
    seconds: float
    stats: Stats
    server_cpu: float  # seconds of CPU the workers used during the window
    client_cpu: float  # seconds of CPU this process (the clients) used during the window
    worker_role_cpu: float = 0.0  # seconds of CPU the service's worker role used during the window

    @property
    def server_cpu_ms_per_request(self) -> float:
        return 1000 * self.server_cpu / self.stats.requests if self.stats.requests else math.nan

    @property
    def rate(self) -> float:
        return len(self.stats.latencies) / self.seconds

    def percentile_ms(self, p: float) -> float:
        ordered = sorted(self.stats.latencies)
        if not ordered:
            return math.nan
        return 1000 * ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]

    @property
    def non_2xx(self) -> int:
        return sum(self.stats.failures.values())


def drive(
    server: Server, concurrency: int, seconds: float, counted: str, warmup: float, *, keyed: bool = False
) -> Level:
    """Run ``concurrency`` client threads for ``warmup`` (not counted) then ``seconds``; ``keyed``:
    every POST with an Idempotency-Key."""
    if warmup > 0:
        _run_threads(server.port, concurrency, warmup, None, counted, keyed)
    stats = Stats(counted)
    server_cpu, client_cpu = workers_cpu_seconds(server.process.pid), time.process_time()
    _run_threads(server.port, concurrency, seconds, stats, counted, keyed)
    server_cpu = workers_cpu_seconds(server.process.pid) - server_cpu
    return Level(concurrency, seconds, stats, server_cpu, time.process_time() - client_cpu)


def _run_threads(port: int, concurrency: int, seconds: float, stats: Stats | None, counted: str, keyed: bool) -> None:
    window_end = time.perf_counter() + seconds

    def one(index: int) -> None:
        rng = random.Random(index)
        client = Client(port, stats, window_end, keyed=keyed)
        try:
            if counted == "play":
                for _ in range(MAX_REQUESTS_PER_LEVEL):
                    play_game(client, rng)
            else:
                bump_rows(client, rng, index % ROWS)
        except Stop:
            pass
        finally:
            client.close()

    threads = [threading.Thread(target=one, args=(index,), daemon=True) for index in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + REQUEST_TIMEOUT + 10)


# -- databases ------------------------------------------------------------------------------


def postgres_schema_url(base_url: str, schema: str) -> str:
    """A fresh schema for this run (dropped and created), and a URL whose search_path is it."""
    from sqlalchemy import create_engine, text

    from service.config import Settings

    sqlalchemy_url = Settings(database_url=base_url).sqlalchemy_url
    engine = create_engine(sqlalchemy_url)
    with engine.begin() as connection:
        connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    separator = "&" if "?" in sqlalchemy_url else "?"
    return f"{sqlalchemy_url}{separator}options={quote(f'-csearch_path={schema}')}"


def fresh_database(name: str, workdir: Path, postgres_url: str, label: str) -> str:
    """The URL of a fresh, empty database of kind ``name`` for one server (``label``: its file or schema)."""
    if name == "sqlite":
        return f"sqlite:///{workdir / f'{label}.sqlite3'}"
    return postgres_schema_url(postgres_url, POSTGRES_SCHEMA if label == "service" else f"{POSTGRES_SCHEMA}_{label}")


def database_urls(name: str, workdir: Path, postgres_url: str) -> tuple[str, str]:
    """(service URL, baseline URL): two fresh, empty databases of the same kind."""
    return fresh_database(name, workdir, postgres_url, "service"), fresh_database(
        name, workdir, postgres_url, "baseline"
    )


# -- the run --------------------------------------------------------------------------------


@dataclass
class Contender:
    """One server of a run: what its clients do, and the windows it has had."""

    name: str  # "service" (this checkout), "other" (--other-tree) or "baseline"
    server: Server
    counted: str  # "play" or "update"
    keyed: bool
    worker: subprocess.Popen[bytes] | None = None  # its worker role (none: the baseline, or --without-worker-role)
    windows: list[Level] = field(default_factory=list)


def measure(name: str, levels: list[int], args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Every server up at once; at each level, ``--repeats`` rounds of one window per server, back to
    back (so a busy spell on the machine hits them all), in an order that rotates from round to
    round; the medians, and the median of the rounds' ratios."""
    urls = {label: fresh_database(name, workdir, args.postgres_url, label) for label in ("service", "baseline")}
    prepare(urls["baseline"])
    results: dict[str, Any] = {"db": name, "workers": args.workers, "keyed": args.idempotency_keys, "levels": {}}
    results["commit"] = commit_of(REPO)
    results["loadavg_before"] = round(os.getloadavg()[0], 2)
    settings = {"log_level": args.log_level, "workers": args.workers}
    with ExitStack() as servers:
        service = servers.enter_context(gunicorn("wsgi:app", urls["service"], workdir, **settings))
        # as deployed: the worker role fans a play's events out to the players' feeds
        worker_role = None if args.without_worker_role else servers.enter_context(
            _worker_role(urls["service"], args.log_level, REPO, workdir / "worker-role.log")
        )  # fmt: skip
        baseline_app = "baseline_app:create_baseline_app()"
        baseline = servers.enter_context(
            gunicorn(baseline_app, urls["baseline"], workdir, extra=["--pythonpath", str(REPO / "bench")], **settings)
        )
        contenders = [Contender("service", service, "play", args.idempotency_keys, worker_role)]
        if args.other_tree:
            results["other_commit"] = serves_its_own_code(args.other_tree)
            other_url = fresh_database(name, workdir, args.postgres_url, "other")
            other = servers.enter_context(
                gunicorn("wsgi:app", other_url, workdir, tree=args.other_tree, extra=args.other_args, **settings)
            )
            other_worker = None if args.without_worker_role else servers.enter_context(
                _worker_role(other_url, args.log_level, args.other_tree, workdir / "worker-role-other.log")
            )  # fmt: skip
            contenders.append(Contender("other", other, "play", args.idempotency_keys, other_worker))
        contenders.append(Contender("baseline", baseline, "update", False))
        for concurrency in levels:
            for contender in contenders:
                contender.windows = []
            orders = window_orders(len(contenders))
            for repeat in range(args.repeats):
                for contender in (contenders[index] for index in orders[repeat % len(orders)]):
                    # in the baseline's windows, this checkout's worker role (idle: its share is reported)
                    watched = contender.worker or worker_role
                    worker_cpu = cpu_seconds([watched.pid]) if watched else 0.0
                    level = drive(
                        contender.server,
                        concurrency,
                        args.seconds,
                        contender.counted,
                        args.warmup,
                        keyed=contender.keyed,
                    )
                    if watched:
                        level.worker_role_cpu = cpu_seconds([watched.pid]) - worker_cpu
                    contender.windows.append(level)
                    _print_level(name, contender.name, level)
            results["levels"][concurrency] = _level_results(contenders)
        results["service_log_lines"] = service.log_lines()
        for contender in contenders:
            if any(level.non_2xx for level in contender.windows):
                print(f"--- {contender.server.log_path.name}, last lines:", *contender.server.problems(), sep="\n    ")
    results["loadavg_after"] = round(os.getloadavg()[0], 2)
    return results


def window_orders(servers: int) -> list[tuple[int, ...]]:
    """The order of the servers' windows in each round, round after round: every order, each beside its
    reverse. A window pays for what the one before it left the machine (the baseline's checkpoints
    and autovacuum, say) and a machine slowing down through a round favours the first: over all the
    orders each server comes after each other as often, and in each place as often: every other round
    with two servers, every six with three (so ``--repeats 6`` with ``--other-tree``). A rotation kept
    each server after the same one: in an A/A run so ordered (this commit as ``--other-tree`` too,
    PostgreSQL, 3 rounds) the server after the baseline read 0.92 of the other."""
    orders: list[tuple[int, ...]] = []
    for order in itertools.permutations(range(servers)):
        if order not in orders:
            orders += [order, order[::-1]]
    return orders


@contextmanager
def _worker_role(database_url: str, log_level: str, tree: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``coins-worker`` of the checkout ``tree`` on ``database_url``, as deployed beside its web role."""
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": log_level, "PYTHONPATH": str(tree)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with worker_beside(env, cwd=tree, log=log) as process:
        yield process


def _level_results(contenders: list[Contender]) -> dict[str, Any]:
    """This checkout's medians against the baseline (and, with --other-tree, the other's, and new ÷ old)."""
    by_name = {contender.name: contender.windows for contender in contenders}
    baseline = by_name["baseline"]
    result = _medians(list(zip(by_name["service"], baseline, strict=True)))
    if "other" in by_name:
        result["other"] = _medians(list(zip(by_name["other"], baseline, strict=True)))
        rounds = zip(by_name["service"], by_name["other"], strict=True)
        result["service_over_other"] = _median([new.rate / old.rate for new, old in rounds if old.rate], 3)
    return result


def _median(values: list[float], digits: int) -> float:
    return round(statistics.median(values), digits) if values else math.nan


def _medians(runs: list[tuple[Level, Level]]) -> dict[str, Any]:
    median = _median
    service, baseline = [s for s, _ in runs], [b for _, b in runs]
    return {
        "plays_per_s": median([s.rate for s in service], 1),
        "p50_ms": median([s.percentile_ms(50) for s in service], 2),
        "p95_ms": median([s.percentile_ms(95) for s in service], 2),
        "p99_ms": median([s.percentile_ms(99) for s in service], 2),
        "games_finished": sum(s.stats.games_finished for s in service),
        "server_cpu_ms_per_request": median([s.server_cpu_ms_per_request for s in service], 3),
        "worker_role_cpu_ms_per_play": median(
            [1000 * s.worker_role_cpu / max(1, len(s.stats.latencies)) for s in service], 3
        ),
        "worker_role_cpu_share_in_baseline_windows": median([b.worker_role_cpu / b.seconds for b in baseline], 3),
        "client_cpu_ms_per_request": median([1000 * s.client_cpu / max(1, s.stats.requests) for s in service], 3),
        "requests": sum(s.stats.requests for s in service),
        "non_2xx": sum(s.non_2xx for s in service),
        "baseline_updates_per_s": median([b.rate for b in baseline], 1),
        "baseline_p50_ms": median([b.percentile_ms(50) for b in baseline], 2),
        "baseline_p99_ms": median([b.percentile_ms(99) for b in baseline], 2),
        "baseline_non_2xx": sum(b.non_2xx for b in baseline),
        "baseline_server_cpu_ms_per_request": median([b.server_cpu_ms_per_request for b in baseline], 3),
        "ratio": median([s.rate / b.rate for s, b in runs if b.rate], 3),
        "repeats": len(runs),
    }


def _print_level(db: str, app: str, level: Level) -> None:
    stats = level.stats
    print(
        f"{db:8} {app:8} c={level.concurrency:<3} {stats.counted}s/s={level.rate:8.1f} "
        f"p50={level.percentile_ms(50):7.2f}ms p95={level.percentile_ms(95):7.2f}ms p99={level.percentile_ms(99):7.2f}ms "
        f"requests={stats.requests} games_finished={stats.games_finished} non_2xx={level.non_2xx} "
        f"server_cpu/request={level.server_cpu_ms_per_request:.2f}ms client_cpu/request="
        f"{1000 * level.client_cpu / max(1, stats.requests):.2f}ms load={os.getloadavg()[0]:.1f}",
        flush=True,
    )
    for failure, count in stats.failures.most_common(10):
        print(f"    non-2xx: {count} x {failure}", flush=True)


def verdicts(result: dict[str, Any]) -> list[tuple[str, bool]]:
    """This checkout's goals (the issue's): the ratio at 16 games, the p99 at 1 and 4, no non-2xx."""
    levels = result["levels"]
    checks: list[tuple[str, bool]] = []
    goal = RATIO_GOALS["keyed" if result["keyed"] else result["db"]]
    if 16 in levels and not math.isnan(levels[16]["ratio"]):
        checks.append((f"plays/s at 16 >= {goal:.0%} of baseline", levels[16]["ratio"] >= goal))
    for concurrency, limit in LATENCY_GOALS.items():
        if concurrency in levels:
            checks.append((f"p99 at {concurrency} < {limit:.0f} ms", levels[concurrency]["p99_ms"] < limit))
    non_2xx = sum(level["non_2xx"] + level["baseline_non_2xx"] for level in levels.values())
    checks.append(("zero non-2xx", non_2xx == 0))
    return checks


def print_summary(results: list[dict[str, Any]]) -> None:
    print()
    print(
        "db       code            c   plays/s   p50 ms   p95 ms   p99 ms  non-2xx  cpu ms/req"
        " | baseline/s  p99 ms  cpu ms/req | ratio"
    )
    for result in results:
        for concurrency, level in result["levels"].items():
            rows = [(result["commit"], level)]
            if "other" in level:
                rows.append((result["other_commit"], level["other"]))
            for commit, row in rows:
                print(
                    f"{result['db']:8} {commit:14} {concurrency:3} {row['plays_per_s']:9.1f} {row['p50_ms']:8.2f} "
                    f"{row['p95_ms']:8.2f} {row['p99_ms']:8.2f} {row['non_2xx']:8d} "
                    f"{row['server_cpu_ms_per_request']:11.2f} | {row['baseline_updates_per_s']:10.1f} "
                    f"{row['baseline_p99_ms']:7.2f} {row['baseline_server_cpu_ms_per_request']:11.2f} | {row['ratio']:5.2f}"
                )
            if "other" in level:
                print(
                    f"  {result['db']} at {concurrency}: {result['commit']} / {result['other_commit']} plays/s "
                    f"(median of the rounds) {level['service_over_other']:.2f}"
                )
        mode = "an Idempotency-Key on every POST" if result["keyed"] else "no Idempotency-Key"
        print(
            f"  {result['db']}: {result['workers']} workers, {mode}; "
            f"load average {result['loadavg_before']} before, {result['loadavg_after']} after"
        )
        for check, ok in verdicts(result):
            print(f"  {result['db']}: {'PASS' if ok else 'MISS'} {check}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--levels", default="1,4,16", help="concurrent games, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring window of each level")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured run before each window")
    parser.add_argument("--repeats", type=int, default=5, help="rounds per level: a window of each server each")
    parser.add_argument("--postgres-url", default=os.environ.get("BENCH_POSTGRES_URL", POSTGRES_URL))
    parser.add_argument("--log-level", default="INFO", help="LOG_LEVEL of the servers (INFO: one line per request)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--idempotency-keys", action="store_true", help="the services' clients send an Idempotency-Key with every POST"
    )
    parser.add_argument("--workers", type=int, default=WORKERS, help="WEB_CONCURRENCY of every server")
    parser.add_argument(
        "--without-worker-role",
        action="store_true",
        help="no coins-worker beside the service (by default one runs, as deployed: the players' feeds are its work)",
    )
    parser.add_argument(
        "--other-tree", type=Path, help="also serve this checkout's service (another commit), alternating with this one"
    )
    parser.add_argument(
        "--other-gunicorn-args",
        default="",
        help='gunicorn arguments of the other server (alone: this checkout served another way, e.g. "-k gevent")',
    )
    args = parser.parse_args(argv)
    args.other_args = shlex.split(args.other_gunicorn_args)
    if args.other_args and not args.other_tree:
        args.other_tree = REPO  # this checkout again, served another way
    if args.other_tree:
        args.other_tree = args.other_tree.resolve()  # its server runs from there
    if args.other_tree and not (args.other_tree / "wsgi.py").is_file():
        parser.error(f"--other-tree {args.other_tree}: no wsgi.py there")
    if not 1 <= args.workers <= 16:
        parser.error("--workers must be in [1, 16]")
    levels = [int(level) for level in args.levels.split(",")]
    if not 0 < args.seconds <= 300 or not 1 <= args.repeats <= 20 or any(not 1 <= level <= 64 for level in levels):
        parser.error("--seconds must be in (0, 300], --repeats in [1, 20] and each level in [1, 64]")
    results = []
    with tempfile.TemporaryDirectory(prefix="coins-http-load-") as tmp:
        for name in args.db.split(","):
            results.append(measure(name.strip(), levels, args, Path(tmp)))
    print_summary(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    print("http_load=" + json.dumps(results, separators=(",", ":")))
    ok = all(passed for result in results for _, passed in verdicts(result))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
