"""Where a real-time process's memory per held stream goes: tracemalloc's retained allocations, by owner.

Serves the real-time role as ``coins-realtime`` does (``service.realtime.server.main``: uvicorn,
httptools, uvloop) on a fresh SQLite database, every request on one port, with tracemalloc on
(``--frames`` frames; 0: off, for the resident memory alone). It opens ``--warm`` streams, takes a
snapshot, opens ``--streams`` more (``--feeds`` of them players' feeds, the rest one game's public
stream), leaves them idle ``--idle`` seconds and takes another. Per added stream it prints the rise
of the traced memory, the retained allocations grouped by their owner (the newest frame of
``service/``, else uvicorn's, else the newest) and the objects the collector tracks, by type; with
``--frames 0``, the rise of the resident memory instead (tracing inflates it; against the traced
figure it shows what tracemalloc does not see: pymalloc's and malloc's slack, uvloop's C side)::

    .venv/bin/python -m bench.stream_memory                  # --streams 1000 --feeds 200 --frames 30
    .venv/bin/python -m bench.stream_memory --streams 2000 --warm 200 --frames 0   # resident memory only
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.client
import json
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.server import HOST, free_port, serve

ROOT = Path(__file__).resolve().parents[1]
OPEN_AT_ONCE = 100
WAIT_SECONDS = 600  # for a snapshot (a full collection and tracemalloc's over many streams take a while)


def resident_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# -- the served process -----------------------------------------------------------------------------


class Probe:
    """In the served process: a snapshot when the driver asks for one (a file ``<name>.ask`` in ``folder``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.taken: dict[str, tuple[tracemalloc.Snapshot | None, Counter[str], Counter[str], int, int]] = {}

    def watch(self) -> None:
        """Take the snapshots asked for, until the last (``after``) or :data:`WAIT_SECONDS` have passed."""
        deadline = time.monotonic() + WAIT_SECONDS
        while "after" not in self.taken and time.monotonic() < deadline:
            time.sleep(0.2)
            for asked in sorted(self.folder.glob("*.ask")):
                asked.unlink()
                self.take(asked.stem)

    def take(self, name: str) -> None:
        gc.collect()
        tracing = tracemalloc.is_tracing()
        # Both counts of objects include the first snapshot (its traces' list), neither the second.
        snapshot = tracemalloc.take_snapshot() if tracing and name == "before" else None
        counts: Counter[str] = Counter()
        sizes: Counter[str] = Counter()
        for thing in gc.get_objects():
            kind = f"{type(thing).__module__}.{type(thing).__qualname__}"
            counts[kind] += 1
            sizes[kind] += sys.getsizeof(thing)
        if tracing and name != "before":
            snapshot = tracemalloc.take_snapshot()
        traced = tracemalloc.get_traced_memory()[0] if tracing else 0
        self.taken[name] = (snapshot, counts, sizes, resident_kib(), traced)
        if name == "after":
            added = int((self.folder / "added").read_text())
            report, figures = self.report(added)
            (self.folder / "figures.json").write_text(json.dumps(figures))
            (self.folder / "report.txt").write_text(report)
        (self.folder / f"{name}.done").write_text("")

    def report(self, added: int) -> tuple[str, dict[str, Any]]:
        """What each added stream keeps, as text, and its main figures."""
        before, counts0, sizes0, resident0, traced0 = self.taken["before"]
        after, counts1, sizes1, resident1, traced1 = self.taken["after"]
        lines = [f"streams added: {added}"]
        figures: dict[str, Any] = {"streams": added}
        if before is None or after is None:  # with tracing on, its own records (and the first snapshot) would count
            figures["resident_kib_per_stream"] = round((resident1 - resident0) / added, 2)
            lines.append(f"resident memory: {figures['resident_kib_per_stream']:.2f} KiB a stream")
        else:
            figures["traced_kib_per_stream"] = round((traced1 - traced0) / 1024 / added, 2)
            lines.append(f"traced memory: {figures['traced_kib_per_stream']:.2f} KiB a stream (net)")
            sizes: Counter[str] = Counter()
            blocks: Counter[str] = Counter()
            for stat in after.compare_to(before, "traceback"):
                owner = _owner(list(stat.traceback))
                sizes[owner] += stat.size_diff
                blocks[owner] += stat.count_diff
            lines.append("\nretained per stream, by owner: bytes, allocations")
            lines += [
                f"{size / added:8.1f} {blocks[owner] / added:6.2f}  {owner}"
                for owner, size in sizes.most_common()
                if size / added >= 8
            ]
            freed = sorted((size, owner) for owner, size in sizes.items() if size / added <= -8)[:5]
            lines += [f"{size / added:8.1f} {blocks[owner] / added:6.2f}  {owner} (freed)" for size, owner in freed]
        lines.append("\nobjects the collector tracks, per stream: sys.getsizeof bytes, count")
        rows = [
            ((sizes1[kind] - sizes0[kind]) / added, (counts1[kind] - counts0[kind]) / added, kind) for kind in counts1
        ]
        lines += [
            f"{size:8.1f} {count:6.2f}  {kind}" for size, count, kind in sorted(rows, reverse=True) if count >= 0.5
        ]
        return "\n".join(lines), figures


def _owner(frames: list[tracemalloc.Frame]) -> str:
    """Whose allocation: the newest frame of service/ (but its entry point) or uvicorn, else the newest
    (``frames``: oldest first)."""
    for frame in reversed(frames):
        for part in ("/service/", "/uvicorn/"):
            if part in frame.filename and not frame.filename.endswith("realtime/server.py"):
                return f"{part.strip('/')}/{frame.filename.split(part)[-1]}:{frame.lineno}"
    return f"{frames[-1].filename}:{frames[-1].lineno}"


def served(folder: Path, frames: int) -> None:
    from service.realtime import server

    if frames:
        tracemalloc.start(frames)
    threading.Thread(target=Probe(folder).watch, daemon=True).start()
    server.main()


# -- the driver -----------------------------------------------------------------------------------


def call(port: int, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {"Accept": "application/json", "Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    connection.request(method, path, None if body is None else json.dumps(body), headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    assert 200 <= answer.status < 300, (method, path, answer.status, data)
    return json.loads(data) if data else None


async def open_streams(port: int, readers: list[tuple[str, str | None]], kept: list[asyncio.StreamWriter]) -> int:
    """Open a stream for each of ``readers`` (path, key), kept open in ``kept``; how many answered 200."""
    limit = asyncio.Semaphore(OPEN_AT_ONCE)

    async def one(path: str, key: str | None) -> bool:
        auth = f"Authorization: Bearer {key}\r\n" if key else ""
        async with limit:
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n{auth}\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
            kept.append(writer)
            return head.startswith(b"HTTP/1.1 200")

    return sum(await asyncio.gather(*(one(path, key) for path, key in readers)))


def snapshot(folder: Path, name: str) -> None:
    (folder / f"{name}.ask").write_text("")
    wait_for(folder / f"{name}.done")


def wait_for(path: Path) -> None:
    """Until the served process writes ``path``, at most :data:`WAIT_SECONDS`."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench.stream_memory: the served process wrote no {path.name} in {WAIT_SECONDS} s")
        time.sleep(0.2)


async def drive(port: int, folder: Path, args: argparse.Namespace) -> None:
    keys = [call(port, "POST", "/v1/players", {"name": f"p{n}"})["key"] for n in range(max(3, args.feeds))]
    body = {"seats": [{"player": "me"}, None, None], "target_score": 100, "first_dealer": 0}
    game = call(port, "POST", "/v1/games", body, keys[0])["id"]
    for key in keys[1:3]:
        call(port, "POST", f"/v1/games/{game}/players", {"player": "me"}, key)
    call(port, "POST", f"/v1/games/{game}/hands", None, keys[0])
    share = args.feeds / (args.streams + args.warm)
    warm_feeds = round(args.warm * share)
    feeds = [("/v1/players/me/events", key) for key in keys[: args.feeds]]
    kept: list[asyncio.StreamWriter] = []
    public = (f"/v1/games/{game}/events", None)
    opened = await open_streams(port, [public] * (args.warm - warm_feeds) + feeds[:warm_feeds], kept)
    await asyncio.sleep(args.idle)
    snapshot(folder, "before")
    rest = [public] * (args.streams - len(feeds[warm_feeds:])) + feeds[warm_feeds:]
    (folder / "added").write_text(str(len(rest)))
    opened += await open_streams(port, rest, kept)
    print(f"{opened} streams open of {args.warm + len(rest)}", flush=True)
    await asyncio.sleep(args.idle)
    snapshot(folder, "after")
    for writer in kept:
        writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=1000, help="streams measured")
    parser.add_argument("--feeds", type=int, default=200, help="of all the streams, players' feeds")
    parser.add_argument("--warm", type=int, default=100, help="streams opened before the first snapshot")
    parser.add_argument("--frames", type=int, default=30, help="tracemalloc's frames (0: off)")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds idle before each snapshot")
    parser.add_argument("--served", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.served:
        served(Path(args.served), args.frames)
        return
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="coins-stream-memory-") as temporary:
        folder = Path(temporary)
        env = {key: value for key, value in os.environ.items() if key not in ("PROMETHEUS_MULTIPROC_DIR", "PORT")}
        env.update(
            DATABASE_URL=f"sqlite:///{folder / 'coins.sqlite3'}",
            BIND=f"{HOST}:{port}",
            RATE_LIMITS="off",
            LOG_LEVEL="WARNING",
            STREAMS_PER_PROCESS="30000",
        )
        command = [sys.executable, "-m", "bench.stream_memory", "--served", str(folder), "--frames", str(args.frames)]
        with serve(command, port=port, env=env, cwd=ROOT, log=folder / "realtime.log", start_seconds=120):
            asyncio.run(drive(port, folder, args))
            wait_for(folder / "report.txt")
            print((folder / "report.txt").read_text())
            print(f"stream_memory={(folder / 'figures.json').read_text()}")


if __name__ == "__main__":
    main()
