"""Where a request's time goes in a gunicorn worker: py-spy samples both workers under load.

Starts the service as bench/http_load.py does (gunicorn as deployed, here 2 workers, each of
gunicorn.conf.py's threads; 127.0.0.1), drives ``--games`` concurrent games, records both workers
with py-spy for ``--seconds``, and prints the share of the samples in each part of the stack: for
every request (gunicorn's reading and answering included), and within the play view alone.
py-spy counts a thread blocked in the database driver (a PostgreSQL round trip, SQLite waiting
for the write lock) as busy, so the shares are of the time the threads spend on requests, waits
on the database included (``--gil``: only the samples of a thread holding the GIL, its CPU in
Python); the time they sit waiting for the next connection is not counted. The last line is
``http_profile=<json>``: the shares of both.

    pip install py-spy   # not a dependency of the service
    .venv/bin/python -m bench.http_profile [--db sqlite|postgres] [--games 4] [--seconds 10] [--raw out] [--gil]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.http_load import POSTGRES_URL, database_urls, drive, gunicorn

# The first rule whose pattern occurs anywhere in a sample's stack takes the sample.
PARTS: list[tuple[str, str]] = [
    ("observability (request id, metrics, JSON log line)", r"service/observability/|prometheus_client/"),
    ("db: BEGIN and COMMIT (SQLite: this process's turn for the write lock, BEGIN IMMEDIATE)", r"Database\.begin \("),
    ("db: read the game and its seats", r"StoreSession\.load \("),
    ("db: save (the game, its actions, what it owes others)", r"StoreSession\.save \("),
    ("db: other (pool checkout and pre-ping, connection, other statements)", r"service/store/|sqlalchemy/"),
    ("engine (restore the snapshot, play, snapshot)", r"service/engine/"),
    (
        "serialise the response (compiled dumpers, JSON)",
        r"<dumper of |Schema\.dump \(|JSONProvider\.(response|dumps) \(|jsonify \(",
    ),
    ("parse the request (webargs, marshmallow load, JSON)", r"Parser\.parse \(|Schema\.load \(|get_data \("),
    ("use cases and their unit of work (service/games/, service/work/)", r"service/games/|service/work/"),
    ("the service's HTTP layer (service/api/: views, hooks, headers)", r"service/api/"),
    ("Flask, flask-smorest, webargs, werkzeug: the rest", r"flask/|flask_smorest/|webargs/|werkzeug/"),
    ("gunicorn: read and parse the request", r"Parser\.__next__ \(|_keepalive_after \("),
    ("gunicorn: send the response", r"Response\.write \(|ClosingIterator"),
    ("gunicorn: the rest (accept, environ, access log, keep-alive)", r"."),
]


def shares(raw: Path, anchor: str) -> tuple[int, Counter[str]]:
    """Samples whose stack contains ``anchor``, by part."""
    parts: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if anchor not in stack:
            continue
        total += int(count)
        part = next(name for name, pattern in PARTS if re.search(pattern, stack))
        parts[part] += int(count)
    return total, parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", default="sqlite", choices=("sqlite", "postgres"))
    parser.add_argument("--games", type=int, default=4, help="concurrent games while sampling")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=int, default=250, help="samples per second per worker")
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw (folded) stacks here")
    parser.add_argument(
        "--gil", action="store_true", help="only samples of threads holding the GIL: CPU in Python, no waits"
    )
    args = parser.parse_args(argv)
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(py_spy).exists():
        parser.error("py-spy is not installed: pip install py-spy")
    if not 1 <= args.games <= 64 or not 0 < args.seconds <= 120:
        parser.error("--games must be in [1, 64] and --seconds in (0, 120]")

    with tempfile.TemporaryDirectory(prefix="coins-http-profile-") as tmp:
        workdir = Path(tmp)
        service_url, _ = database_urls(args.db, workdir, args.postgres_url)
        # As deployed: gunicorn.conf.py's threads make them gthread workers (ThreadWorker.handle).
        with gunicorn("wsgi:app", service_url, workdir, log_level="INFO", workers=2) as server:
            drive(server, args.games, 2.0, "play", 0)  # warm up: imports, pools, prepared statements
            workers = [
                int(stat.parent.name)
                for stat in Path("/proc").glob("[0-9]*/stat")
                if stat.read_text().rpartition(")")[2].split()[1] == str(server.process.pid)
            ]
            load = threading.Thread(target=drive, args=(server, args.games, args.seconds + 3, "play", 0))
            load.start()
            time.sleep(1)
            outputs = [workdir / f"spy-{pid}.txt" for pid in workers]
            record = [py_spy, "record", "-r", str(args.rate), "-d", str(int(args.seconds)), "-f", "raw"]
            record += ["--gil"] if args.gil else []
            spies = [
                subprocess.Popen(
                    [*record, "-p", str(pid), "-o", str(output)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for pid, output in zip(workers, outputs, strict=True)
            ]
            for spy in spies:
                spy.wait(timeout=args.seconds + 60)
            load.join(timeout=args.seconds + 60)
        raw = workdir / "all.txt"
        raw.write_text("".join(output.read_text() for output in outputs if output.exists()))
        if args.raw:
            shutil.copy(raw, args.raw)
        print(
            f"{args.db}, {args.games} concurrent games, {len(workers)} workers, {args.seconds:.0f} s at {args.rate} Hz"
        )
        summary: dict[str, Any] = {"db": args.db, "games": args.games, "gil": args.gil}
        for title, anchor in (("every request", "ThreadWorker.handle "), ("the play view", "PlayViews.post ")):
            total, parts = shares(raw, anchor)
            print(f"\n{title} ({total} samples)")
            for name, _ in PARTS:
                if parts[name]:
                    print(f"  {parts[name] / total:6.1%}  {name}")
            summary[title] = {
                "samples": total,
                **{name: round(parts[name] / total, 3) for name, _ in PARTS if parts[name]},
            }
    print(f"http_profile={json.dumps(summary)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
