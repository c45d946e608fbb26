"""Streams can never take the capacity ordinary requests need: twelve addresses hold 2,000 streams.

The roles as they run apart (docker-compose.yml's commands): the web role (gunicorn.conf.py as
shipped) and the real-time role (coins-realtime), both with TRUSTED_PROXY_HOPS=1, behind HAProxy
running the shipped ``deploy/haproxy.cfg``, on SQLite on 127.0.0.1. Twelve client addresses
(127.0.0.10 to .21) open 2,000 streams of a game's feed between them over 5 s and hold them for
30 s, each address within every per-address limit (167 streams each: the proxy's 200 connections,
the real-time role's 200 streams); ``tests/support/stream_flood.py``, in a process of its own.
Meanwhile 127.0.0.1 plays games against two bots through the proxy, with an event stream and long
polls open: every one of its requests must succeed, each within 1 s. Before issue 34 the streams
were held by the web role's threads, behind one backend's allowance: the flood took it all, and
every other request waited 5 s in the proxy's queue for a 503.

Runs alone and only with COINS_ATTACK_TEST=1 (``.ci/run`` does, in its attack step); a missing
HAProxy skips it unless COINS_REQUIRE_HAPROXY=1.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.deploy.test_slow_clients import play_under_attack
from tests.support.topology import behind_haproxy, haproxy_binary, realtime, service, timed

pytestmark = [
    pytest.mark.attack,
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("COINS_ATTACK_TEST") != "1", reason="set COINS_ATTACK_TEST=1 to run"),
]

ADDRESSES = 12
STREAMS = 2000
FLOOD_SECONDS = 30.0
RAMP_SECONDS = 5.0


def test_another_address_plays_on_while_twelve_hold_2000_streams(
    tmp_path: Path, record_property: Callable[[str, object], None], capsys: pytest.CaptureFixture[str]
) -> None:
    binary = haproxy_binary()
    if binary is None:
        if os.environ.get("COINS_REQUIRE_HAPROXY") == "1":
            pytest.fail("HAProxy is not installed (apt-get install haproxy), and COINS_REQUIRE_HAPROXY=1")
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    database_url = f"sqlite:///{tmp_path / 'coins.sqlite3'}"
    with (
        service(database_url, tmp_path, TRUSTED_PROXY_HOPS="1") as web,
        realtime(database_url, tmp_path, TRUSTED_PROXY_HOPS="1") as feeds,
        behind_haproxy(binary, [web.port], [feeds.port], tmp_path) as proxy,
    ):
        watched = timed(proxy.port, "POST", "/v1/games", {"seats": [{"name": "Ana"}, None, None]}).body["id"]
        command = [sys.executable, "-m", "tests.support.stream_flood", "--port", str(proxy.port), "--game", watched]
        command += ["--addresses", str(ADDRESSES), "--streams", str(STREAMS)]
        command += ["--seconds", str(FLOOD_SECONDS), "--ramp-seconds", str(RAMP_SECONDS)]
        met = play_under_attack(proxy.port, command, RAMP_SECONDS + 2, FLOOD_SECONDS)  # every stream open first
    tally = met.tally
    summary = {"games": met.games, "requests": len(met.act.answers), "slowest": met.act.slowest(), "flood": tally}
    record_property("stream_flood", json.dumps(summary))
    with capsys.disabled():
        print(f"\nstream flood through the proxy: {json.dumps(summary)}")
    assert met.still_attacking, "the games outlasted the flood"
    assert tally["opened"] == STREAMS and tally["held_at_end"] == STREAMS, tally  # every stream held throughout
