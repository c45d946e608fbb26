"""Live events: thousands of open streams while games are played, from a play's 201 to every stream.

For each database it starts the roles as deployed on loopback, each on a fresh database: the web
role (``gunicorn -c gunicorn.conf.py wsgi:app``, ``--workers``), the worker role (``coins-worker``:
the players' feeds are its fan-out) and the streams' holder, one of

- ``asgi``: the real-time role, ``coins-realtime`` (uvicorn, service/realtime), behind HAProxy with
  the shipped ``deploy/haproxy.cfg`` (``--direct``: the clients reach both roles without it);
- ``pushpin``: Pushpin (GRIP) holding the streams, with the GRIP origin and publisher of
  ``bench/grip_candidate.py`` (the candidate measured against it; see docs/benchmarks.md).

It creates ``--feeds`` players (1,000) and ``--games`` games (100) of three of them each (target
100, so none ends), deals, then a load generator, pinned to one core with ``taskset`` (``--core``),
opens ``--spectators`` public streams per game (90) and every player's feed (``GET
/v1/players/me/events``), each read by one asyncio loop; once they are all open and idle for
``--idle`` seconds, the memory per idle stream is the rise of the resident memory of every process of
the roles and the proxy, over the streams (and each process's own rise, ``kib_per_idle_stream_by_role``).
That rise includes what the roles' first streams cost once (the real-time role's first requests: code
loaded on first use, its connections' page caches on SQLite); so the generator opens a first
``--warm-share`` of the streams (10%: a stream of every game, before the players' feeds), and the
*marginal* memory per stream is the rise from then, with those still open, over the rest
(``kib_per_idle_stream_marginal``, also by process). Then it plays the games for ``--seconds``, each game
at an even pace (``--plays-per-second`` in all): the seat to act reads its hand and plays a card (or
deals), with its player's key. For each play, the *latency* runs from its 201 to the arrival of its
last event (its version) on the last of the game's streams and of ``your_turn`` on the feed of the
player to act next; an arrival missing ``--settle`` seconds after the last play is *missing*. The
generator reports its own CPU: a saturated generator makes the latencies upper bounds.

    .venv/bin/python -m bench.realtime                        # --db postgres,sqlite --design asgi
    .venv/bin/python -m bench.realtime --games 20 --feeds 200 # 2,000 streams
    COINS_PROXY_MAXCONN=9980 COINS_REALTIME_MAXCONN=9800 \
      .venv/bin/python -m bench.realtime --db postgres --games 95 --feeds 950   # 9,500 behind HAProxy
    .venv/bin/python -m bench.realtime --db postgres --design pushpin   # apt-get install pushpin

The proxy's settings come from the environment, as deployed (``deploy/haproxy.cfg``): its defaults
hold 6,000 streams, and HAProxy needs two open files a connection, so where the hard limit of open
files is 20,000 it holds 9,990 connections at most, and 10,000 streams run ``--direct`` only.

Everything talks to 127.0.0.1 only, every loop is bounded in count and time, and every process is
stopped at the end. The last line is ``realtime=<json summary>``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from tests.support.server import HOST, free_port, serve, worker_beside
from tests.support.topology import ROOT, SHIPPED_CONFIG, haproxy_binary, timed

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
SCHEMA = "coins_bench_realtime"
OPEN_AT_ONCE = 200  # streams being opened at once
STREAMS_PER_SOURCE = 150  # streams from one client address (127.0.1.x), within deploy/haproxy.cfg's 200
OPEN_SECONDS = 600  # all of them, at most
SETUP_TRIES = 30  # a setup request the proxy refuses (429) is sent again a second later, this often at most
FILES = 200_000  # open files for the roles, the proxy and the generator (each stream is a socket or two)
VERSION = re.compile(rb'data: \{"id":\d+,"version":(\d+)')


def raise_open_files() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, max(FILES, hard)))
    except (ValueError, OSError):  # not root: as far as the hard limit goes
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def database(db: str, directory: Path) -> str:
    if db == "sqlite":
        return f"sqlite:///{directory / 'coins.sqlite3'}"
    subprocess.run(
        ["psql", POSTGRES_URL, "-qc", f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA}"], check=True
    )
    return f"{POSTGRES_URL}?options=-csearch_path%3D{SCHEMA}"


def role_env(url: str, port: int, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PROMETHEUS_MULTIPROC_DIR", "PORT")}
    env.update(DATABASE_URL=url, BIND=f"{HOST}:{port}", LOG_LEVEL="WARNING", RATE_LIMITS="off", **extra)
    return env


@contextmanager
def roles(
    design: str, url: str, directory: Path, args: argparse.Namespace
) -> Iterator[tuple[int, int, list[subprocess.Popen[bytes]]]]:
    """The roles and the proxy: (the port plays go to, the port streams go to, every process)."""
    venv = Path(sys.executable).parent
    hops = "0" if args.direct else "1"
    with ExitStack() as stack:
        web_port = free_port()
        web = stack.enter_context(
            serve(
                [str(venv / "gunicorn"), "-c", "gunicorn.conf.py", "wsgi:app"],
                port=web_port,
                env=role_env(url, web_port, WEB_CONCURRENCY=str(args.workers), TRUSTED_PROXY_HOPS=hops),
                cwd=ROOT,
                log=directory / "web.log",
                start_seconds=120,
            )
        )
        worker = stack.enter_context(worker_beside(role_env(url, free_port()), cwd=ROOT, log=directory / "worker.log"))
        if design == "pushpin":
            from bench.grip_candidate import pushpin_holder

            front, servers = stack.enter_context(pushpin_holder(url, directory, role_env))
            yield web_port, front, [web.process, worker, *(server.process for server in servers)]
            return
        realtime_port = free_port()
        realtime = stack.enter_context(
            serve(
                [str(venv / "coins-realtime")],
                port=realtime_port,
                env=role_env(url, realtime_port, TRUSTED_PROXY_HOPS=hops, STREAMS_PER_PROCESS="30000"),
                cwd=ROOT,
                log=directory / "realtime.log",
                start_seconds=120,
            )
        )
        if args.direct:
            yield web_port, realtime_port, [web.process, worker, realtime.process]
            return
        binary = haproxy_binary()
        assert binary, "HAProxy is not installed (apt-get install haproxy); or --direct"
        proxy_port = free_port()
        env = {
            **os.environ,
            "COINS_PROXY_BIND": f"{HOST}:{proxy_port}",
            "COINS_WEB": f"{HOST}:{web_port}",
            "COINS_REALTIME": f"{HOST}:{realtime_port}",
        }
        proxy = stack.enter_context(
            serve(
                [binary, "-db", "-f", str(SHIPPED_CONFIG)],
                port=proxy_port,
                env=env,
                cwd=directory,
                log=directory / "haproxy.log",
                start_seconds=30,
            )
        )
        yield proxy_port, proxy_port, [web.process, worker, realtime.process, proxy.process]


def family(pids: list[int]) -> list[int]:
    """``pids`` and all their descendants, alive now."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    todo, seen = list(pids), set()
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo += children.get(pid, [])
    return sorted(seen)


def resident_kib(pids: list[int]) -> int:
    """The resident memory of ``pids`` and all their descendants, in KiB."""
    total = 0
    for pid in family(pids):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """The CPU time (user and system) each of ``pids`` and their descendants has used, in seconds."""
    used = {}
    for pid in family(pids):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


def role_names(design: str, args: argparse.Namespace) -> list[str]:
    """The names of the processes :func:`roles` starts, in order."""
    if design == "pushpin":
        return ["web", "worker", "origin", "pushpin", "publisher"]
    return ["web", "worker", "realtime"] if args.direct else ["web", "worker", "realtime", "proxy"]


def setup(port: int, games: int, feeds: int) -> dict[str, Any]:
    """``feeds`` players and ``games`` dealt games of three of them: the generator's plan."""

    def call(method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        for _ in range(SETUP_TRIES):  # the proxy's per-address limit refuses the requests of a large setup (429)
            answer = timed(port, method, path, body, key, timeout=30)
            if answer.status != 429:
                break
            time.sleep(1)  # the proxy refused it, the roles never saw it: the same request again
        assert 200 <= answer.status < 300, (method, path, answer)
        return answer.body

    with ThreadPoolExecutor(8) as pool:
        keys = list(pool.map(lambda n: call("POST", "/v1/players", {"name": f"p{n}"})["key"], range(feeds)))

        def new_game(number: int) -> dict[str, Any]:
            seated = keys[3 * number : 3 * number + 3]
            body = {"seats": [{"player": "me"}, None, None], "target_score": 100, "first_dealer": 0}
            game_id = call("POST", "/v1/games", body, seated[0])["id"]
            for key in seated[1:]:
                call("POST", f"/v1/games/{game_id}/players", {"player": "me"}, key)
            leader = call("POST", f"/v1/games/{game_id}/hands", None, seated[0])["leader"]
            return {"id": game_id, "keys": seated, "turn": leader, "status": "playing"}

        plan_games = list(pool.map(new_game, range(games)))
    return {"games": plan_games, "feeds": keys}


def run(db: str, design: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="coins-bench-realtime-") as temporary, ExitStack() as stack:
        directory = Path(temporary)
        url = database(db, directory)
        play_port, stream_port, started_roles = stack.enter_context(roles(design, url, directory, args))
        started = time.monotonic()
        plan = setup(play_port, args.games, args.feeds)
        print(
            f"{db} {design}: {args.feeds} players, {args.games} games in {time.monotonic() - started:.1f} s", flush=True
        )
        plan.update(
            play_port=play_port, stream_port=stream_port, spectators=args.spectators, seconds=args.seconds,
            rate=args.plays_per_second, settle=args.settle, warm_share=args.warm_share,
        )  # fmt: skip
        (directory / "plan.json").write_text(json.dumps(plan))
        pids = [process.pid for process in started_roles]
        names = role_names(design, args)
        time.sleep(2)
        before = resident_kib(pids)
        before_by_role = {name: resident_kib([pid]) for name, pid in zip(names, pids, strict=True)}
        command = [sys.executable, "-m", "bench.realtime", "--generator", str(directory / "plan.json")]
        if shutil.which("taskset") and args.core >= 0:
            command = ["taskset", "-c", str(args.core), *command]
        generator = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert generator.stdout is not None and generator.stdin is not None
            warm = json.loads(generator.stdout.readline())["warm"]
            time.sleep(args.idle)
            warmed = resident_kib(pids)
            warmed_by_role = {name: resident_kib([pid]) for name, pid in zip(names, pids, strict=True)}
            generator.stdin.write("open\n")
            generator.stdin.flush()
            opened = json.loads(generator.stdout.readline())
            time.sleep(args.idle)
            after = resident_kib(pids)
            after_by_role = {name: resident_kib([pid]) for name, pid in zip(names, pids, strict=True)}
            processes = dict(zip(names, pids, strict=True))
            cpu_before = {name: cpu_seconds([pid]) for name, pid in processes.items()}
            generator.stdin.write("play\n")
            generator.stdin.flush()
            result: dict[str, Any] = json.loads(generator.stdout.readline())
            cpu_after = {name: cpu_seconds([pid]) for name, pid in processes.items()}
            generator.wait(60)
        finally:
            if generator.poll() is None:
                generator.kill()
        streams = opened["opened"]
        plays = max(result["plays"], 1)
        result["cpu_ms_per_play"] = {
            name: round(
                1000 * sum(used - cpu_before[name].get(pid, 0.0) for pid, used in cpu_after[name].items()) / plays, 2
            )
            for name in processes
        }
        result["load_average"] = Path("/proc/loadavg").read_text().split()[:3]
        result.update(
            db=db, design=design, direct=args.direct, opened=opened,
            memory_before_kib=before, memory_open_kib=after,
            kib_per_idle_stream=round((after - before) / max(streams, 1), 2),
            kib_per_idle_stream_by_role={
                name: round((after_by_role[name] - before_by_role[name]) / max(streams, 1), 2) for name in names
            },
            warm_streams=warm,
            kib_per_idle_stream_marginal=round((after - warmed) / max(streams - warm, 1), 2),
            kib_per_idle_stream_marginal_by_role={
                name: round((after_by_role[name] - warmed_by_role[name]) / max(streams - warm, 1), 2) for name in names
            },
        )  # fmt: skip
        return result


# -- the generator: one asyncio loop, pinned to one core -------------------------------------------


class Stream(asyncio.Protocol):
    """One Server-Sent Events stream: the arrival time of each version (a game's) or ``your_turn`` (a feed's)."""

    def __init__(
        self, request: bytes, arrivals: dict[Any, list[float]], feed: bool, opened: asyncio.Future[bool]
    ) -> None:
        self.request, self.arrivals, self.feed, self.opened = request, arrivals, feed, opened
        self.buffer = b""
        self.started = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        buffer = self.buffer + data
        if not self.started:
            if b"\r\n\r\n" not in buffer:
                self.buffer = buffer
                return
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            self.started = True
            if not self.opened.done():
                self.opened.set_result(head.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")))
        end = buffer.rfind(b"\n\n")
        if end < 0:
            self.buffer = buffer
            return
        frames, self.buffer = buffer[: end + 2], buffer[end + 2 :]
        if self.feed:
            for line in frames.split(b"\n"):
                if line.startswith(b"data: ") and b'"type":"your_turn"' in line:
                    event = json.loads(line[6:])
                    self.arrivals.setdefault((event["game"], event["version"]), [0, now])[0] += 1
        else:
            for match in VERSION.finditer(frames):
                arrival = self.arrivals.setdefault(int(match.group(1)), [0, now])
                arrival[0] += 1
                arrival[1] = now

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_result(False)


async def open_stream(
    port: int, path: str, key: str | None, arrivals: dict[Any, list[float]], feed: bool, source: str
) -> bool:
    loop = asyncio.get_running_loop()
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    request = f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n{auth}\r\n".encode()
    opened: asyncio.Future[bool] = loop.create_future()
    try:
        await loop.create_connection(
            lambda: Stream(request, arrivals, feed, opened), HOST, port, local_addr=(source, 0)
        )
        return await asyncio.wait_for(opened, 60)
    except (OSError, TimeoutError):
        return False


async def http(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, method: str, path: str, key: str, body: Any = None
) -> tuple[int, Any]:
    """One request on a kept connection: (status, the JSON body)."""
    data = b"" if body is None else json.dumps(body).encode()
    kind = "" if body is None else "Content-Type: application/json\r\n"
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: application/json\r\n{kind}"
        f"Content-Length: {len(data)}\r\nAuthorization: Bearer {key}\r\n\r\n"
    )
    writer.write(head.encode() + data)
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return status, json.loads(await reader.readexactly(length)) if length else None


async def drive(
    plan: dict[str, Any],
    game: dict[str, Any],
    offset: float,
    ends: float,
    plays: list[tuple[str, int, float]],
    failures: list[str],
) -> None:
    """Play ``game`` at an even pace until ``ends``: its plays as (game id, version, time of the 201)."""
    reader, writer = await asyncio.open_connection(HOST, plan["play_port"])
    interval = len(plan["games"]) / plan["rate"]
    next_at = time.monotonic() + offset
    turn, status, game_id = game["turn"], game["status"], game["id"]
    try:
        while next_at < ends:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            next_at += interval
            key = game["keys"][turn]
            if status == "waiting_for_deal":
                code, body = await http(reader, writer, "POST", f"/v1/games/{game_id}/hands", key)
                if code != 201:
                    failures.append(f"deal {code}")
                    continue
                turn, status = body["leader"], "playing"
                continue
            code, hand = await http(reader, writer, "GET", f"/v1/games/{game_id}/hand", key)
            code, body = await http(
                reader, writer, "POST", f"/v1/games/{game_id}/plays", key, {"card": hand["cards"][0]}
            )
            answered = time.monotonic()
            if code != 201:
                failures.append(f"play {code}")
                continue
            state = body["game"]
            plays.append((game_id, state["version"], answered))
            turn, status = state["turn"], state["status"]
    finally:
        writer.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


async def generate(plan: dict[str, Any]) -> None:
    port, spectators = plan["stream_port"], plan["spectators"]
    game_arrivals: dict[str, dict[Any, list[float]]] = {game["id"]: {} for game in plan["games"]}
    feed_arrivals: dict[Any, list[float]] = {}
    limit = asyncio.Semaphore(OPEN_AT_ONCE)

    count = iter(range(10**6))

    async def opened(path: str, key: str | None, arrivals: dict[Any, list[float]], feed: bool) -> bool:
        source = f"127.0.1.{1 + next(count) // STREAMS_PER_SOURCE}"  # within the proxy's connections per address
        async with limit:
            return await open_stream(port, path, key, arrivals, feed, source)

    started = time.monotonic()
    jobs = [
        opened(f"/v1/games/{game['id']}/events", None, game_arrivals[game["id"]], False)
        for _ in range(spectators)
        for game in plan["games"]
    ]
    jobs += [opened("/v1/players/me/events", key, feed_arrivals, True) for key in plan["feeds"]]
    warm = max(len(plan["games"]), round(plan["warm_share"] * len(jobs)))  # a stream of every game at least
    results = await asyncio.wait_for(asyncio.gather(*jobs[:warm]), OPEN_SECONDS)
    print(json.dumps({"warm": sum(results)}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    results += await asyncio.wait_for(asyncio.gather(*jobs[warm:]), OPEN_SECONDS)
    cpu_open = time.process_time()
    print(
        json.dumps(
            {
                "opened": sum(results),
                "failed": len(results) - sum(results),
                "seconds": round(time.monotonic() - started, 1),
            }
        ),
        flush=True,
    )
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

    plays: list[tuple[str, int, float]] = []
    failures: list[str] = []
    begins = time.monotonic()
    ends = begins + plan["seconds"]
    interval = len(plan["games"]) / plan["rate"]
    cpu_before = time.process_time()
    await asyncio.gather(
        *(
            drive(plan, game, interval * index / len(plan["games"]), ends, plays, failures)
            for index, game in enumerate(plan["games"])
        )
    )
    played = time.monotonic() - begins
    await asyncio.sleep(plan["settle"])
    cpu = time.process_time() - cpu_before
    latencies, game_latencies, feed_latencies, missing_game, missing_feed = [], [], [], 0, 0
    for game_id, version, answered in plays:
        arrival = game_arrivals[game_id].get(version)
        feed = feed_arrivals.get((game_id, version))
        if arrival is None or arrival[0] < spectators:
            missing_game += 1
        if feed is None:
            missing_feed += 1
        if arrival is not None and feed is not None and arrival[0] >= spectators:
            game_latencies.append(max(0.0, arrival[1] - answered))
            feed_latencies.append(max(0.0, feed[1] - answered))
            latencies.append(max(game_latencies[-1], feed_latencies[-1]))

    def ms(values: list[float], share: float) -> float:
        return round(1000 * percentile(values, share), 1)

    print(json.dumps({
        "plays": len(plays), "plays_per_second": round(len(plays) / played, 1), "failed": len(failures),
        "missing_on_game_streams": missing_game, "missing_on_feeds": missing_feed,
        "p50_ms": ms(latencies, 0.5), "p99_ms": ms(latencies, 0.99), "max_ms": ms(latencies, 1.0),
        "game_streams_p50_ms": ms(game_latencies, 0.5), "game_streams_p99_ms": ms(game_latencies, 0.99),
        "feeds_p50_ms": ms(feed_latencies, 0.5), "feeds_p99_ms": ms(feed_latencies, 0.99),
        "generator_cpu_share": round(cpu / (played + plan["settle"]), 2), "generator_cpu_opening_s": round(cpu_open, 1),
    }), flush=True)  # fmt: skip


def generator_main(plan_file: str) -> None:
    raise_open_files()
    plan = json.loads(Path(plan_file).read_text())
    asyncio.run(generate(plan))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--db", default="postgres,sqlite")
    parser.add_argument("--design", default="asgi", choices=("asgi", "pushpin"))
    parser.add_argument("--direct", action="store_true", help="no proxy: the clients reach the roles themselves")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=90, help="public streams per game")
    parser.add_argument("--feeds", type=int, default=1000, help="players, each following their feed")
    parser.add_argument("--plays-per-second", type=float, default=40.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--idle", type=float, default=5.0)
    parser.add_argument("--warm-share", type=float, default=0.1, help="streams opened first, for the marginal memory")
    parser.add_argument("--workers", type=int, default=3, help="the web role's gunicorn workers")
    parser.add_argument("--core", type=int, default=1, help="the core the generator is pinned to (-1: none)")
    parser.add_argument("--generator", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generator:
        generator_main(args.generator)
        return
    if args.design == "pushpin" and "sqlite" in args.db.split(","):
        parser.error(
            "--design pushpin runs on --db postgres only: its publisher learns which feed changed from "
            "PostgreSQL's NOTIFY, and SQLite's channel says only that the file changed"
        )
    assert 1 <= args.games <= 500 and 1 <= args.spectators <= 500 and 3 * args.games <= args.feeds <= 20_000
    assert 0 < args.seconds <= 600 and 0 < args.plays_per_second <= 1000 and 0 <= args.warm_share < 1
    raise_open_files()
    results = []
    for db in args.db.split(","):
        result = run(db, args.design, args)
        print(json.dumps(result), flush=True)
        results.append(result)
    summary = [
        {
            key: result[key]
            for key in (
                "db",
                "design",
                "p50_ms",
                "p99_ms",
                "missing_on_game_streams",
                "missing_on_feeds",
                "kib_per_idle_stream",
                "kib_per_idle_stream_by_role",
                "kib_per_idle_stream_marginal",
                "kib_per_idle_stream_marginal_by_role",
                "plays",
                "generator_cpu_share",
            )
        }
        | {"streams": result["opened"]["opened"]}
        for result in results
    ]
    print(f"realtime={json.dumps(summary)}")


if __name__ == "__main__":
    main()
