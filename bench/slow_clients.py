"""Slow clients: does the service keep serving one address while another holds slow connections?

It starts the service as deployed (``gunicorn -c gunicorn.conf.py wsgi:app``, its defaults: gthread,
2 x cores + 1 workers of WORKER_CONNECTIONS threads) on SQLite, on a free port
of 127.0.0.1; with ``--target proxy`` HAProxy runs the shipped ``deploy/haproxy.cfg`` in front of it
and the victim and the attack talk to the proxy, with ``--target direct`` to gunicorn itself. The
victim (127.0.0.1) reads one game, one request at a time on a fresh connection each (5 s timeout),
for ``--seconds`` without an attack ("before"), then for ``--seconds`` while ``--connections``
sockets bound to 127.0.0.2 each send a header line every 3 s and never finish their request
(``tests/support/slow_clients.py``, in a process of its own: the attack starts ``--ramp`` seconds
before the second window). It prints the victim's p50/p99 latency and failures in each window and
the attack's tally; ``--gunicorn-env NAME=VALUE`` (repeatable) changes a setting of the service.

    .venv/bin/python -m bench.slow_clients --target direct|proxy [--connections 3000] [--seconds 20]

Everything talks to 127.0.0.1 and 127.0.0.2 only; every loop is bounded in count and time. The last
line is ``slow_clients=<json summary>``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from tests.support.topology import ROOT, behind_haproxy, haproxy_binary, realtime, service, timed

PAUSE_SECONDS = 0.05  # between two of the victim's requests


def victim(port: int, path: str, seconds: float) -> dict[str, Any]:
    """Requests one after another for ``seconds`` (at most one per PAUSE_SECONDS): latencies, failures."""
    latencies: list[float] = []
    failures: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    for _ in range(int(seconds / PAUSE_SECONDS) + 1):
        if time.monotonic() >= deadline:
            break
        answer = timed(port, "GET", path)
        if answer.status == 200:
            latencies.append(answer.seconds)
        else:
            reason = answer.error.split(":")[0] if answer.status == 0 else str(answer.status)
            failures[reason] = failures.get(reason, 0) + 1
        time.sleep(PAUSE_SECONDS)
    ordered = sorted(latencies)
    return {
        "ok": len(latencies),
        "failed": sum(failures.values()),
        "failures": failures,
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 1) if ordered else None,
        "max_ms": round(ordered[-1] * 1000, 1) if ordered else None,
    }


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    # One address reads one game, far past the limits: they are off. Behind the proxy, as deployed.
    env = {"RATE_LIMITS": "off", "TRUSTED_PROXY_HOPS": "1" if args.target == "proxy" else "0"}
    env.update(item.split("=", 1) for item in args.gunicorn_env)
    binary = haproxy_binary()
    if args.target == "proxy" and binary is None:
        sys.exit("HAProxy is not installed (apt-get install haproxy)")
    with ExitStack() as running:
        app = running.enter_context(service(f"sqlite:///{workdir / 'coins.sqlite3'}", workdir, **env))
        port = app.port
        if args.target == "proxy":
            assert binary is not None
            feeds = running.enter_context(realtime(f"sqlite:///{workdir / 'coins.sqlite3'}", workdir, **env))
            proxy = behind_haproxy(binary, [app.port], [feeds.port], workdir, web_maxconn=args.maxconn)
            port = running.enter_context(proxy).port
        created = timed(port, "POST", "/v1/games", {})
        assert created.status == 201, created
        path = f"/v1/games/{created.body['id']}"
        before = victim(port, path, args.seconds)
        command = [sys.executable, "-m", "tests.support.slow_clients", "--port", str(port)]
        command += ["--connections", str(args.connections), "--seconds", str(args.seconds + args.ramp)]
        command += ["--ramp-seconds", str(args.ramp)]
        attacker = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            time.sleep(args.ramp)
            during = victim(port, path, args.seconds)
            out, _ = attacker.communicate(timeout=args.seconds + args.ramp + 60)
        finally:
            if attacker.poll() is None:
                attacker.kill()
                attacker.wait(10)
        tally = json.loads(out.strip().splitlines()[-1])
    return {
        "target": args.target,
        "connections": args.connections,
        "seconds": args.seconds,
        "env": env,
        "before": before,
        "during": during,
        "attack": tally,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=("direct", "proxy"), default="direct")
    parser.add_argument("--connections", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=20.0, help="each window: before, and during the attack")
    parser.add_argument("--ramp", type=float, default=5.0, help="seconds over which the attack opens its connections")
    parser.add_argument("--maxconn", type=int, default=2000, help="--target proxy: COINS_WEB_MAXCONN")
    parser.add_argument("--gunicorn-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="coins-slow-") as workdir:
        result = run(args, Path(workdir))
    for window in ("before", "during"):
        w = result[window]
        print(
            f"{args.target:6} {window:6}  ok={w['ok']:5}  failed={w['failed']:4}  p50={w['p50_ms']} ms  "
            f"p99={w['p99_ms']} ms  max={w['max_ms']} ms  {w['failures'] or ''}"
        )
    print(f"attack: {result['attack']}")
    print("slow_clients=" + json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
