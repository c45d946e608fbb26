"""Faults in every role: processes killed in turn while twelve players play rated quick play from their feeds.

The roles run apart, as deployed behind a proxy (here without one: the players send their feeds'
requests to a real-time process, the next one each time a stream breaks, as a proxy's servers, and
the rest to the web role): the web role (gunicorn, ``--workers`` workers), one worker role
(``coins-worker``) and ``--realtime`` real-time processes (``coins-realtime``, 2), on a fresh
database (PostgreSQL: a schema of its own; or SQLite). Every ``--every`` seconds (1.5) a process is
killed with ``SIGKILL``, in turn: one of gunicorn's workers (gunicorn starts another), the worker
role once it is up again, the real-time process up the longest while another is up (the worker and
the real-time processes this script starts again at once, as a process manager would; each counts
as back once it answers, the worker once it logs that it makes due moves).
``--restart-postgres`` also restarts PostgreSQL once, halfway (it is the machine's PostgreSQL: never
while anything else uses it).

Twelve players (``--players``) each follow their own feed (Server-Sent Events, resumed with
``Last-Event-ID``) and act on it alone: they queue for rated quick play (three players a table, no
bots, target ``--target``, 13: two hands at least), play the card the ``your_turn`` event's hand allows (the first), with an
``Idempotency-Key`` per turn that its retries repeat, and queue again on ``game_result``, for
``--seconds`` (then they leave the queue, their waiting tickets cancelled, and every game
under way is played to its end, bounded). Then, every role up:

- **lost events**: each player's feed as stored (read from the start, page by page) against what the
  player's stream delivered, and one ``match_found``, one ``game_started`` and one ``game_result``
  in the feed for every game the player sat in;
- **ratings exactly once**: each player's ``rated_games`` against the rated games they finished;
- **owed moves**: every server deal (the quick-play games' ``auto`` deals) against when it fell due
  (the hand's last play and ``TRICK_PAUSE_MS``; or, when the worker role was down then, its
  restart): how late, and how many more than 2 s late;
- **500s**: every answer with a status of 500 or more but the 502/503/504 a killed process causes.

    .venv/bin/python -m bench.role_faults [--db postgres|sqlite] [--seconds 90] [--every 1.5] [--restart-postgres]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.http_client import percentile
from bench.http_load import POSTGRES_URL, postgres_schema_url
from service.players.feeds import IN_PROGRESS
from tests.support.server import HOST, free_port

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_SCHEMA = "coins_faults_bench"
REQUEST_SECONDS = 10.0
START_SECONDS = 60.0
RETRY_SECONDS = 30.0  # one request with its retries
FINISH_SECONDS = 120.0  # the games under way when the faults stop, to their end
SETTLE_SECONDS = 30.0  # the worker catching up (results, feeds) after the last game
TRICK_PAUSE_MS = 300
LATE_SECONDS = 2.0
TRANSIENT = {502, 503, 504}  # what a killed process's clients may meet; retried


class Role:
    """One process of a role, started again with :meth:`restart` (the web role: gunicorn's master)."""

    def __init__(
        self, name: str, command: list[str], env: dict[str, str], log: Path, port: int | None, ready: str = ""
    ) -> None:
        """``port``: where it answers ``/healthz`` once up; without one, up once ``ready`` is in its log again."""
        self.name, self.command, self.env, self.log, self.port, self.ready = name, command, env, log, port, ready
        self.starts = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts: list[tuple[float, float]] = []  # (killed at, up again at), monotonic
        self.up = True

    def start(self) -> None:
        self.starts += 1
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, env=self.env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)

    def wait_up(self, seconds: float = START_SECONDS) -> float:
        """Until the process answers (its port's /healthz; the worker: its process is running): when."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.process is not None and self.process.poll() is None, f"{self.name} exited: see {self.log}"
            if self.port is not None and _status(self.port, "GET", "/healthz")[0] == 200:
                return time.monotonic()
            if self.port is None and self.log.read_text(errors="replace").count(self.ready) >= self.starts:
                return time.monotonic()
            time.sleep(0.05)
        raise TimeoutError(f"{self.name} did not start: see {self.log}")

    def kill_and_restart(self) -> None:
        """SIGKILL the process, start it again at once, and note when it answers again (on a thread)."""
        assert self.process is not None
        killed = time.monotonic()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(REQUEST_SECONDS)
        self.start()
        self.up = False

        def note_up() -> None:
            with contextlib.suppress(AssertionError, TimeoutError):
                self.restarts.append((killed, self.wait_up()))
                self.up = True

        threading.Thread(target=note_up, name=f"{self.name}-restart", daemon=True).start()

    def kill_a_child(self) -> bool:
        """SIGKILL one of the process's children (gunicorn's workers): whether there was one."""
        assert self.process is not None
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        if not children:
            return False
        os.kill(int(children[0]), signal.SIGKILL)
        return True

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(REQUEST_SECONDS * 3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _status(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """One request (no retry): its status and JSON body; 0 when the connection failed."""
    connection = http.client.HTTPConnection(HOST, port, timeout=REQUEST_SECONDS)
    try:
        payload = None if body is None else json.dumps(body)
        connection.request(method, path, body=payload, headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, None
    except (OSError, http.client.HTTPException):
        return 0, None
    finally:
        connection.close()


@dataclass
class Counts:
    statuses: Counter[int] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, status: int) -> None:
        with self.lock:
            self.statuses[status] += 1


class Player(threading.Thread):
    """A player that acts on its feed alone: queue, play each ``your_turn``, queue again on ``game_result``."""

    def __init__(self, number: int, web: int, realtimes: list[int], counts: Counts, args: argparse.Namespace) -> None:
        super().__init__(name=f"player-{number}", daemon=True)
        self.number, self.web, self.realtimes, self.counts, self.args = number, web, realtimes, counts, args
        self.key = ""
        self.id = ""
        self.received: dict[int, dict[str, Any]] = {}  # the feed's events by id, as the stream delivered them
        self.finished: set[str] = set()
        self.stop_queueing = threading.Event()
        self.queueing = threading.Lock()  # a ticket is asked for, or the queue left: one at a time
        self.ticket: str | None = None  # the last ticket it got
        self.stopped = threading.Event()
        self.reconnects = 0
        self.breaks: Counter[str] = Counter()  # how its streams ended, by exception
        self.queued: Counter[int | str] = Counter()  # its tickets' answers

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
        """A request with its retries (connection errors and 502/503/504, the same Idempotency-Key)."""
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        if method == "POST":
            headers["Idempotency-Key"] = key or str(uuid.uuid4())
        deadline = time.monotonic() + RETRY_SECONDS
        while True:
            status, answer = _status(self.web, method, path, body, headers)
            self.counts.add(status)
            if (status and status not in TRANSIENT) or time.monotonic() > deadline:
                return status, answer
            time.sleep(0.2)

    def run(self) -> None:
        status, answer = self.call("POST", "/v1/players", {"name": f"Faulty{self.number:02d}"})
        assert status == 201, (status, answer)
        self.key, self.id = answer["key"], answer["id"]
        last_id: int | None = None
        deadline = time.monotonic() + self.args.seconds + FINISH_SECONDS
        while not self.stopped.is_set() and time.monotonic() < deadline:
            last_id = self.follow(last_id, deadline)
            self.reconnects += 1
            time.sleep(0.2)

    def queue(self) -> None:
        with self.queueing:
            if self.stop_queueing.is_set():
                return
            body = {"rated": True, "bots_after": None, "target_score": self.args.target, "turn_timeout_seconds": 60}
            status, answer = self.call("POST", "/v1/queue", body)
            self.queued[status if status != 409 else f"409 {answer.get('code')}"] += 1
            if status == 201:
                self.ticket = answer["id"]

    def leave_queue(self) -> None:
        """Queue no more, and cancel the ticket still waiting: it would be matched once the run
        stops reading, into a game whose events nobody reads (204; 409 ``ticket_matched``: its game
        is played to its end like the others)."""
        with self.queueing:
            self.stop_queueing.set()
            ticket = self.ticket
        if ticket is not None:
            status, answer = self.call("DELETE", f"/v1/queue/{ticket}")
            assert status in (204, 409), (status, answer)

    def follow(self, last_id: int | None, deadline: float) -> int | None:
        """Read the feed's stream until it breaks: the last event id seen."""
        port = self.realtimes[self.reconnects % len(self.realtimes)]  # the next process, as a proxy would
        connection = http.client.HTTPConnection(HOST, port, timeout=REQUEST_SECONDS * 3)
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.key}"}
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        try:
            connection.request("GET", "/v1/players/me/events", headers=headers)
            response = connection.getresponse()
            self.counts.add(response.status)
            if response.status != 200:
                return last_id
            event_id, data = None, ""
            for raw in response:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("id:"):
                    event_id = int(line[3:].strip())
                elif line.startswith("data:"):
                    data += line[5:].strip()
                elif not line and data:
                    event = json.loads(data)
                    if event_id is not None:
                        last_id = event_id
                        self.received[event_id] = event
                    self.act(event)
                    event_id, data = None, ""
                if self.stopped.is_set() or time.monotonic() > deadline:
                    break
        except (OSError, http.client.HTTPException, ValueError) as error:
            self.breaks[type(error).__name__] += 1
        finally:
            connection.close()
        return last_id

    def act(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "player" and not self.queued:  # the feed is open: what follows reaches it
            self.queue()
        elif kind == "your_turn" and event.get("action") == "play" and event.get("hand"):
            card = event["hand"]["cards"][0]
            key = f"{event['game']}-{event['version']}-{self.id}"  # this turn's: its retries repeat it
            self.call("POST", f"/v1/games/{event['game']}/plays", {"card": card}, key=key)
        elif kind == "game_result" and event["game"] not in self.finished:
            self.finished.add(event["game"])
            self.queue()


def read_feed(port: int, key: str) -> list[dict[str, Any]]:
    """A player's whole feed as stored, page by page (long polls that do not wait)."""
    events: list[dict[str, Any]] = []
    after = 0
    for _ in range(1000):
        path = f"/v1/players/me/events?after={after}&wait=0"
        status, page = _status(port, "GET", path, headers={"Authorization": f"Bearer {key}"})
        assert status == 200, (status, page)
        new = [item for item in page["items"] if item.get("id") is not None and item["id"] > after]
        if not new:
            return events
        events.extend(new)
        after = new[-1]["id"]
    return events


def owed_deals(port: int, game_ids: set[str], worker: Role) -> list[float]:
    """How late each server deal was: after its due time (or the worker role's restart, if it was down then)."""
    lateness: list[float] = []
    offset = time.time() - time.monotonic()  # the restarts' monotonic times on the wall clock
    downs = [
        (datetime.fromtimestamp(a + offset, UTC), datetime.fromtimestamp(b + offset, UTC)) for a, b in worker.restarts
    ]
    for game_id in sorted(game_ids):
        status, page = _status(port, "GET", f"/v1/games/{game_id}/actions?limit=500")
        assert status == 200, (status, page)
        actions = page["items"]
        for before, deal in itertools.pairwise(actions):
            if deal["kind"] != "deal" or deal["cause"] != "auto":
                continue
            due = datetime.fromisoformat(before["created_at"]) + timedelta(milliseconds=TRICK_PAUSE_MS)
            for down, up in downs:
                if down <= due <= up:
                    due = up
            lateness.append((datetime.fromisoformat(deal["created_at"]) - due).total_seconds())
    return lateness


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        if args.db == "postgres":
            url = postgres_schema_url(args.postgres_url, POSTGRES_SCHEMA)
        else:
            url = f"sqlite:///{directory / 'coins.sqlite3'}"
        scripts = Path(sys.executable).parent
        web_port = free_port()
        base = {
            **{k: v for k, v in os.environ.items() if k not in ("PROMETHEUS_MULTIPROC_DIR", "PORT")},
            "DATABASE_URL": url,
            "LOG_LEVEL": "WARNING",
            "RATE_LIMITS": "off",
            "STREAMS_PER_ADDRESS": "0",
            "TRICK_PAUSE_MS": str(TRICK_PAUSE_MS),
            "WORKER_POLL_MS": "100",
        }
        web = Role(
            "web",
            [str(scripts / "gunicorn"), "-c", "gunicorn.conf.py", "wsgi:app"],
            {**base, "BIND": f"{HOST}:{web_port}", "WEB_CONCURRENCY": str(args.workers)},
            directory / "web.log",
            web_port,
        )
        worker = Role(
            "worker", [str(scripts / "coins-worker")], {**base, "LOG_LEVEL": "INFO"}, directory / "worker.log",
            None, ready="making due moves",
        )  # fmt: skip
        realtimes = []
        for number in range(args.realtime):
            port = free_port()
            env = {**base, "BIND": f"{HOST}:{port}"}
            realtimes.append(
                Role(
                    f"realtime-{number}",
                    [str(scripts / "coins-realtime")],
                    env,
                    directory / f"realtime-{number}.log",
                    port,
                )
            )
        roles = [web, worker, *realtimes]
        try:
            web.start()
            web.wait_up()  # it migrates the database first
            for role in (worker, *realtimes):
                role.start()
                role.wait_up()
            return play_under_faults(args, web, worker, realtimes)
        finally:
            for role in roles:
                role.stop()
            if args.keep_logs:
                for role in roles:
                    print(f"--- {role.name}:\n{role.log.read_text()[-3000:]}")


def play_under_faults(args: argparse.Namespace, web: Role, worker: Role, realtimes: list[Role]) -> dict[str, Any]:
    counts = Counts()
    ports = [role.port or 0 for role in realtimes]
    players = [Player(number, web.port or 0, ports, counts, args) for number in range(args.players)]
    for player in players:
        player.start()
    kills: Counter[str] = Counter()
    started = time.monotonic()
    restarted_postgres = False
    turn = 0
    while time.monotonic() - started < args.seconds:
        time.sleep(args.every)
        victim = ("web", "worker", "realtime")[turn % 3]
        turn += 1
        if victim == "web":
            kills["web worker"] += web.kill_a_child()
            continue
        up = [role for role in ([worker] if victim == "worker" else realtimes) if role.up]
        if victim == "realtime" and len(up) < 2:
            kills["realtime skipped: one left up"] += 1  # as a proxy's other server: never the last one
            continue
        if up:
            min(
                up, key=lambda role: role.restarts[-1][1] if role.restarts else 0.0
            ).kill_and_restart()  # the longest up
            kills[victim] += 1
        if args.restart_postgres and not restarted_postgres and time.monotonic() - started > args.seconds / 2:
            subprocess.run(
                ["pg_ctlcluster", "--skip-systemctl-redirect", *args.cluster.split("/"), "restart"], check=True
            )
            restarted_postgres = True
    for player in players:
        player.leave_queue()
    finish_by = time.monotonic() + FINISH_SECONDS
    while time.monotonic() < finish_by and not _all_done(players):
        time.sleep(0.5)
    time.sleep(2)  # the last results' events on their way
    for player in players:
        player.stopped.set()
    for player in players:
        player.join(REQUEST_SECONDS * 4)
    return check(players, web, worker, ports[0], counts, kills, restarted_postgres)


def _all_done(players: list[Player]) -> bool:
    """Whether no player sits in a game in progress (playing, or between two hands waiting for its deal)."""
    for player in players:
        if not player.id:  # not made yet: as a failed read, not done
            return False
        for in_progress in IN_PROGRESS:
            status, games = _status(player.web, "GET", f"/v1/players/{player.id}/games?status={in_progress}")
            if status != 200 or games["items"]:
                return False
    return True


def check(
    players: list[Player],
    web: Role,
    worker: Role,
    realtime_port: int,
    counts: Counts,
    kills: Counter[str],
    restarted_postgres: bool,
) -> dict[str, Any]:
    lost_on_streams = 0
    not_delivered: list[str] = []
    missing_in_feeds: list[str] = []
    duplicated = 0
    rating_mismatches = 0
    games: set[str] = set()
    settle_by = time.monotonic() + SETTLE_SECONDS
    for player in players:
        while True:
            stored = [event for event in read_feed(realtime_port, player.key) if event["type"] != "player"]
            _, mine = _status(web.port or 0, "GET", f"/v1/players/{player.id}/games?status=finished&limit=100")
            finished = [game["id"] for game in mine["items"]]
            by_type: dict[str, Counter[str]] = {}
            for event in stored:
                by_type.setdefault(event["type"], Counter())[event.get("game", "")] += 1
            complete = all(by_type.get("game_result", Counter())[game] == 1 for game in finished)
            if complete or time.monotonic() > settle_by:
                break
            time.sleep(0.5)
        games.update(finished)
        undelivered = [event for event in stored if event["id"] not in player.received]
        lost_on_streams += len(undelivered)
        last_received = max(player.received, default=0)
        not_delivered.extend(  # a gap: the stream went on past it; a tail: nothing came after it
            f"{player.number}:{event['id']}:{event['type']}:{'gap' if event['id'] < last_received else 'tail'}"
            for event in undelivered
        )
        for game in finished:
            for kind in ("match_found", "game_started", "game_result"):
                seen = by_type.get(kind, Counter())[game]
                if seen == 0:
                    missing_in_feeds.append(f"{player.number}:{game}:{kind}")
                duplicated += seen > 1
        _, profile = _status(web.port or 0, "GET", f"/v1/players/{player.id}")
        rating_mismatches += profile["rating"]["games"] != len(finished)
    lateness = owed_deals(web.port or 0, games, worker)
    errors = {status: n for status, n in counts.statuses.items() if status >= 500 and status not in TRANSIENT}
    return {
        "players": len(players),
        "games_finished": len(games),
        "kills": dict(kills),
        "restarted_postgres": restarted_postgres,
        "stream_reconnects": sum(player.reconnects for player in players),
        "events_not_delivered_by_streams": lost_on_streams,
        "not_delivered": not_delivered[:20],
        "queued": dict(sum((player.queued for player in players), Counter())),
        "events_missing_in_feeds": len(missing_in_feeds),
        "missing": missing_in_feeds[:20],
        "stream_breaks": dict(sum((player.breaks for player in players), Counter())),
        "events_duplicated_in_feeds": duplicated,
        "players_rated_games_mismatch": rating_mismatches,
        "server_deals": len(lateness),
        "deal_late_p50_s": round(percentile(lateness, 50), 3) if lateness else None,
        "deal_late_max_s": round(max(lateness), 3) if lateness else None,
        "deals_over_2s_late": sum(1 for late in lateness if late > LATE_SECONDS),
        "answers": dict(sorted(counts.statuses.items())),
        "errors_500": errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=90.0, help="how long faults strike while the players queue")
    parser.add_argument("--every", type=float, default=1.5, help="seconds between kills")
    parser.add_argument("--target", type=int, default=13, help="the games' target score")
    parser.add_argument("--workers", type=int, default=2, help="the web role's gunicorn workers")
    parser.add_argument(
        "--realtime", type=int, default=2, help="real-time processes (one is never killed while the other is down)"
    )
    parser.add_argument("--postgres-url", default=POSTGRES_URL, help="the PostgreSQL to play on (a fresh schema in it)")
    parser.add_argument("--restart-postgres", action="store_true", help="restart that PostgreSQL once (--cluster)")
    parser.add_argument(
        "--cluster", default="15/main", help="the cluster --restart-postgres restarts (pg_ctlcluster's version/name)"
    )
    parser.add_argument("--keep-logs", action="store_true", help="print the end of each role's log")
    args = parser.parse_args(argv)
    assert args.players % 3 == 0 and 0 < args.players <= 60, "a multiple of 3, at most 60"
    assert 0 < args.seconds <= 600 and 0.5 <= args.every <= 60
    summary = run(args)
    for key, value in summary.items():
        print(f"{key}: {value}")
    clean = (
        summary["events_not_delivered_by_streams"] == summary["events_missing_in_feeds"] == 0
        and summary["events_duplicated_in_feeds"] == summary["players_rated_games_mismatch"] == 0
        and summary["deals_over_2s_late"] == 0
        and not summary["errors_500"]
    )
    print("PASS" if clean else "MISS", "(nothing lost, ratings once, owed moves within 2 s, no 500)")
    print("role_faults=" + json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
