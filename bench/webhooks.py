"""Webhook deliveries: commit-to-receipt latency and throughput, with one webhook per player.

The service in this process (``create_app`` on a fresh SQLite file, or ``--database-url``), its
worker running as ``coins-worker`` runs it (:meth:`.Worker.run`: the deliveries in a thread of
their own), and a local HTTPS receiver with its own CA (tests/support/webhook_receiver.py; the
bench's resolver sends the receiver's name to 127.0.0.1, allowed as the tests allow it). ``--players``
players each make a webhook; then ``--rounds`` times, one event is appended to every player's
feed (quick play's ``match_found``, one call and one transaction for each player: the transactions
that queue the deliveries), and the time from each call's return (its commit) to its delivery's
arrival is taken. (The deliveries of the first players' events start while the rest are appended:
timed from the return of one call for all, as before 2026-12-06, most came out negative.) It prints p50,
p99 and the most of that latency and deliveries/s, and a last line ``webhooks=<json summary>``.

    .venv/bin/python -m bench.webhooks [--players 1000] [--rounds 3] [--database-url URL]

Bounded: every wait ends after ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from service import DELIVERER_EXTENSION, create_app
from service.api.context import EXTENSION, QUEUE_EXTENSION, WEBHOOKS_EXTENSION
from service.config import Settings
from service.games.player_events import MatchFoundEvent, encode_player_event
from service.worker.due import Worker
from tests.support.webhook_receiver import HOST, receiver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, receiver(Path(folder)) as hooks:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        settings = Settings(
            database_url=url,
            rate_limits="off",
            webhook_allow_networks=("127.0.0.0/8",),
            webhook_ca_bundle=hooks.ca_file,
        )
        app = create_app(settings)
        service = app.extensions[WEBHOOKS_EXTENSION]
        service.policy.resolver = lambda host, port: ["127.0.0.1"] if host == HOST else []
        client = app.test_client()
        players = []
        for n in range(args.players):
            made = client.post("/v1/players", json={"name": f"Hook {n}"}).json
            assert made is not None, "POST /v1/players answered without a JSON body"
            auth = {"Authorization": f"Bearer {made['key']}"}
            assert client.post("/v1/players/me/webhooks", json={"url": hooks.url}, headers=auth).status_code == 201
            players.append(made["id"])
        games = app.extensions[EXTENSION]
        worker = Worker(
            games, games.store.due, lambda: games.clock(), poll=0.05, queue=app.extensions[QUEUE_EXTENSION],
            instance="bench", review_seconds=0, webhooks=app.extensions[DELIVERER_EXTENSION],
        )  # fmt: skip
        stop = threading.Event()
        threading.Thread(target=worker.run, args=(stop,), daemon=True).start()
        committed: dict[str, float] = {}
        started = time.monotonic()
        for round_ in range(args.rounds):
            now = games.clock()
            for n, player in enumerate(players):  # a transaction each: its commit is this call's return
                event = encode_player_event(player, MatchFoundEvent(ticket=f"r{round_}p{n}", game="g" * 26), now)
                games.store.append_player_events([event])
                committed[f"r{round_}p{n}"] = time.monotonic()
            worker.wake()
        wanted = len(committed)
        while len(hooks.received) < wanted and time.monotonic() - started < args.timeout:
            time.sleep(0.05)
        stop.set()
        worker.wake()
        took = max((got.at for got in hooks.received), default=started) - started
        latencies = sorted(got.at - committed[json.loads(got.body)["ticket"]] for got in hooks.received)
        app.extensions["coins.feed"].close()
        app.extensions["coins.db"].dispose()
    summary = {
        "players": args.players,
        "deliveries": len(latencies),
        "wanted": wanted,
        "p50_s": round(statistics.median(latencies), 3) if latencies else None,
        "p99_s": round(latencies[int(0.99 * (len(latencies) - 1))], 3) if latencies else None,
        "max_s": round(latencies[-1], 3) if latencies else None,
        "per_second": round(len(latencies) / took, 1) if took > 0 else None,
        "database": "sqlite" if not args.database_url else "given",
    }
    print(
        f"{summary['deliveries']}/{wanted} deliveries; commit to receipt p50 {summary['p50_s']} s, "
        f"p99 {summary['p99_s']} s, most {summary['max_s']} s; {summary['per_second']} deliveries/s"
    )
    print("webhooks=" + json.dumps(summary))


if __name__ == "__main__":
    main()
