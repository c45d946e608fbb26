"""Which of the service's modules one play touches, role by role: the web role's request, the
worker's pass after it, the real-time role's fan-out to the streams that follow.

In one process, on a fresh SQLite file (or ``--database-url``): the service's Flask app (the web
role, through Flask's test client, rate limits on as deployed), the real-time role around it on
uvicorn in a thread (:func:`service.realtime.realtime_app`, as ``coins-realtime`` runs it) holding
the game's stream and each player's feed (on an app of its own, as in a process of its own), and a worker (:class:`service.worker.Worker`, as
``coins-worker`` wires it) whose passes this script runs on a thread of their own. Three players
(player keys) play one game; after a few warm-up plays (first calls import lazily), one play is
traced: a profile function on every thread records the module of every Python function called,
and each module of ``service`` counts for the role whose thread called it, from the play's request
until its event has reached the game's stream and the next player's ``your_turn`` their feed.

A play's request, from the view to the answer, should touch at most 35 modules of ``service``
(issue 34): ``view`` counts those reached inside Flask's ``dispatch_request``, ``web`` the whole
request, with the hooks every request runs before and after its view (ids, limits, headers, the
access log). The worker and the real-time role are counted apart::

    .venv/bin/python -m bench.trace_play [--database-url postgresql://...] [--modules]
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from flask import Flask
from werkzeug.test import TestResponse

HOST = "127.0.0.1"
WARM_UP_PLAYS = 6
WAIT_SECONDS = 10.0
POSTGRES_SCHEMA = "coins_trace_bench"  # made afresh for each run
GOAL = 35  # modules of service/ a play's request may touch


class Recorder:
    """The modules of ``service`` each thread's calls reach while recording is on; and, apart, those
    the web role's view reaches (Flask's ``dispatch_request``: the view, from its arguments to its
    answer, without the hooks every request runs before and after it)."""

    def __init__(self) -> None:
        self.recording = False
        self.seen: dict[str, set[str]] = defaultdict(set)
        self.first_calls: dict[tuple[str, str], str] = {}  # (thread, module): who called it first
        self.in_view: FrameType | None = None  # the web role's dispatch_request, while it runs
        self.view: set[str] = set()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if not self.recording:
            return
        if frame.f_code is Flask.dispatch_request.__code__ and threading.current_thread().name == "web":
            if event == "call":
                self.in_view = frame
            elif event == "return":
                self.in_view = None
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            if module == "service" or module.startswith("service."):
                thread = threading.current_thread().name
                if self.in_view is not None and thread == "web":
                    self.view.add(module)
                if module not in self.seen[thread]:
                    self.seen[thread].add(module)
                    self.first_calls[(thread, module)] = _caller(frame)


def _caller(frame: FrameType) -> str:
    """The nearest caller of ``frame`` in another module of ``service``: module.function."""
    module = frame.f_globals.get("__name__", "")
    caller = frame.f_back
    while caller is not None:
        name = caller.f_globals.get("__name__", "")
        if name != module and name.startswith("service"):
            return f"{name}.{caller.f_code.co_name}"
        caller = caller.f_back
    return "(outside service)"


class Stream:
    """An open Server-Sent Events stream, read on a thread of its own: the ``event:`` names seen."""

    def __init__(self, port: int, path: str, key: str | None = None) -> None:
        self.names: list[str] = []
        self.connection = http.client.HTTPConnection(HOST, port, timeout=WAIT_SECONDS * 3)
        headers = {"Accept": "text/event-stream", **({"Authorization": f"Bearer {key}"} if key else {})}
        self.connection.request("GET", path, headers=headers)
        self._socket = self.connection.sock  # kept: http.client lets go of it when the answer may close
        self.response = self.connection.getresponse()
        assert self.response.status == 200, (path, self.response.status, self.response.read())
        threading.Thread(target=self._read, name="bench-stream", daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("event:"):
                    self.names.append(line.split(":", 1)[1].strip())
        except (OSError, ValueError, AttributeError):  # closed by the bench
            return

    def wait_for(self, name: str, count: int) -> None:
        """Until the stream has carried ``count`` events named ``name``."""
        deadline = time.monotonic() + WAIT_SECONDS
        while self.names.count(name) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {name} #{count} on the stream: {self.names[-5:]}")
            time.sleep(0.005)

    def close(self) -> None:
        # Shut the socket down first: the reader thread, blocked reading a line, holds the response's
        # lock, which a plain close waits for until the next heartbeat (15 s a stream).
        with suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def _body(response: TestResponse) -> Any:
    """The JSON body of an answer the traced play reads."""
    body = response.json
    assert body is not None, f"{response.request.method} {response.request.path} answered without a JSON body"
    return body


def trace(database_url: str) -> dict[str, dict[str, str]]:
    """The modules of ``service`` the traced play touched, by role, each with its first caller."""
    recorder = Recorder()
    threading.setprofile(recorder)  # every thread started from here on: uvicorn's, the hub's, the channels'
    sys.setprofile(recorder)  # and this one: the web role's requests

    from service import create_app
    from service.config import Settings
    from service.worker import worker_for

    settings = Settings(database_url=database_url, log_level="WARNING", bot_pace_ms=0, trick_pause_ms=0)
    app = create_app(settings)
    client = app.test_client()
    before = set(threading.enumerate())
    worker = worker_for(settings)
    for thread in set(threading.enumerate()) - before:
        thread.name = "worker"  # its channel's listener: a worker process's own thread
    with _realtime(create_app(settings), settings) as port:  # a process of its own, as deployed
        keys = [_body(client.post("/v1/players", json={"name": name}))["key"] for name in ("Ana", "Bo", "Cy")]
        heads = [{"Authorization": f"Bearer {key}"} for key in keys]
        body = {"target_score": 50, "seats": [{"player": "me"}, None, None], "first_dealer": 0}
        game_id = _body(client.post("/v1/games", json=body, headers=heads[0]))["id"]
        for seat in (1, 2):
            client.post(f"/v1/games/{game_id}/players", json={"player": "me", "seat": seat}, headers=heads[seat])
        client.post(f"/v1/games/{game_id}/hands", headers=heads[0])
        _pass(worker)
        game_stream = Stream(port, f"/v1/games/{game_id}/events")
        feeds = [Stream(port, "/v1/players/me/events", key) for key in keys]
        try:
            for number in range(1, WARM_UP_PLAYS + 2):
                traced = number == WARM_UP_PLAYS + 1
                state = _body(client.get(f"/v1/games/{game_id}"))
                seat = state["turn"]
                card = _body(client.get(f"/v1/games/{game_id}/hand", headers=heads[seat]))["cards"][0]
                turns_before = [feed.names.count("your_turn") for feed in feeds]
                recorder.recording = traced
                threading.current_thread().name = "web"
                answer = client.post(f"/v1/games/{game_id}/plays", json={"card": card}, headers=heads[seat])
                threading.current_thread().name = "bench"
                assert answer.status_code == 201, answer.json
                game_stream.wait_for("card_played", number)
                _pass(worker)
                after = _body(client.get(f"/v1/games/{game_id}"))
                if after["status"] == "playing":
                    feeds[after["turn"]].wait_for("your_turn", turns_before[after["turn"]] + 1)
                recorder.recording = False
        finally:
            for stream in (game_stream, *feeds):
                stream.close()
    sys.setprofile(None)
    threading.setprofile(None)  # type: ignore[arg-type,unused-ignore]
    return _by_role(recorder)


def _pass(worker: Any) -> None:
    """One worker pass on a thread named ``worker`` (what ``coins-worker`` runs when woken)."""
    thread = threading.Thread(target=lambda: worker.run_due(datetime.now(UTC)), name="worker")
    thread.start()
    thread.join(WAIT_SECONDS)


def _by_role(recorder: Recorder) -> dict[str, dict[str, str]]:
    """Each role's modules, each with the first caller it had in that role."""
    roles: dict[str, dict[str, str]] = {"web": {}, "worker": {}, "realtime": {}}
    for (thread, module), caller in sorted(recorder.first_calls.items()):
        if thread != "bench":  # this script's own reads between the steps
            roles[thread if thread in ("web", "worker") else "realtime"].setdefault(module, caller)
    roles["view"] = {module: roles["web"][module] for module in sorted(recorder.view)}
    return roles


@contextmanager
def _realtime(app: Any, settings: Any) -> Iterator[int]:
    """The real-time role around ``app`` (not the web role's) on uvicorn, on a free port, until the block ends."""
    import socket

    import uvicorn

    from service.realtime import realtime_app

    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    asgi = realtime_app(app, settings, threads=4)
    config = uvicorn.Config(asgi, host=HOST, port=port, lifespan="on", log_config=None, access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="realtime", daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_SECONDS
    while not server.started:
        if time.monotonic() > deadline:
            raise TimeoutError("the real-time role did not start")
        time.sleep(0.02)
    try:
        yield port
    finally:
        asgi.hub.end_all()
        server.should_exit = True
        thread.join(WAIT_SECONDS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url", default="", help="PostgreSQL (a fresh schema in it); default: a fresh SQLite file"
    )
    parser.add_argument("--modules", action="store_true", help="list each role's modules")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        if args.database_url:
            from bench.http_load import postgres_schema_url

            url = postgres_schema_url(args.database_url, POSTGRES_SCHEMA)
        else:
            url = f"sqlite:///{Path(folder) / 'trace.sqlite3'}"
        roles = trace(url)
    for role, modules in roles.items():
        print(f"{role}: {len(modules)} modules of service/")
        if args.modules:
            print("".join(f"  {module:<45} <- {caller}\n" for module, caller in sorted(modules.items())), end="")
    figures = {role: len(modules) for role, modules in roles.items()}
    verdict = "PASS" if figures["view"] <= GOAL else "MISS"
    print(
        f"{verdict}: a play's request touches {figures['view']} modules from the view to the answer (goal <= {GOAL}),"
        f" {figures['web']} with the hooks every request runs around its view"
    )
    print("trace_play=" + json.dumps({**figures, "goal": GOAL}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
