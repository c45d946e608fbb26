"""HTTP load benchmark: simulated players through complete games against the service under gunicorn.

For each database (SQLite, PostgreSQL) it starts the service with ``gunicorn -c
gunicorn.conf.py wsgi:app`` (2 sync workers) on a free port of 127.0.0.1 and, at 1, 4 and 16
concurrent games, runs one client thread per game: create a game with three seats, deal,
read the three hands, play a card for whoever's turn it is until the game is finished (any
card held is legal in Coins), dealing again whenever a hand is due; then the next game.
Each measuring window (``--seconds``) follows a short warm-up; plays in flight when it closes
are abandoned, and the next window starts new games. It prints plays per second, the
p50/p95/p99 latency of the play requests, every non-2xx answer, and the CPU time the workers
spent per request (read from /proc: unlike wall-clock rates, it holds on a busy machine).

The BASELINE is bench/baseline_app.py under the same gunicorn settings and database: one
endpoint, one single-row UPDATE transaction per request, driven by the same number of
client threads. Both servers run side by side; each level runs ``--repeats`` pairs of windows,
one per server, back to back and in alternating order (service first, then baseline first),
and medians are reported. ``ratio`` is the median over the pairs of service plays/s over
baseline updates/s: the two windows of a pair share whatever else the machine was doing.

Goals (both databases): plays/s at 16 concurrent games >= 60% of the baseline; p99 < 15 ms
for a lone game and < 50 ms at 4 concurrent games; zero non-2xx answers.

    .venv/bin/python -m bench.http_load [--db sqlite,postgres] [--levels 1,4,16] [--seconds 10]
        [--repeats 5] [--postgres-url postgresql://postgres@127.0.0.1:5432/test] [--log-level INFO]
        [--json out.json] [--idempotency-keys]

Everything talks to 127.0.0.1 only; every loop is bounded in count and time. The last line is
``http_load=<json summary>``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.baseline_app import ROWS, prepare
from tests.support.processes import children, cpu_seconds
from tests.support.server import free_port, serve

REPO = Path(__file__).resolve().parent.parent

HOST = "127.0.0.1"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
POSTGRES_SCHEMA = "coins_bench"
WORKERS = 2
START_TIMEOUT = 60.0
REQUEST_TIMEOUT = 30.0
MAX_REQUESTS_PER_LEVEL = 200_000  # a bound on top of the time window
PLAYERS = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]
GOALS = {"ratio_at_16": 0.60, "p99_ms_at_1": 15.0, "p99_ms_at_4": 50.0}


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
    app: str, database_url: str, workdir: Path, *, log_level: str, extra: list[str] | None = None
) -> Iterator[Server]:
    """Run ``gunicorn -c gunicorn.conf.py <app>`` with 2 sync workers until the block ends."""
    port = free_port()
    command = [str(Path(sys.executable).with_name("gunicorn"))]
    if (REPO / "gunicorn.conf.py").exists():
        command += ["-c", str(REPO / "gunicorn.conf.py")]
    command += [*(extra or []), "--bind", f"{HOST}:{port}", "--workers", str(WORKERS), "--worker-class", "sync"]
    command += ["--no-control-socket", app]  # gunicorn 27's control socket has one path per user: two servers clash
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "LOG_LEVEL": log_level,
        "RATE_LIMITS": "off",  # the load is one address and a few tokens: far past the limits
        "WEB_CONCURRENCY": str(WORKERS),
        "GUNICORN_WORKERS": str(WORKERS),
        "GUNICORN_WORKER_CLASS": "sync",
        "PYTHONPATH": str(REPO),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # gunicorn.conf.py makes a fresh one
    log_path = workdir / f"{app.split(':')[0]}-{port}.log"
    with serve(
        command, port=port, env=env, cwd=REPO, log=log_path, start_seconds=START_TIMEOUT, stop_seconds=20
    ) as live:
        yield Server(port, live.process, log_path)


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


def database_urls(name: str, workdir: Path, postgres_url: str) -> tuple[str, str]:
    """(service URL, baseline URL): two fresh, empty databases of the same kind."""
    if name == "sqlite":
        return f"sqlite:///{workdir / 'service.sqlite3'}", f"sqlite:///{workdir / 'baseline.sqlite3'}"
    return (
        postgres_schema_url(postgres_url, POSTGRES_SCHEMA),
        postgres_schema_url(postgres_url, POSTGRES_SCHEMA + "_baseline"),
    )


# -- the run --------------------------------------------------------------------------------


def measure(name: str, levels: list[int], args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Both servers up at once; at each level, ``--repeats`` pairs of windows, one of each server,
    back to back (so a busy spell on the machine hits both), in alternating order; the medians,
    and the median of the pairs' ratios."""
    service_url, baseline_url = database_urls(name, workdir, args.postgres_url)
    prepare(baseline_url)
    results: dict[str, Any] = {"db": name, "levels": {}, "loadavg_before": round(os.getloadavg()[0], 2)}
    with (
        gunicorn("wsgi:app", service_url, workdir, log_level=args.log_level) as service,
        gunicorn(
            "baseline_app:create_baseline_app()",
            baseline_url,
            workdir,
            log_level=args.log_level,
            extra=["--pythonpath", "bench"],
        ) as baseline,
    ):
        for concurrency in levels:
            runs: list[tuple[Level, Level]] = []
            for repeat in range(args.repeats):
                # service then baseline, then baseline then service, …: a machine slowing down or
                # speeding up through a pair does not favour the one that always goes first
                order = ["service", "baseline"] if repeat % 2 == 0 else ["baseline", "service"]
                pair: dict[str, Level] = {}
                for app in order:
                    server, counted = (service, "play") if app == "service" else (baseline, "update")
                    keyed = args.idempotency_keys and app == "service"
                    pair[app] = drive(server, concurrency, args.seconds, counted, args.warmup, keyed=keyed)
                    _print_level(name, app, pair[app])
                runs.append((pair["service"], pair["baseline"]))
            results["levels"][concurrency] = _medians(runs)
        results["service_log_lines"] = service.log_lines()
        for server in (service, baseline):
            if any(s.non_2xx + b.non_2xx for s, b in runs):
                print(f"--- {server.log_path.name}, last lines:", *server.problems(), sep="\n    ")
    results["loadavg_after"] = round(os.getloadavg()[0], 2)
    return results


def _medians(runs: list[tuple[Level, Level]]) -> dict[str, Any]:
    def median(values: list[float], digits: int) -> float:
        return round(statistics.median(values), digits) if values else math.nan

    service, baseline = [s for s, _ in runs], [b for _, b in runs]
    return {
        "plays_per_s": median([s.rate for s in service], 1),
        "p50_ms": median([s.percentile_ms(50) for s in service], 2),
        "p95_ms": median([s.percentile_ms(95) for s in service], 2),
        "p99_ms": median([s.percentile_ms(99) for s in service], 2),
        "games_finished": sum(s.stats.games_finished for s in service),
        "server_cpu_ms_per_request": median([s.server_cpu_ms_per_request for s in service], 3),
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
    levels = result["levels"]
    checks: list[tuple[str, bool]] = []
    if 16 in levels and levels[16]["ratio"] is not None:
        checks.append(
            (f"plays/s at 16 >= {GOALS['ratio_at_16']:.0%} of baseline", levels[16]["ratio"] >= GOALS["ratio_at_16"])
        )
    if 1 in levels:
        checks.append((f"p99 at 1 < {GOALS['p99_ms_at_1']:.0f} ms", levels[1]["p99_ms"] < GOALS["p99_ms_at_1"]))
    if 4 in levels:
        checks.append((f"p99 at 4 < {GOALS['p99_ms_at_4']:.0f} ms", levels[4]["p99_ms"] < GOALS["p99_ms_at_4"]))
    non_2xx = sum(level["non_2xx"] + level["baseline_non_2xx"] for level in levels.values())
    checks.append(("zero non-2xx", non_2xx == 0))
    return checks


def print_summary(results: list[dict[str, Any]]) -> None:
    print()
    print(
        "db        c   plays/s   p50 ms   p95 ms   p99 ms  non-2xx  cpu ms/req | baseline/s  p99 ms  cpu ms/req | ratio"
    )
    for result in results:
        for concurrency, level in result["levels"].items():
            print(
                f"{result['db']:8} {concurrency:3} {level['plays_per_s']:9.1f} {level['p50_ms']:8.2f} {level['p95_ms']:8.2f} "
                f"{level['p99_ms']:8.2f} {level['non_2xx']:8d} {level['server_cpu_ms_per_request']:11.2f} | "
                f"{level['baseline_updates_per_s']:10.1f} {level['baseline_p99_ms']:7.2f} "
                f"{level['baseline_server_cpu_ms_per_request']:11.2f} | {level['ratio']:5.2f}"
            )
        print(f"  {result['db']}: load average {result['loadavg_before']} before, {result['loadavg_after']} after")
        for check, ok in verdicts(result):
            print(f"  {result['db']}: {'PASS' if ok else 'MISS'} {check}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--levels", default="1,4,16", help="concurrent games, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring window of each level")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured run before each window")
    parser.add_argument("--repeats", type=int, default=5, help="windows per level and app (medians are reported)")
    parser.add_argument("--postgres-url", default=os.environ.get("BENCH_POSTGRES_URL", POSTGRES_URL))
    parser.add_argument("--log-level", default="INFO", help="LOG_LEVEL of the servers (INFO: one line per request)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--idempotency-keys", action="store_true", help="the service's clients send an Idempotency-Key with every POST"
    )
    args = parser.parse_args(argv)
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
