"""One address takes the event streams: how many it gets, and whether other addresses still get theirs.

Serves the real-time role, ``coins-realtime`` (every request on one port, as the README's command
does), on a fresh SQLite database, holding at most ``--streams-per-process`` streams, with
``RATE_LIMITS`` as given. The *attacker* (source address 127.0.0.1) opens
``--streams`` event streams on one game, one after another, and keeps them open; then *another*
address (127.0.0.2) opens ``--others`` streams and as many long polls. Prints what each got, the
count of each status; the last line is ``stream_shares=<json>``, with the same counts::

    .venv/bin/python -m bench.stream_shares --streams 1500 --streams-per-process 1000
    .venv/bin/python -m bench.stream_shares --streams 1500 --streams-per-process 1000 --rate-limits off

Without the streams' shares (``--rate-limits off``) the attacker takes every slot of the process
and the other address gets ``503 too_many_streams``; with them the attacker gets
``STREAMS_PER_ADDRESS`` (200) and ``429`` beyond, and the other address gets all it asks for.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.support.server import free_port, serve

ROOT = Path(__file__).resolve().parents[1]
ATTACKER, OTHER = "127.0.0.1", "127.0.0.2"


def _open(port: int, source: str, path: str, accept: str) -> tuple[int, http.client.HTTPConnection]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    connection.request("GET", path, headers={"Accept": accept})
    response = connection.getresponse()
    if response.status != 200 or accept == "application/json":
        response.read()
    return response.status, connection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=1500, help="streams the attacker opens")
    parser.add_argument("--others", type=int, default=20, help="streams (and long polls) the other address opens")
    parser.add_argument("--streams-per-process", type=int, default=1000, help="STREAMS_PER_PROCESS")
    parser.add_argument("--rate-limits", choices=("on", "off"), default="on")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{folder}/coins.sqlite3",
            "BIND": f"127.0.0.1:{port}",
            "STREAMS_PER_PROCESS": str(args.streams_per_process),
            "RATE_LIMITS": args.rate_limits,
            "LOG_LEVEL": "WARNING",
        }
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        command = [str(Path(sys.executable).with_name("coins-realtime"))]
        with serve(command, port=port, env=env, cwd=ROOT, log=Path(folder) / "realtime.log"):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("POST", "/v1/games", body=b"{}", headers={"Content-Type": "application/json"})
            game_id = json.loads(connection.getresponse().read())["id"]
            path = f"/v1/games/{game_id}/events"
            held = []
            attacker: Counter[int] = Counter()
            for _ in range(args.streams):
                status, stream = _open(port, ATTACKER, path, "text/event-stream")
                attacker[status] += 1
                if status == 200:
                    held.append(stream)
                else:
                    stream.close()
            other: Counter[int] = Counter()
            for _ in range(args.others):
                status, stream = _open(port, OTHER, path, "text/event-stream")
                other[status] += 1
                held.append(stream)
            polls: Counter[int] = Counter()
            for _ in range(args.others):
                status, poll = _open(port, OTHER, f"{path}?wait=0", "application/json")
                polls[status] += 1
                poll.close()
            print(f"STREAMS_PER_PROCESS {args.streams_per_process}, RATE_LIMITS {args.rate_limits}")
            print(f"attacker ({ATTACKER}), {args.streams} streams: {dict(sorted(attacker.items()))}")
            print(f"other address ({OTHER}), {args.others} streams: {dict(sorted(other.items()))}")
            print(f"other address ({OTHER}), {args.others} long polls: {dict(sorted(polls.items()))}")
            for stream in held:
                stream.close()
    summary = {
        "streams_per_process": args.streams_per_process,
        "rate_limits": args.rate_limits,
        "attacker_streams": args.streams,
        "attacker_statuses": _by_status(attacker),
        "other_streams": args.others,
        "other_stream_statuses": _by_status(other),
        "other_long_polls": args.others,
        "other_long_poll_statuses": _by_status(polls),
    }
    print("stream_shares=" + json.dumps(summary))


def _by_status(counts: Counter[int]) -> dict[str, int]:
    """How many answers of each status, in order (JSON's keys are strings)."""
    return {str(status): count for status, count in sorted(counts.items())}


if __name__ == "__main__":
    main()
