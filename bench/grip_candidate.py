"""The GRIP candidate, for ``bench/realtime.py --design pushpin``: Pushpin holds the streams.

What issue 34 asked to measure first: a GRIP proxy (Pushpin, Debian's package) in front, the
service answering each stream with the hold and publishing after commit. This is that design as far
as the benchmark exercises it (public game streams and players' feeds, from the start), built on
the service's own parts, not a second implementation of the contract:

- the **origin** (``origin()``, under gunicorn): opens the reader with the service's
  :class:`~service.events.EventFeed` (the first event, rendered by the API's schemas) and answers
  it with ``Grip-Hold: stream``, the feed's channel and a keep-alive comment every 15 s;
- the **publisher** (``python -m bench.grip_candidate --publish``): hears the service's channel
  (PostgreSQL NOTIFY, which names the changed feed; SQLite's channel names none, so the candidate
  runs on PostgreSQL only, as bench/realtime.py says), reads each changed feed's new events with
  the same :class:`~service.events.EventFeed` and publishes their frames to Pushpin's HTTP
  publishing endpoint, one request per round;
- **Pushpin** itself, with ``message_rate`` and ``message_hwm`` raised past what the benchmark sends
  (its defaults, 2,500 messages a second, would cap the fan-out below the goal).

What it leaves out, and why the service did not take this path, is in docs/benchmarks.md ("Live
events"): seats' private events, resuming, replaced keys, long polls and per-address shares all
need more of GRIP (channels per seat and per key, ``prev-id`` recovery, stats-socket bookkeeping).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from service import create_app
from service.api.resources.events.routes import FEED_EXTENSION, RETRY_MILLISECONDS
from service.config import Settings
from service.events import EventFeed, channel_for
from tests.support.server import HOST, LiveServer, free_port, serve
from tests.support.topology import ROOT

GAME_FEED = re.compile(r"/v1/games/([0-9a-z]{26})/events")
KEEP_ALIVE = ":keep-alive\\n\\n; format=cstring; timeout=15"


def channel_name(key: str) -> str:
    return key.replace(":", "-")


def origin() -> Callable[..., Any]:
    """The GRIP origin: a WSGI app whose stream answers are holds (``gunicorn 'bench.grip_candidate:origin()'``)."""
    app = create_app(Settings.from_env())
    feed: EventFeed = app.extensions[FEED_EXTENSION]

    def answer(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        path = environ.get("PATH_INFO", "")
        token = environ.get("HTTP_AUTHORIZATION", "").partition(" ")[2] or None
        if path == "/readyz":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ready"]
        game = GAME_FEED.fullmatch(path)
        if game is not None:
            opening = feed.open_game(game.group(1), token, after=None)
        elif path == "/v1/players/me/events":
            opening = feed.open_player(token, after=None)
        else:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not a feed"]
        body = f"retry: {RETRY_MILLISECONDS}\n\n" + "".join(item.frame() for item in opening.items)
        start_response(
            "200 OK",
            [
                ("Content-Type", "text/event-stream"),
                ("Grip-Hold", "stream"),
                ("Grip-Channel", channel_name(opening.feed_id)),
                ("Grip-Keep-Alive", KEEP_ALIVE),
            ],
        )
        return [body.encode()]

    return answer


def publish(database_url: str, endpoint: str) -> None:
    """Hear the channel; publish each changed feed's new public events to Pushpin."""
    app = create_app(Settings(database_url=database_url, rate_limits="off"))
    feed: EventFeed = app.extensions[FEED_EXTENSION]
    last: dict[str, int] = {}
    pending: set[str] = set()
    wake = threading.Condition()

    def notice(key: str | None) -> None:
        if key is not None:
            with wake:
                pending.add(key)
                wake.notify()

    channel = channel_for(app.extensions["coins.db"])
    channel.listen(notice)
    while True:
        with wake:
            while not pending:
                wake.wait(1.0)
            keys = set(pending)
            pending.clear()
        read = feed.read({key: last.get(key, 0) for key in keys})
        items = []
        for key, new in read.items():
            public = [item for item in new if item.seat is None]
            if new:
                last[key] = new[-1].id
            if public:
                content = "".join(item.frame() for item in public)
                items.append({"channel": channel_name(key), "formats": {"http-stream": {"content": content}}})
        if items:
            request = urllib.request.Request(
                endpoint, data=json.dumps({"items": items}).encode(), headers={"Content-Type": "application/json"}
            )
            urllib.request.urlopen(request, timeout=10).read()


@contextmanager
def pushpin_holder(
    url: str, directory: Path, role_env: Callable[..., dict[str, str]]
) -> Iterator[tuple[int, list[LiveServer]]]:
    """Pushpin in front of the origin, and the publisher: (Pushpin's port, their processes)."""
    venv = Path(sys.executable).parent
    with ExitStack() as stack:
        origin_port = free_port()
        origin_server = stack.enter_context(
            serve(
                [str(venv / "gunicorn"), "-c", "gunicorn.conf.py", "bench.grip_candidate:origin()"],
                port=origin_port,
                env=role_env(url, origin_port, WEB_CONCURRENCY="2"),
                cwd=ROOT,
                log=directory / "origin.log",
                start_seconds=120,
            )
        )
        http_port, publish_port = free_port(), free_port()
        ports = [free_port() for _ in range(3)]
        rundir = directory / "pushpin"
        rundir.mkdir()
        (rundir / "routes").write_text(f"* {HOST}:{origin_port}\n")
        (rundir / "pushpin.conf").write_text(
            "\n".join(
                [
                    "[global]",
                    "include={libdir}/internal.conf",
                    f"rundir={rundir}",
                    f"ipc_prefix=coins-bench-{os.getpid()}-",
                    "port_offset=0",
                    "[runner]",
                    "services=condure,zurl,pushpin-proxy,pushpin-handler",
                    f"http_port={HOST}:{http_port}",
                    f"logdir={rundir}",
                    "log_level=2",
                    "client_buffer_size=8192",
                    "client_maxconn=50000",
                    "condure_bin=condure",
                    "zurl_bin=zurl",
                    "[proxy]",
                    "routesfile=routes",
                    "zurl_out_specs=ipc://{rundir}/{ipc_prefix}zurl-in",
                    "zurl_out_stream_specs=ipc://{rundir}/{ipc_prefix}zurl-in-stream",
                    "zurl_in_specs=ipc://{rundir}/{ipc_prefix}zurl-out",
                    "[handler]",
                    f"push_in_spec=tcp://{HOST}:{ports[0]}",
                    f"push_in_sub_specs=tcp://{HOST}:{ports[1]}",
                    f"push_in_http_addr={HOST}",
                    f"push_in_http_port={publish_port}",
                    "stats_spec=ipc://{rundir}/{ipc_prefix}stats",
                    f"command_spec=tcp://{HOST}:{ports[2]}",
                    "message_rate=1000000",
                    "message_hwm=1000000",
                    "",
                ]
            )
        )
        pushpin = stack.enter_context(
            serve(
                ["pushpin", "--config", str(rundir / "pushpin.conf")],
                port=http_port,
                env=dict(os.environ),
                cwd=rundir,
                log=directory / "pushpin.log",
                start_seconds=60,
            )
        )
        publisher = subprocess.Popen(
            [sys.executable, "-m", "bench.grip_candidate", "--publish", url, f"http://{HOST}:{publish_port}/publish/"],
            cwd=ROOT,
            env=role_env(url, 0),
            stdout=(directory / "publisher.log").open("wb"),
            stderr=subprocess.STDOUT,
        )

        def stop_publisher() -> None:
            publisher.terminate()
            publisher.wait(10)

        stack.callback(stop_publisher)
        yield http_port, [origin_server, pushpin, LiveServer(["publisher"], 0, publisher, directory / "publisher.log")]


def main() -> None:
    parser = argparse.ArgumentParser(description="The GRIP candidate's publisher (see bench/realtime.py).")
    parser.add_argument("--publish", nargs=2, metavar=("DATABASE_URL", "ENDPOINT"), required=True)
    args = parser.parse_args()
    publish(*args.publish)


if __name__ == "__main__":
    main()
