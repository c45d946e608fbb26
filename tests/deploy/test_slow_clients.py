"""The recommended topology under a slow-connection attack: one address cannot cost another its game.

The web role (gunicorn.conf.py as shipped) and the real-time role (coins-realtime), both with
TRUSTED_PROXY_HOPS=1, behind HAProxy running the shipped ``deploy/haproxy.cfg``, on 127.0.0.1. At least 5,000 sockets bound to 127.0.0.2 each send a header
line every 3 s for 30 s and never finish their request (``tests/support/slow_clients.py``, in a
process of its own; a socket the proxy closes is opened again at its next turn). Meanwhile
127.0.0.1 plays games against two bots through the proxy, with an event stream and long polls
open: every one of its requests must succeed, each within 1 s (the topology's promise, not a
benchmark). The attack's tally (how many of its connections the proxy refused at once, dropped
later, held) is printed and kept in the JUnit report.

Runs alone and only with COINS_ATTACK_TEST=1 (``.ci/run`` does, in a step of its own: it takes the
machine's loopback for half a minute); a missing HAProxy skips it unless COINS_REQUIRE_HAPROXY=1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import HOST
from tests.support.sse import Event, EventStream
from tests.support.topology import ROOT, Answer, behind_haproxy, haproxy_binary, realtime, service, timed

pytestmark = [
    pytest.mark.attack,
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("COINS_ATTACK_TEST") != "1", reason="set COINS_ATTACK_TEST=1 to run"),
]

CONNECTIONS = 5000
ATTACK_SECONDS = 30.0
RAMP_SECONDS = 3.0  # the attack opens its connections over this long before the games start
BOUND_SECONDS = 1.0  # each of the victim's requests
MAX_GAMES = 25  # the victim's games, one after another while the attack lasts
MAX_READS = 3000  # of one game's state


class Victim:
    """127.0.0.1's requests through the proxy, each checked: a 2xx answer within BOUND_SECONDS."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.answers: list[tuple[str, Answer]] = []
        self.lock = threading.Lock()

    def __call__(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        answer = timed(self.port, method, path, body, token, timeout=10)
        with self.lock:
            self.answers.append((f"{method} {path.split('?')[0]}", answer))
        assert 200 <= answer.status < 300, (method, path, answer)
        assert answer.seconds < BOUND_SECONDS, (method, path, answer)
        return answer.body

    def slowest(self) -> tuple[str, float]:
        name, answer = max(self.answers, key=lambda item: item[1].seconds)
        return name, answer.seconds


def long_poll_after_play(act: Victim, game_id: str, after: int, play: Callable[[], None]) -> None:
    """A long poll waiting on the game (after its last event) answers within the bound of the play that wakes it."""
    got: list[Any] = []
    path = f"/v1/games/{game_id}/events?after={after}&wait=20"
    waiting = threading.Thread(target=lambda: got.append(timed(act.port, "GET", path, timeout=25)), daemon=True)
    waiting.start()
    time.sleep(0.3)  # the poll is waiting when the play comes
    played = time.monotonic()
    play()
    waiting.join(25)
    [answer] = got
    assert answer.status == 200 and answer.body["items"], answer
    assert time.monotonic() - played < BOUND_SECONDS + 0.3, answer  # the play's own time, then the poll's answer


def play_one_game(act: Victim, number: int) -> list[Event]:
    """A game of a player (seat 0) and two bots, to its end, with a stream open and one long poll; its events."""
    seats = [{"name": "Ana"}, {"bot": "basic"}, {"bot": "random"}]
    created = act("POST", "/v1/games", {"seats": seats, "target_score": 2, "seed": f"slow-clients-{number}"})
    game_id, [token] = created["id"], [credential["token"] for credential in created["credentials"]]
    events: list[Event] = []
    opened = time.monotonic()
    with EventStream(act.port, game_id, token=token, timeout=30, host=HOST) as stream:
        assert stream.status == 200
        reader = threading.Thread(target=lambda: events.extend(stream.events()), daemon=True)
        reader.start()
        polled = False
        for _ in range(MAX_READS):
            state = act("GET", f"/v1/games/{game_id}", None, token)
            if state["status"] == "finished":
                break
            if state["turn"] != 0:
                time.sleep(0.05)  # the bots move on the server
                continue
            if state["status"] == "waiting_for_deal":
                act("POST", f"/v1/games/{game_id}/hands", None, token)
                continue
            card = act("GET", f"/v1/games/{game_id}/hand", None, token)["cards"][0]
            if polled:
                act("POST", f"/v1/games/{game_id}/plays", {"card": card}, token)
                continue
            last = act("GET", f"/v1/games/{game_id}/events?after=0", None, token)["last_id"]
            long_poll_after_play(
                act, game_id, last, lambda card=card: act("POST", f"/v1/games/{game_id}/plays", {"card": card}, token)
            )
            polled = True
        else:
            raise AssertionError(f"game {game_id} did not finish")
        reader.join(30)
    assert polled and events, game_id
    assert events[0].type == "game" and events[-1].type == "game_finished", (game_id, events[-1])
    assert time.monotonic() - opened < 60
    return events


@dataclass
class UnderAttack:
    """What the victim met while the attack ran: its games and requests, whether the attack was still
    running when the games were over, and the attack's tally (its last line of output, as JSON)."""

    games: int
    act: Victim
    still_attacking: bool
    tally: dict[str, Any]


def play_under_attack(port: int, command: list[str], ramp_seconds: float, attack_seconds: float) -> UnderAttack:
    """Start the attack (``command``, a process of its own), let it ramp up, then play games through
    ``port`` (at least one, at most MAX_GAMES) until shortly before it ends; wait for its tally."""
    attacker = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(ramp_seconds)
        act = Victim(port)
        ends = time.monotonic() + attack_seconds - ramp_seconds - 1
        games = 0
        while games < MAX_GAMES and (games == 0 or time.monotonic() < ends):
            play_one_game(act, games)
            games += 1
        still_attacking = attacker.poll() is None
        out, _ = attacker.communicate(timeout=attack_seconds + 60)
    finally:
        if attacker.poll() is None:
            attacker.kill()
            attacker.wait(10)
    assert attacker.returncode == 0
    return UnderAttack(games, act, still_attacking, json.loads(out.strip().splitlines()[-1]))


def test_one_address_plays_on_while_another_holds_5000_slow_connections(
    database_url: str,
    tmp_path: Path,
    record_property: Callable[[str, object], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    binary = haproxy_binary()
    if binary is None:
        if os.environ.get("COINS_REQUIRE_HAPROXY") == "1":
            pytest.fail("HAProxy is not installed (apt-get install haproxy), and COINS_REQUIRE_HAPROXY=1")
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")

    with (
        service(database_url, tmp_path, TRUSTED_PROXY_HOPS="1") as app,
        realtime(database_url, tmp_path, TRUSTED_PROXY_HOPS="1") as feeds,
        behind_haproxy(binary, [app.port], [feeds.port], tmp_path, web_maxconn=2000) as proxy,
    ):
        command = [sys.executable, "-m", "tests.support.slow_clients", "--port", str(proxy.port)]
        command += ["--source", "127.0.0.2", "--connections", str(CONNECTIONS)]
        command += ["--seconds", str(ATTACK_SECONDS), "--ramp-seconds", str(RAMP_SECONDS), "--interval", "3"]
        met = play_under_attack(proxy.port, command, RAMP_SECONDS, ATTACK_SECONDS)
    tally = met.tally
    summary = {"games": met.games, "requests": len(met.act.answers), "slowest": met.act.slowest(), "attack": tally}
    record_property("slow_clients", json.dumps(summary))
    with capsys.disabled():
        print(f"\nslow clients through the proxy: {json.dumps(summary)}")
    assert met.still_attacking, "the games outlasted the attack"
    assert tally["attempts"] >= CONNECTIONS and tally["failed"] == 0, tally
    assert tally["refused"] > 0, tally  # the proxy refused the address's connections over its limit
