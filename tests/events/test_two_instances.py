"""Two instances of each role behind a real load balancer (HAProxy), on one PostgreSQL.

Each web instance is its own gunicorn master (``gunicorn -c gunicorn.conf.py wsgi:app``, two
workers), each real-time instance its own ``coins-realtime``, on free ports of 127.0.0.1; HAProxy,
run in the foreground with the shipped ``deploy/haproxy.cfg`` (each backend's server line repeated
for its two instances: ``tests/support/topology.py``), sends the event feeds to the real-time
instances and every other request to the web instances, round robin, one request per connection
to an instance (``http-server-close``), so consecutive requests alternate. A whole game is played
through the load balancer, so its writes alternate between the web instances (each instance's
``/metrics`` tells which one answered every request); event streams opened on each real-time
instance directly and through the load balancer must all see every event, in order, up to
``game_finished``: a change committed by a web instance reaches the streams only through
PostgreSQL's NOTIFY.

Skipped on SQLite (one host, no shared database) and when HAProxy is not installed, unless
``COINS_REQUIRE_HAPROXY=1`` (as in .ci/run), which makes a missing HAProxy a failure.
docs/scaling.md describes the configuration.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.events.test_streams import all_events, call, collect, gunicorn, new_game, play_to_the_end, realtime_process
from tests.support.sse import Event, EventStream
from tests.support.topology import behind_haproxy, haproxy_binary

pytestmark = pytest.mark.slow

REQUIRE_HAPROXY = os.environ.get("COINS_REQUIRE_HAPROXY") == "1"
STREAM_SECONDS = 120  # a stream's reader gives up after this long (and its socket after 30 s of silence)


def v1_requests(port: int) -> int:
    """How many /v1/ requests the instance on ``port`` has answered (all its workers: /metrics)."""
    with urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return int(
        sum(
            sample.value
            for family in text_string_to_metric_families(text)
            if family.name == "coins_http_requests"
            for sample in family.samples
            if sample.name == "coins_http_requests_total" and sample.labels["route"].startswith("/v1/")
        )
    )


class Instances:
    """Requests through the load balancer, each attributed to the instance that answered it: the
    one whose count of /v1/ requests went up by one (the counter moves before the answer leaves);
    and requests sent to one instance directly."""

    def __init__(self, balancer: int, instances: list[int]) -> None:
        self.balancer = balancer
        self.instances = instances
        self.counts = [v1_requests(port) for port in instances]
        self.served: list[int] = []  # the index of the instance that answered each request

    def through(self, send: Callable[[int], Any]) -> Any:
        """``send(port)`` to the load balancer's port; note which instance answered."""
        result = send(self.balancer)
        self.served.append(self._answered())
        return result

    def direct(self, index: int, send: Callable[[int], Any]) -> Any:
        """``send(port)`` to instance ``index``'s own port."""
        result = send(self.instances[index])
        assert self._answered() == index
        return result

    def _answered(self) -> int:
        counts = [v1_requests(port) for port in self.instances]
        moved = [index for index, (now, before) in enumerate(zip(counts, self.counts, strict=True)) if now != before]
        assert len(moved) == 1 and counts[moved[0]] == self.counts[moved[0]] + 1, (self.counts, counts)
        self.counts = counts
        return moved[0]

    def act(self, method: str, path: str, body: Any, token: str | None) -> Any:
        return self.through(lambda port: call(port, method, path, body, token))


def test_two_instances_behind_haproxy_share_one_game_and_every_stream_sees_every_event(
    database_url: str, tmp_path: Path
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL (TEST_DATABASE_URL): two instances share one database")
    binary = haproxy_binary()
    if binary is None:
        message = "HAProxy is not installed (apt-get install haproxy)"
        if REQUIRE_HAPROXY:
            pytest.fail(f"{message}, and COINS_REQUIRE_HAPROXY=1")
        pytest.skip(message)

    with ExitStack() as running:
        web = [
            running.enter_context(gunicorn(database_url, tmp_path, GUNICORN_CMD_ARGS="--no-control-socket")).port
            for _ in range(2)
        ]
        feeds = [running.enter_context(realtime_process(database_url, tmp_path)).port for _ in range(2)]
        balancer = running.enter_context(behind_haproxy(binary, web, feeds, tmp_path))
        lb = Instances(balancer.port, web)
        lb_feeds = Instances(balancer.port, feeds)

        game_id, tokens = lb.through(lambda port: new_game(port, target_score=10, seed="two-instances"))
        streams = running.enter_context(ExitStack())
        opened: dict[str, EventStream] = {
            "instance0": lb_feeds.direct(0, lambda port: EventStream(port, game_id, timeout=30)),
            "instance1": lb_feeds.direct(1, lambda port: EventStream(port, game_id, timeout=30)),
            "balanced": lb_feeds.through(lambda port: EventStream(port, game_id, timeout=30)),
            "balanced-seat2": lb_feeds.through(lambda port: EventStream(port, game_id, token=tokens[2], timeout=30)),
        }
        got: dict[str, list[Event]] = {name: [] for name in opened}
        readers = []
        for name, stream in opened.items():
            streams.enter_context(stream)
            assert stream.status == 200, (name, stream.body)
            readers.append(collect(stream, got[name], STREAM_SECONDS))
        assert set(lb_feeds.served) == {0, 1}, "the two streams through the load balancer went to one instance"

        play_to_the_end(lb.act, game_id, tokens)
        for reader in readers:
            reader.join(STREAM_SECONDS)
        assert not any(reader.is_alive() for reader in readers), "a stream did not end with the game"

        public = lb_feeds.direct(0, lambda port: all_events(port, game_id))
        assert public == lb_feeds.direct(1, lambda port: all_events(port, game_id))
        assert public == lb_feeds.through(lambda port: all_events(port, game_id))
        assert public == lb.direct(0, lambda port: all_events(port, game_id))  # the web role answers a page too
        private = lb_feeds.direct(1, lambda port: all_events(port, game_id, tokens[2]))

    # Consecutive requests through the load balancer alternated between the instances, so both
    # served (and wrote) the game.
    served = lb.served
    assert len(served) > 50 and all(a != b for a, b in itertools.pairwise(served)), served
    count = Counter(served)
    assert abs(count[0] - count[1]) <= 1, count

    assert public[-1]["type"] == "game_finished"
    for name, events in got.items():
        assert events[0].type == "game" and events[-1].type == "game_finished", name
        expected = private if name == "balanced-seat2" else public
        assert [event.data for event in events[1:]] == expected, name
        assert [event.id for event in events] == [event.data["id"] for event in events], name
    assert {event.data["seat"] for event in got["balanced-seat2"] if event.type == "hand"} == {2}
