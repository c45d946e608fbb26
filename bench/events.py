"""Live events benchmark: thousands of open event streams on one instance while games are played.

For each database (SQLite, PostgreSQL) it starts two instances of the service side by side, each
``gunicorn -c gunicorn.conf.py wsgi:app`` on a free port of 127.0.0.1 with its own fresh
database: a *served* instance (the service as deployed: gunicorn.conf.py's gthread workers,
``WEB_CONCURRENCY`` 5, the default on 2 cores, and ``--streams-per-worker``; ``--gunicorn-args``
and ``--app`` serve another design, e.g. ``--gunicorn-args "-k gevent --worker-connections 600"``,
a greenlet per stream) and a *sync* instance (``-k sync``, ``STREAMS_PER_WORKER=0``: gunicorn's sync
worker, no streams), with the same number of workers. ``--streams-per-worker`` is 500 (2,500 slots), not the default 400:
the kernel does not spread connections evenly over the workers and a full worker answers 503,
so exactly 2,000 slots do not hold 2,000 streams (``--streams-per-worker 400`` shows it; the
streams that do not open within ``OPEN_SECONDS`` are counted). On each it creates ``--games``
games (three seats, target 100 so that none ends during the run) and keeps them all in play: ``--drivers`` asyncio
tasks, each looping over its share of the games, one request at a time per task (deal when a
hand is due, read the three hands, else play a random card of the seat to play: any card held
is legal in Coins), over keep-alive HTTP/1.1 connections of their own.

Each round has three measuring windows (``--seconds`` each, after ``--warmup``), in an order
that alternates from round to round so that the windows compared sit side by side:

- ``closed``: the served instance, no stream open;
- ``open``: the served instance with ``--streams`` streams open on the games being played
  (``--streams / --games`` per game, the first three with a seat's token, the rest
  spectators), opened before the window and closed after it;
- ``sync``: the sync instance, no stream.

The streams are read by one asyncio event loop in this process (one socket each, a small
protocol object that splits the chunked SSE frames; no thread per stream). For every play
answered 201 in an ``open`` window, the *event latency* is the time from the 201 to the
arrival of its ``card_played`` event (the game's new ``version``) on the LAST of that game's
streams; every stream of the game must get it within ``GRACE_SECONDS`` after the window, or
the play counts as missed. The loop that reads the streams also drives the plays, so a busy
client delays both the 201 and the arrivals it sees: the latencies are an upper bound.

Memory per idle stream: the sum of VmRSS (``/proc/<pid>/status``) of the served master's
children with every stream open and idle (no play in progress) minus the same just before
they were opened, divided by the number of streams; the first round's figure includes the
threads the workers create for the streams, later rounds reuse them.

Goals: ``--streams`` (2,000) held at once by one instance; event latency p99 < 100 ms with
100 games in play; plays/s with the streams open >= 80% of plays/s without (median over the
rounds of the pairs' ratios). Also reported: served vs sync plays/s without streams.

    .venv/bin/python -m bench.events [--db sqlite,postgres] [--gunicorn-args "..."] [--app wsgi:app] [--streams 2000] [--games 100]
        [--drivers 16] [--seconds 10] [--warmup 1] [--rounds 5]
        [--postgres-url postgresql://postgres@127.0.0.1:5432/test] [--log-level INFO] [--json out.json]

Everything talks to 127.0.0.1 only; every loop is bounded in count and time; every stream is
closed and every server stopped at the end. The last line is ``events=<json summary>``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.http_load import POSTGRES_URL, postgres_schema_url
from tests.support.processes import cpu_seconds, descendants, gunicorn_workers
from tests.support.server import free_port, serve

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
POSTGRES_SCHEMA = "coins_events_bench"
START_TIMEOUT = 180.0  # seconds for an instance to answer /readyz (five workers import the app on a busy machine)
REQUEST_TIMEOUT = 30.0
TARGET_SCORE = 100  # the most there is: about 900 plays a game, so games outlast the run
PLAYERS = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]
GRACE_SECONDS = 3.0  # after a window: for the last plays' events to arrive
OPEN_CONCURRENCY = 100  # stream requests in flight at once while opening
OPEN_ATTEMPTS = 50  # per stream, on 503 (a worker full) or a refused connection
OPEN_SECONDS = 30.0  # streams not open (first event received) by then are given up and counted
DRAIN_SECONDS = 25.0  # closed streams gone from the server (its heartbeat is 15 s)
MAX_STEPS_PER_WINDOW = 200_000  # a bound on top of the time window, per driver
GOALS = {"streams": 2000, "event_p99_ms": 100.0, "open_over_closed": 0.80}

VERSION = re.compile(rb'"version":\s*(\d+)')


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def median(values: list[float], digits: int = 3) -> float:
    values = [value for value in values if not math.isnan(value)]
    return round(statistics.median(values), digits) if values else math.nan


# -- the servers ----------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    port: int
    pid: int
    log: Path

    def workers(self) -> list[int]:
        return gunicorn_workers(self.pid)

    def processes(self) -> list[int]:
        """Every process of the instance but the master (its workers)."""
        return descendants(self.pid)

    def rss_kib(self) -> int:
        """The sum of the processes' VmRSS."""
        total = 0
        for pid in self.processes():
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        return total

    def sockets(self) -> list[int]:
        """Each process's open sockets (streams, kept-alive connections, listener, notifications)."""
        counts = []
        for pid in self.processes():
            count = 0
            with contextlib.suppress(OSError):
                for fd in Path(f"/proc/{pid}/fd").iterdir():
                    with contextlib.suppress(OSError):
                        count += os.readlink(fd).startswith("socket:")
            counts.append(count)
        return sorted(counts)

    def threads(self) -> int:
        total = 0
        for pid in self.processes():
            with contextlib.suppress(OSError):
                total += len(list(Path(f"/proc/{pid}/task").iterdir()))
        return total

    def connections(self) -> dict[str, int]:
        """The server side's TCP sockets on its port, by state (from /proc/net/tcp)."""
        states = {"01": "established", "08": "close_wait"}
        counts = dict.fromkeys(states.values(), 0)
        port = f"{self.port:04X}"
        with contextlib.suppress(OSError):
            for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
                parts = line.split()
                if parts[1].endswith(":" + port) and parts[3] in states:
                    counts[states[parts[3]]] += 1
        return counts


@contextmanager
def gunicorn(
    name: str,
    database_url: str,
    workdir: Path,
    env: dict[str, str],
    log_level: str,
    extra: list[str] | None = None,
    app: str = "wsgi:app",
) -> Iterator[Server]:
    port = free_port()
    command = [str(Path(sys.executable).with_name("gunicorn")), "-c", str(REPO / "gunicorn.conf.py")]
    command += ["--no-control-socket", *(extra or []), app]
    environment = {
        **os.environ,
        **env,
        "BIND": f"{HOST}:{port}",
        "DATABASE_URL": database_url,
        "LOG_LEVEL": log_level,
        "PYTHONPATH": str(REPO),
        "RATE_LIMITS": "off",  # one address creating 100 games and playing them: far past the limits
    }
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)  # gunicorn.conf.py makes a fresh one
    log = workdir / f"{name}-{port}.log"
    with serve(
        command, port=port, env=environment, cwd=REPO, log=log, start_seconds=START_TIMEOUT, stop_seconds=40
    ) as live:
        yield Server(name, port, live.process.pid, log)


# -- HTTP requests (plays) ------------------------------------------------------------------


class HttpError(Exception):
    pass


class Http:
    """One keep-alive HTTP/1.1 connection on asyncio streams, reopened when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        try:
            self.writer.write(head.encode() + payload)
            raw = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
            status = int(raw[9:12])
            headers = raw.lower()
            length = 0
            match = re.search(rb"content-length:\s*(\d+)", headers)
            if match:
                length = int(match.group(1))
            data = await asyncio.wait_for(self.reader.readexactly(length), REQUEST_TIMEOUT) if length else b""
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError) as error:
            self.close()
            raise HttpError(type(error).__name__) from error
        if b"connection: close" in headers:
            self.close()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = None
        return status, parsed

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# -- the games ------------------------------------------------------------------------------


@dataclass
class Game:
    id: str
    tokens: list[str]
    state: dict[str, Any]
    hands: dict[int, list[str]] = field(default_factory=dict)
    hand_number: int = -1  # the hand ``hands`` belong to


async def create_game(http: Http) -> Game:
    status, created = await http.call("POST", "/v1/games", {"seats": PLAYERS, "target_score": TARGET_SCORE})
    if status != 201:
        raise HttpError(f"create {status} {created}")
    tokens = [credential["token"] for credential in sorted(created["credentials"], key=lambda c: c["seat"])]
    return Game(created["id"], tokens, created)


@dataclass
class Window:
    """What one window measured."""

    kind: str
    seconds: float
    plays: int = 0
    requests: int = 0
    play_latencies: list[float] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)
    played: list[tuple[str, int, float]] = field(default_factory=list)  # (game, version, time of the 201)
    games_replaced: int = 0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    event_latencies: list[float] = field(default_factory=list)  # per play: to the last stream
    delivery_latencies: list[float] = field(default_factory=list)  # per play and stream
    events_missed: int = 0
    plays_without_streams: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def fail(self, what: str) -> None:
        self.failures[what] = self.failures.get(what, 0) + 1

    @property
    def rate(self) -> float:
        return self.plays / self.seconds


async def step(http: Http, game: Game, rng: random.Random, window: Window | None, end: float) -> None:
    """One request for ``game``: a deal, a hand read or a play. Counted if answered before ``end``."""
    state = game.state
    if state["status"] == "finished":
        return
    if state["status"] == "waiting_for_deal":
        kind, method, path, body, token = (
            "deal",
            "POST",
            f"/v1/games/{game.id}/hands",
            None,
            game.tokens[state["dealer"]],
        )
    elif game.hand_number != state["hand_number"] or len(game.hands) < 3:
        seat = len(game.hands) if game.hand_number == state["hand_number"] else 0
        if seat == 0:
            game.hands, game.hand_number = {}, state["hand_number"]
        kind, method, path, body, token = "hand", "GET", f"/v1/games/{game.id}/hand", None, game.tokens[seat]
    else:
        seat = state["turn"]
        hand = game.hands[seat]
        card = hand[rng.randrange(len(hand))]
        kind, method, path, body, token = (
            "play",
            "POST",
            f"/v1/games/{game.id}/plays",
            {"card": card},
            game.tokens[seat],
        )
    started = time.perf_counter()
    try:
        status, answer = await http.call(method, path, body, token)
    except HttpError as error:
        if window is not None:
            window.fail(f"{kind} {error}")
        await resync(http, game)
        return
    answered = time.perf_counter()
    counted = window if window is not None and answered <= end else None
    if counted is not None:
        counted.requests += 1
    if not 200 <= status < 300:
        if counted is not None:
            code = answer.get("code", "") if isinstance(answer, dict) else ""
            counted.fail(f"{kind} {status} {code}")
        await resync(http, game)
        return
    if kind == "deal":
        game.state = answer["game"]
    elif kind == "hand":
        game.hands[len(game.hands)] = list(answer["cards"])
    else:
        game.hands[seat].remove(card)
        game.state = answer["game"]
        if counted is not None:
            counted.plays += 1
            counted.play_latencies.append(answered - started)
            counted.played.append((game.id, game.state["version"], answered))


async def resync(http: Http, game: Game) -> None:
    """After a failed request: read the game again (its hands are read on the next steps)."""
    with contextlib.suppress(HttpError):
        status, state = await http.call("GET", f"/v1/games/{game.id}")
        if status == 200:
            game.state = state
    game.hands, game.hand_number = {}, -1


async def drive(port: int, games: list[Game], drivers: int, seconds: float, window: Window | None) -> None:
    """``drivers`` tasks, each over its share of the games, one step per game in turn, until ``seconds`` pass."""
    end = time.perf_counter() + seconds

    async def one(index: int) -> None:
        rng = random.Random(index * 7919 + int(end))
        mine = games[index::drivers]
        http = Http(port)
        try:
            for _ in range(MAX_STEPS_PER_WINDOW):
                for game in mine:
                    if time.perf_counter() >= end:
                        return
                    if game.state["status"] == "finished":  # a target of 100 makes this rare
                        replacement = await create_game(http)
                        game.id, game.tokens, game.state = replacement.id, replacement.tokens, replacement.state
                        game.hands, game.hand_number = {}, -1
                        if window is not None:
                            window.games_replaced += 1
                    await step(http, game, rng, window, end)
        finally:
            http.close()

    await asyncio.wait_for(asyncio.gather(*(one(index) for index in range(drivers))), seconds + 2 * REQUEST_TIMEOUT)


# -- the streams ----------------------------------------------------------------------------


class Tracker:
    """When each game's ``card_played`` events arrived on each of its streams."""

    def __init__(self) -> None:
        self.recording = False
        self.arrivals: dict[tuple[str, int], list[float]] = {}

    def arrived(self, game_id: str, version: int, when: float) -> None:
        if self.recording:
            self.arrivals.setdefault((game_id, version), []).append(when)


class StreamProtocol(asyncio.Protocol):
    """One ``GET /v1/games/{id}/events`` with ``Accept: text/event-stream``: the response head,
    then chunked SSE frames (each event's ``event:`` and ``data:`` are looked at only for a
    ``card_played``'s version)."""

    def __init__(self, game_id: str, tracker: Tracker) -> None:
        self.game_id = game_id
        self.tracker = tracker
        self.transport: asyncio.Transport | None = None
        self.status = 0
        self.head_done = False
        self.chunked = False
        self.raw = b""  # bytes not yet de-chunked
        self.text = b""  # SSE text not yet split into frames
        self.events = 0
        self.comments = 0
        self.ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()  # the status (200: first event)
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.raw += data
        if not self.head_done:
            end = self.raw.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.raw = self.raw[:end].lower(), self.raw[end + 4 :]
            self.head_done = True
            self.status = int(head[9:12])
            self.chunked = b"transfer-encoding: chunked" in head
            if self.status != 200:
                if not self.ready.done():
                    self.ready.set_result(self.status)
                assert self.transport is not None
                self.transport.close()
                return
        if self.chunked:
            raw, position = self.raw, 0
            while True:
                line_end = raw.find(b"\r\n", position)
                if line_end < 0:
                    break
                size = int(raw[position:line_end].split(b";")[0], 16)
                if size == 0:  # the server ended the stream
                    position = len(raw)
                    break
                if len(raw) < line_end + 2 + size + 2:
                    break
                self.text += raw[line_end + 2 : line_end + 2 + size]
                position = line_end + 2 + size + 2
            self.raw = raw[position:]
        else:
            self.text, self.raw = self.text + self.raw, b""
        if b"\n\n" not in self.text:
            return
        *frames, self.text = self.text.split(b"\n\n")
        for frame in frames:
            if frame.startswith(b":"):
                self.comments += 1
                continue
            if not frame.startswith(b"id:"):
                continue  # the retry: line
            self.events += 1
            if not self.ready.done():
                self.ready.set_result(200)
            if b"\nevent: card_played\n" in frame:
                match = VERSION.search(frame)
                if match:
                    self.tracker.arrived(self.game_id, int(match.group(1)), now)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_result(self.status or -1)
        if not self.closed.done():
            self.closed.set_result(None)


@dataclass
class OpenStreams:
    protocols: list[StreamProtocol]
    per_game: dict[str, int]
    seconds: float
    refused: int  # 503 answers (a worker full) retried
    errors: int  # connections that failed, retried
    failed: int  # streams given up after OPEN_ATTEMPTS or OPEN_SECONDS


async def open_streams(port: int, games: list[Game], count: int, tracker: Tracker) -> OpenStreams:
    """``count`` streams spread evenly over ``games`` (the first three of each game with a seat's token)."""
    loop = asyncio.get_running_loop()
    semaphore = asyncio.Semaphore(OPEN_CONCURRENCY)
    refused = errors = 0
    started = time.perf_counter()
    deadline = started + OPEN_SECONDS

    async def one(game: Game, index: int) -> StreamProtocol | None:
        nonlocal refused, errors
        token = game.tokens[index] if index < 3 else None
        request = f"GET /v1/games/{game.id}/events HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n"
        if token:
            request += f"Authorization: Bearer {token}\r\n"
        request_bytes = (request + "\r\n").encode()
        for attempt in range(OPEN_ATTEMPTS):
            protocol: StreamProtocol | None = None
            async with semaphore:
                try:
                    transport, protocol = await loop.create_connection(
                        lambda: StreamProtocol(game.id, tracker), HOST, port
                    )
                    transport.write(request_bytes)
                    status = await asyncio.wait_for(protocol.ready, max(0.1, deadline - time.perf_counter()))
                except (OSError, TimeoutError):
                    errors += 1
                    status = -1
            if status == 200 and protocol is not None:
                return protocol
            if protocol is not None and protocol.transport is not None:
                protocol.transport.close()
            if status == 503:
                refused += 1
            if time.perf_counter() > deadline:
                break
            await asyncio.sleep(0.05 * (1 + attempt % 5) + random.random() * 0.05)
        return None  # given up: counted as failed

    wanted = [(games[i % len(games)], i // len(games)) for i in range(count)]
    results = await asyncio.gather(*(one(game, index) for game, index in wanted))
    protocols = [protocol for protocol in results if protocol is not None]
    per_game: dict[str, int] = {}
    for protocol in protocols:
        per_game[protocol.game_id] = per_game.get(protocol.game_id, 0) + 1
    return OpenStreams(
        protocols, per_game, time.perf_counter() - started, refused, errors, len(results) - len(protocols)
    )


async def close_streams(streams: OpenStreams) -> int:
    """Close every stream; the number the server had ended already (it should be none)."""
    ended = sum(1 for protocol in streams.protocols if protocol.closed.done())
    for protocol in streams.protocols:
        if protocol.transport is not None:
            protocol.transport.close()
    await asyncio.wait([protocol.closed for protocol in streams.protocols], timeout=10)
    return ended


async def drained(server: Server, seconds: float) -> tuple[float, dict[str, int]]:
    """Wait until the server has let go of the closed streams (no CLOSE_WAIT socket, at most a few
    kept-alive ones): their threads notice on their next write, a play's event or the heartbeat."""
    started = time.perf_counter()
    counts = server.connections()
    for _ in range(int(seconds / 0.2) + 1):
        counts = server.connections()
        if counts["close_wait"] == 0 and counts["established"] <= 64:
            break
        await asyncio.sleep(0.2)
    return time.perf_counter() - started, counts


# -- profiling (--py-spy) -------------------------------------------------------------------

# The first rule whose pattern occurs in a sample's stack takes it (py-spy's raw format: one
# folded stack per line, outermost frame first, then the count).
PARTS: list[tuple[str, str]] = [
    ("the feed: reads back and renders the stored domain events", r"_items \(service/events/feed\.py"),
    ("hub thread: reads the changed games' new events (database)", r"_read_changes \(.*new_events \("),
    ("hub thread: the rest (cache, wakes)", r"_read_changes \("),
    ("stream writer: takes and filters each stream's events", r"stream_writer\.py.*take \("),
    ("stream writer: sends to the sockets", r"stream_writer\.py.*_flush \("),
    ("stream writer: the rest (frames, loop)", r"service/api/stream_writer\.py"),
    ("stream thread: idle look at the game", r"frames \(service/api/events\.py.*look_at \("),
    ("stream: gunicorn writes the frame to the socket", r"frames \(service/api/events\.py.*;(sendall|write) \("),
    (
        "stream: hub reads the game's new events (database)",
        r"frames \(service/api/events\.py.*_bring_up_to_date \(.*_read \(",
    ),
    ("stream: hub waits for another stream's read", r"frames \(service/api/events\.py.*_bring_up_to_date \("),
    ("stream: wait/wake on the game's condition", r"frames \(service/api/events\.py.*(Watch\.wait|wait \(threading)"),
    ("stream: take and filter the cached events", r"frames \(service/api/events\.py.*take \("),
    ("stream: open (feed_start: read and render the game)", r"EventFeed\.open \(|feed_start \("),
    ("stream: the rest (frame text, generator, gunicorn)", r"frames \(service/api/events\.py"),
    ("notifications: the hub thread's listener, publish", r"service/store/notifications\.py"),
    ("play requests", r"PlayViews\.post \("),
    ("other requests (deal, hands)", r"handle_request \("),
    ("gunicorn: accept, poll, the rest", r""),
]


def spy_on(server: Server, seconds: float, folder: Path, label: str) -> list[subprocess.Popen[bytes]]:
    """py-spy on every worker of ``server`` for ``seconds``: the thread holding the GIL (its CPU time in
    Python), without pausing the workers."""
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    folder.mkdir(parents=True, exist_ok=True)
    return [
        subprocess.Popen(
            [
                py_spy,
                "record",
                "--nonblocking",
                "--gil",
                "-r",
                "100",
                "-d",
                str(max(1, int(seconds))),
                "-f",
                "raw",
                "-p",
                str(pid),
                "-o",
                str(folder / f"{label}-{pid}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pid in server.processes()
    ]


def profile_shares(folder: Path, label: str) -> tuple[int, dict[str, int]]:
    counts = {name: 0 for name, _ in PARTS}
    total = 0
    patterns = [(name, re.compile(pattern)) for name, pattern in PARTS]
    for path in folder.glob(f"{label}-r*-*.txt"):
        for line in path.read_text(errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if not count.isdigit():
                continue
            total += int(count)
            counts[next(name for name, pattern in patterns if pattern.search(stack))] += int(count)
    return total, counts


def print_profile(folder: Path) -> None:
    for label in sorted({"-".join(path.name.split("-")[:2]) for path in folder.glob("*-*-r*-*.txt")}):
        total, counts = profile_shares(folder, label)
        print(f"\npy-spy, {label} window ({total} samples of the GIL holder over the workers)")
        for name, count in counts.items():
            if count:
                print(f"  {count / max(1, total):6.1%}  {name}")
        leaves: dict[str, int] = {}
        for path in folder.glob(f"{label}-r*-*.txt"):
            for line in path.read_text(errors="replace").splitlines():
                stack, _, samples = line.rpartition(" ")
                if samples.isdigit() and stack:
                    leaf = stack.split(";")[-1]
                    leaves[leaf] = leaves.get(leaf, 0) + int(samples)
        top = sorted(leaves.items(), key=lambda item: -item[1])[:8]
        print("  innermost frames: " + "; ".join(f"{leaf} {n / max(1, total):.1%}" for leaf, n in top))


# -- the run --------------------------------------------------------------------------------


def cpu_of(server: Server, pids: list[int] | None = None) -> float:
    """User + system CPU time of the instance's processes (the master's descendants; or ``pids``)."""
    return cpu_seconds(server.processes() if pids is None else pids)


async def window(
    kind: str,
    server: Server,
    games: list[Game],
    args: argparse.Namespace,
    tracker: Tracker | None,
    streams: OpenStreams | None,
) -> Window:
    await drive(server.port, games, args.drivers, args.warmup, None)
    if streams is None and kind == "closed":  # streams closed just before: let the server let go of them first
        waited, counts = await drained(server, DRAIN_SECONDS)
    else:
        waited, counts = 0.0, server.connections()
    result = Window(kind, args.seconds)
    result.extra["drain_s"] = round(waited, 2)
    result.extra["server_sockets_before"] = counts
    if tracker is not None:
        tracker.arrivals.clear()
        tracker.recording = True
    spies = []
    if args.py_spy is not None and kind in ("open", "closed"):
        spies = spy_on(server, args.seconds, args.py_spy, f"{server.name.split('-')[0]}-{kind}-r{args.round}")
    cpu, client = cpu_of(server), time.process_time()
    await drive(server.port, games, args.drivers, args.seconds, result)
    for spy in spies:
        with contextlib.suppress(subprocess.TimeoutExpired):
            await asyncio.to_thread(spy.wait, 30)
        if spy.poll() is None:
            spy.kill()
    result.server_cpu, result.client_cpu = cpu_of(server) - cpu, time.process_time() - client
    if tracker is not None and streams is not None:
        await collect_event_latencies(result, tracker, streams)
    return result


async def collect_event_latencies(result: Window, tracker: Tracker, streams: OpenStreams) -> None:
    deadline = time.perf_counter() + GRACE_SECONDS
    while time.perf_counter() < deadline:
        if all(len(tracker.arrivals.get((g, v), ())) >= streams.per_game.get(g, 0) for g, v, _ in result.played):
            break
        await asyncio.sleep(0.05)
    tracker.recording = False
    for game_id, version, answered in result.played:
        expected = streams.per_game.get(game_id, 0)
        if expected == 0:
            result.plays_without_streams += 1
            continue
        arrivals = tracker.arrivals.get((game_id, version), [])
        if len(arrivals) < expected:
            result.events_missed += 1
            continue
        result.event_latencies.append(max(0.0, max(arrivals) - answered))
        result.delivery_latencies.extend(max(0.0, when - answered) for when in arrivals)
    tracker.arrivals.clear()


def describe(db: str, w: Window) -> None:
    line = (
        f"{db:8} {w.kind:6} plays/s={w.rate:7.1f} play p50={1000 * percentile(w.play_latencies, 50):6.1f}ms "
        f"p99={1000 * percentile(w.play_latencies, 99):6.1f}ms requests={w.requests} "
        f"server_cpu/req={1000 * w.server_cpu / max(1, w.requests):5.2f}ms client_cpu={w.client_cpu:5.2f}s "
        f"failures={sum(w.failures.values())} drain={w.extra.get('drain_s')}s load={os.getloadavg()[0]:.1f}"
    )
    if w.kind == "open":
        line += (
            f"\n{'':8} {'':6} event p50={1000 * percentile(w.event_latencies, 50):6.1f}ms "
            f"p99={1000 * percentile(w.event_latencies, 99):6.1f}ms max={1000 * max(w.event_latencies, default=math.nan):6.1f}ms "
            f"(to the last of a game's streams; per stream p99={1000 * percentile(w.delivery_latencies, 99):6.1f}ms) "
            f"missed={w.events_missed} streams={w.extra.get('streams')} (503s retried {w.extra.get('open_503')}, "
            f"given up {w.extra.get('open_failed')}, sockets per worker {w.extra.get('sockets_per_worker')}, "
            f"opened in {w.extra.get('open_s')} s) rss/stream={w.extra.get('kib_per_stream')} KiB"
        )
    print(line, flush=True)
    for failure, count in sorted(w.failures.items(), key=lambda item: -item[1])[:10]:
        print(f"    failure: {count} x {failure}", flush=True)


ORDERS = (("sync", "closed", "open"), ("open", "closed", "sync"))  # closed sits next to both


async def measure_db(db: str, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    if db == "sqlite":
        urls = {"served": f"sqlite:///{workdir / 'served.sqlite3'}", "sync": f"sqlite:///{workdir / 'sync.sqlite3'}"}
    else:
        urls = {
            "served": postgres_schema_url(args.postgres_url, POSTGRES_SCHEMA),
            "sync": postgres_schema_url(args.postgres_url, POSTGRES_SCHEMA + "_sync"),
        }
    workers = str(args.workers)
    served_env = {"WEB_CONCURRENCY": workers, "STREAMS_PER_WORKER": str(args.streams_per_worker)}
    sync_env = {"WEB_CONCURRENCY": workers, "STREAMS_PER_WORKER": "0"}
    served_args = shlex.split(args.gunicorn_args)
    result: dict[str, Any] = {"db": db, "loadavg_before": round(os.getloadavg()[0], 2), "rounds": []}
    tracker = Tracker()
    with (
        gunicorn(f"{db}-served", urls["served"], workdir, served_env, args.log_level, served_args, args.app) as served,
        gunicorn(f"{db}-sync", urls["sync"], workdir, sync_env, args.log_level, ["-k", "sync"]) as sync,
    ):
        setup = Http(served.port)
        games = {"served": [await create_game(setup) for _ in range(args.games)]}
        setup.close()
        setup = Http(sync.port)
        games["sync"] = [await create_game(setup) for _ in range(args.games)]
        setup.close()
        result["workers"] = {"served": len(served.workers()), "sync": len(sync.workers())}
        result["rss_kib_start"] = {"served": served.rss_kib(), "sync": sync.rss_kib()}
        for number in range(args.rounds):
            args.round = number
            order = ORDERS[number % 2]
            measured: dict[str, Window] = {}
            for kind in order:
                if kind == "sync":
                    measured[kind] = await window(kind, sync, games["sync"], args, None, None)
                elif kind == "closed":
                    measured[kind] = await window(kind, served, games["served"], args, None, None)
                else:
                    measured[kind] = await open_window(served, games["served"], args, tracker)
                describe(db, measured[kind])
            result["rounds"].append(summarize_round(measured))
        result["rss_kib_end"] = {"served": served.rss_kib(), "sync": sync.rss_kib()}
        result["problems"] = problem_lines(served) + problem_lines(sync)
    result["loadavg_after"] = round(os.getloadavg()[0], 2)
    result["medians"] = medians(result["rounds"])
    return result


async def open_window(server: Server, games: list[Game], args: argparse.Namespace, tracker: Tracker) -> Window:
    """Streams opened on idle games (after the server let go of any earlier ones), the RSS with
    them idle, the window, then the streams closed."""
    waited, _ = await drained(server, DRAIN_SECONDS)
    await asyncio.sleep(0.5)
    rss_before, threads_before = server.rss_kib(), server.threads()
    streams = await open_streams(server.port, games, args.streams, tracker)
    try:
        await asyncio.sleep(1.0)  # idle: every stream has had its first event
        rss_after, threads_after = server.rss_kib(), server.threads()
        sockets = server.connections()
        sockets_per_worker = server.sockets()
        result = await window("open", server, games, args, tracker, streams)
        ended = await close_streams(streams)
    except BaseException:
        await close_streams(streams)
        raise
    # unmeasured plays: their events make the closed streams' threads find the sockets gone
    await drive(server.port, games, args.drivers, args.warmup, None)
    result.extra["drain_after_s"] = round((await drained(server, DRAIN_SECONDS))[0], 2)
    result.extra.update(
        streams=len(streams.protocols),
        games_with_streams=len(streams.per_game),
        open_s=round(streams.seconds, 2),
        open_503=streams.refused,
        open_errors=streams.errors,
        open_failed=streams.failed,
        sockets_per_worker=sockets_per_worker,
        ended_by_server=ended,
        server_established=sockets["established"],
        rss_kib_before=rss_before,
        rss_kib_with_streams=rss_after,
        kib_per_stream=round((rss_after - rss_before) / max(1, len(streams.protocols)), 1),
        threads_before=threads_before,
        threads_with_streams=threads_after,
        drain_before_open_s=round(waited, 2),
        heartbeats=sum(protocol.comments for protocol in streams.protocols),
    )
    return result


def window_summary(w: Window) -> dict[str, Any]:
    return {
        "plays_per_s": round(w.rate, 1),
        "play_p50_ms": round(1000 * percentile(w.play_latencies, 50), 2),
        "play_p99_ms": round(1000 * percentile(w.play_latencies, 99), 2),
        "requests": w.requests,
        "failures": dict(w.failures),
        "server_cpu_ms_per_request": round(1000 * w.server_cpu / max(1, w.requests), 3),
        "client_cpu_s": round(w.client_cpu, 2),
        "games_replaced": w.games_replaced,
        **w.extra,
    }


def summarize_round(measured: dict[str, Window]) -> dict[str, Any]:
    open_, closed, sync = measured["open"], measured["closed"], measured["sync"]
    return {
        "order": list(measured),
        "closed": window_summary(closed),
        "sync": window_summary(sync),
        "open": {
            **window_summary(open_),
            "event_p50_ms": round(1000 * percentile(open_.event_latencies, 50), 2),
            "event_p99_ms": round(1000 * percentile(open_.event_latencies, 99), 2),
            "event_max_ms": round(1000 * max(open_.event_latencies, default=math.nan), 2),
            "delivery_p50_ms": round(1000 * percentile(open_.delivery_latencies, 50), 2),
            "delivery_p99_ms": round(1000 * percentile(open_.delivery_latencies, 99), 2),
            "plays_measured": len(open_.event_latencies),
            "deliveries": len(open_.delivery_latencies),
            "events_missed": open_.events_missed,
            "plays_without_streams": open_.plays_without_streams,
        },
        "open_over_closed": round(open_.rate / closed.rate, 3) if closed.rate else math.nan,
        "served_over_sync": round(closed.rate / sync.rate, 3) if sync.rate else math.nan,
    }


def medians(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    def m(kind: str, key: str, digits: int = 2) -> float:
        return median([r[kind][key] for r in rounds], digits)

    return {
        "closed_plays_per_s": m("closed", "plays_per_s", 1),
        "open_plays_per_s": m("open", "plays_per_s", 1),
        "sync_plays_per_s": m("sync", "plays_per_s", 1),
        "open_over_closed": median([r["open_over_closed"] for r in rounds], 3),
        "served_over_sync": median([r["served_over_sync"] for r in rounds], 3),
        "closed_play_p99_ms": m("closed", "play_p99_ms"),
        "open_play_p99_ms": m("open", "play_p99_ms"),
        "sync_play_p99_ms": m("sync", "play_p99_ms"),
        "event_p50_ms": m("open", "event_p50_ms"),
        "event_p99_ms": m("open", "event_p99_ms"),
        "event_p99_ms_worst_round": max(r["open"]["event_p99_ms"] for r in rounds),
        "delivery_p99_ms": m("open", "delivery_p99_ms"),
        "events_missed": sum(r["open"]["events_missed"] for r in rounds),
        "plays_measured": sum(r["open"]["plays_measured"] for r in rounds),
        "streams_min": min(r["open"]["streams"] for r in rounds),
        "kib_per_stream_first": rounds[0]["open"]["kib_per_stream"],
        "kib_per_stream_median": m("open", "kib_per_stream", 1),
        "closed_server_cpu_ms_per_request": m("closed", "server_cpu_ms_per_request", 3),
        "open_server_cpu_ms_per_request": m("open", "server_cpu_ms_per_request", 3),
        "sync_server_cpu_ms_per_request": m("sync", "server_cpu_ms_per_request", 3),
        "open_client_cpu_s": m("open", "client_cpu_s"),
        "closed_client_cpu_s": m("closed", "client_cpu_s"),
        "failures": sum(sum(r[k]["failures"].values()) for r in rounds for k in ("closed", "open", "sync")),
        "open_503": sum(r["open"]["open_503"] for r in rounds),
        "open_failed": sum(r["open"]["open_failed"] for r in rounds),
    }


def problem_lines(server: Server, limit: int = 10) -> list[str]:
    lines = server.log.read_text(errors="replace").splitlines()
    keep = [line for line in lines if '"logger": "service.access"' not in line and "Booting worker" not in line]
    return [f"{server.name}: {line}" for line in keep if "error" in line.lower() or "warn" in line.lower()][-limit:]


def verdicts(result: dict[str, Any]) -> list[tuple[str, bool]]:
    m = result["medians"]
    return [
        (
            f">= {GOALS['streams']} streams open at once (fewest in a round: {m['streams_min']})",
            m["streams_min"] >= GOALS["streams"],
        ),
        (
            f"event p99 < {GOALS['event_p99_ms']:.0f} ms (median of rounds {m['event_p99_ms']} ms, worst {m['event_p99_ms_worst_round']} ms, missed {m['events_missed']})",
            m["event_p99_ms"] < GOALS["event_p99_ms"] and m["events_missed"] == 0,
        ),
        (
            f"plays/s with streams >= {GOALS['open_over_closed']:.0%} of without ({m['open_over_closed']:.2f})",
            m["open_over_closed"] >= GOALS["open_over_closed"],
        ),
        ("no failed request", m["failures"] == 0),
    ]


def print_summary(results: list[dict[str, Any]]) -> None:
    print()
    print(
        "db        closed/s  open/s  open/closed  sync/s  served/sync  event p50/p99 ms  play p99 ms closed/open/sync  KiB/stream first/median"
    )
    for r in results:
        m = r["medians"]
        print(
            f"{r['db']:8} {m['closed_plays_per_s']:8.1f} {m['open_plays_per_s']:7.1f} {m['open_over_closed']:12.2f} "
            f"{m['sync_plays_per_s']:7.1f} {m['served_over_sync']:13.2f} {m['event_p50_ms']:8.1f}/{m['event_p99_ms']:<8.1f} "
            f"{m['closed_play_p99_ms']:10.1f}/{m['open_play_p99_ms']:.1f}/{m['sync_play_p99_ms']:.1f} "
            f"{m['kib_per_stream_first']:10.1f}/{m['kib_per_stream_median']:.1f}"
        )
        print(
            f"  {r['db']}: per round open/closed {[x['open_over_closed'] for x in r['rounds']]}, "
            f"served/sync {[x['served_over_sync'] for x in r['rounds']]}, "
            f"event p99 {[x['open']['event_p99_ms'] for x in r['rounds']]} ms; "
            f"load average {r['loadavg_before']} before, {r['loadavg_after']} after"
        )
        for check, ok in verdicts(r):
            print(f"  {r['db']}: {'PASS' if ok else 'MISS'} {check}")
        for line in r["problems"]:
            print(f"  {r['db']}: log: {line[:300]}")


def raise_open_files(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        limit = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
        if limit < needed:
            print(f"warning: RLIMIT_NOFILE is {limit}, below the {needed} this run wants", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--streams", type=int, default=2000, help="streams open in the 'open' windows")
    parser.add_argument("--games", type=int, default=100, help="games in play on each instance")
    parser.add_argument(
        "--drivers", type=int, default=16, help="asyncio tasks making the requests (one in flight each)"
    )
    parser.add_argument(
        "--streams-per-worker",
        type=int,
        default=500,
        help="STREAMS_PER_WORKER of the served instance (500: 2,500 slots for 2,000 streams; see the docs)",
    )
    parser.add_argument(
        "--gunicorn-args",
        default="",
        help='extra gunicorn options for the served instance, e.g. "-k gthread --threads 504" (a thread per stream)',
    )
    parser.add_argument("--app", default="wsgi:app", help="the served instance's application (gunicorn's APP_MODULE)")
    parser.add_argument(
        "--workers", type=int, default=5, help="WEB_CONCURRENCY of both instances (5: the default on 2 cores)"
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring window")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured plays before each window")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of closed/open/sync windows (medians reported)")
    parser.add_argument("--postgres-url", default=os.environ.get("BENCH_POSTGRES_URL", POSTGRES_URL))
    parser.add_argument("--log-level", default="INFO", help="LOG_LEVEL of the servers (INFO: one line per request)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--py-spy",
        type=Path,
        help="sample the served workers with py-spy in the closed and open windows, into this folder (a profile: not for the figures)",
    )
    args = parser.parse_args(argv)
    if not (
        1 <= args.streams <= 10_000
        and 1 <= args.streams_per_worker <= 10_000
        and 1 <= args.games <= 1000
        and 1 <= args.drivers <= 256
        and 1 <= args.workers <= 12
        and 0 < args.seconds <= 120
        and 0 <= args.warmup <= 30
        and 1 <= args.rounds <= 10
    ):
        parser.error(
            "out of range: --streams 1..10000, --games 1..1000, --drivers 1..256, --workers 1..12, "
            "--seconds (0, 120], --warmup [0, 30], --rounds 1..10"
        )
    raise_open_files(2 * args.streams + 2000)  # this process's sockets; the servers inherit the limit
    results = []
    with tempfile.TemporaryDirectory(prefix="coins-events-bench-") as tmp:
        for name in args.db.split(","):
            results.append(asyncio.run(measure_db(name.strip(), args, Path(tmp))))
    print_summary(results)
    if args.py_spy is not None:
        print_profile(args.py_spy)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    print("events=" + json.dumps(results, separators=(",", ":")))
    return 0 if all(ok for r in results for _, ok in verdicts(r)) else 1


if __name__ == "__main__":
    raise SystemExit(main())
