"""Faults with nothing lost: gunicorn workers killed, PostgreSQL restarted, while clients play and retry.

Several clients play their own seeded games on a real server (the Dockerfile's command), every
POST with an ``Idempotency-Key`` that its retries repeat, while the test SIGKILLs worker processes
(gunicorn replaces them) or restarts PostgreSQL. Afterwards every game's record replays through the
engine to exactly the state the game shows, holds every action a client was told succeeded exactly
once and nothing else, and each client's own model of its game (the engine, fed the actions the
client knows applied) is that game.

It kills processes and restarts the PostgreSQL named by TEST_DATABASE_URL, so it runs only when
asked (COINS_FAULT_TEST=1) and alone: .ci/run gives it serial steps of its own (one on PostgreSQL,
one on SQLite). It prints what the clients met: connection errors, 503s, retries, replayed answers.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.engine import FirstDealerReason, Game, GameSetup, Status, parse_card
from service.verify import verify
from tests.support.processes import gunicorn_workers

from .conftest import Server, running_server
from .test_postgres_outage import pg_ctlcluster

pytestmark = [
    pytest.mark.faults,
    pytest.mark.skipif(
        os.environ.get("COINS_FAULT_TEST") != "1",
        reason="kills server processes and restarts PostgreSQL: set COINS_FAULT_TEST=1, and run it alone",
    ),
]

WORKERS = 3
CLIENTS = 6
MIN_GAMES = 2  # per client; it starts new ones while faults strike, up to
MAX_GAMES = 40
TARGET_SCORE = 6  # a game of a hand or two: about 40 to 90 actions
MAX_ACTIONS = 200  # per game, a bound on a client's loop
LOAD_SECONDS = 90  # every client done within this, faults included
REQUEST_SECONDS = 10  # one HTTP request
RETRY_SECONDS = 30  # one POST with all its retries
MAX_ATTEMPTS = 100  # one POST's tries
BACKOFF_SECONDS = (0.05, 1.0)  # first and longest pause between tries, unless Retry-After says more
RETRY_AFTER_CAP = 3.0
KILLS = 12
KILL_EVERY_SECONDS = 0.5  # after the replacement of the last one is up
RESPAWN_SECONDS = 30  # gunicorn has its workers back
RESTARTS = 2
RESTART_EVERY_SECONDS = 2.0
NAMES = ("Ana", "Bo", "Cy")  # each followed by the game's seed: a client finds its games in the lobby by them


@dataclass
class Tally:
    """What the clients met on the way, all threads together."""

    counts: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1


class Abandoned(Exception):
    """A POST whose outcome the client could not learn within its retries."""


class KeyLeftInUse(Exception):
    """A POST whose key stays ``idempotency_key_in_use`` although no try of it can still be running."""


# A request and the response kept for its key commit together (service.store.idempotency): a try
# that dies with its worker, or with PostgreSQL, leaves nothing applied and its key free, so its
# retry runs afresh; a try that committed is replayed. A key may be in use only while a try runs
# (or, on PostgreSQL, until the server has seen a killed worker's connection close): longer than
# KEY_IN_USE_SECONDS is a failure, as is any answer but the action applied exactly once.
KEY_IN_USE_SECONDS = 5.0


@dataclass(frozen=True)
class Action:
    """A deal or a play: its place in the game's log, who, and what."""

    seq: int
    kind: str  # "deal" or "play"
    seat: int
    card: str | None


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    """One request on a new connection: (status, headers, JSON body); connection errors raise OSError."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_SECONDS)
    sent = {"Accept": "application/json", **(headers or {})}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=payload, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        return response.status, response.headers, json.loads(raw) if raw else None
    finally:
        connection.close()


def retried(port: int, method: str, path: str, body: Any, headers: dict[str, str], tally: Tally) -> tuple[int, Any]:
    """A request retried as it is on a lost connection, a 5xx, a 429 or ``idempotency_key_in_use``,
    honouring Retry-After: bounded in tries and in time."""
    deadline = time.monotonic() + RETRY_SECONDS
    pause = BACKOFF_SECONDS[0]
    in_use_since: float | None = None
    last = "no try"
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            tally.add("retries")
        try:
            status, answer_headers, answer = request(port, method, path, body, headers)
        except (OSError, http.client.HTTPException) as error:
            tally.add("connection errors")
            last, wait, in_use_since = type(error).__name__, pause, None
        else:
            code = answer.get("code") if isinstance(answer, dict) else None
            if status < 500 and status != 429 and code != "idempotency_key_in_use":
                if answer_headers.get("Idempotent-Replayed") == "true":
                    tally.add("replayed answers")
                return status, answer
            tally.add(f"{status} {code}")
            last = f"{status} {code}"
            wait = min(float(answer_headers.get("Retry-After") or pause), RETRY_AFTER_CAP)
            if code != "idempotency_key_in_use":
                in_use_since = None
            elif in_use_since is None:
                in_use_since = time.monotonic()
            elif time.monotonic() - in_use_since > KEY_IN_USE_SECONDS:
                raise KeyLeftInUse(f"{method} {path}: {last} for {KEY_IN_USE_SECONDS:g} s")
        if time.monotonic() + wait > deadline:
            break
        time.sleep(wait)
        pause = min(pause * 2, BACKOFF_SECONDS[1])
    raise Abandoned(f"{method} {path}: no answer to act on after {attempt + 1} tries (last: {last})")


def post(port: int, path: str, body: Any, token: str | None, tally: Tally, **headers: str) -> tuple[int, Any]:
    """POST with a new Idempotency-Key, which every retry repeats."""
    headers["Idempotency-Key"] = str(uuid.uuid4())
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    tally.add("POSTs")
    return retried(port, "POST", path, body, headers, tally)


@dataclass
class Player:
    """A client playing its own games, each as its own model of it: the engine, fed the actions the
    server answered 2xx to."""

    number: int
    port: int
    tally: Tally
    games: dict[str, ClientGame] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def run(self, faults_over: threading.Event, stop: threading.Event) -> None:
        try:
            for round_ in range(MAX_GAMES):
                if round_ >= MIN_GAMES and faults_over.is_set():
                    return
                if stop.is_set():
                    self.problems.append("stopped before the end: the load took too long")
                    return
                self.play_game(f"faults-{self.number}-{round_}", stop)
        except Exception as error:  # reported by the test, with the client's number
            self.problems.append(f"{type(error).__name__}: {error}")

    def create(self, seed: str) -> tuple[ClientGame, dict[int, str]]:
        """A new game and its tokens."""
        seats = [{"name": f"{name} {seed}"} for name in NAMES]
        body = {"seats": seats, "seed": seed, "first_dealer": 0, "target_score": TARGET_SCORE}
        status, created = post(self.port, "/v1/games", body, None, self.tally)
        assert status == 201, created
        game = ClientGame(created["id"], seed, Game(GameSetup(TARGET_SCORE, 0, FirstDealerReason.NAMED, seed)))
        assert_shows(created, game.model)
        return game, {credential["seat"]: credential["token"] for credential in created["credentials"]}

    def play_game(self, seed: str, stop: threading.Event) -> None:
        game, tokens = self.create(seed)
        self.games[game.id] = game
        choose = random.Random(seed)
        for _ in range(MAX_ACTIONS):
            model = game.model
            if model.is_over or stop.is_set():
                return
            seat = model.turn
            assert seat is not None
            if model.status is Status.WAITING_FOR_DEAL:
                action = Action(len(model.log) + 1, "deal", seat, None)
                path, body = f"/v1/games/{game.id}/hands", None
            else:
                card = choose.choice(model.legal_cards(seat)).code
                action = Action(len(model.log) + 1, "play", seat, card)
                path, body = f"/v1/games/{game.id}/plays", {"card": card}
            self.act(game, action, path, body, tokens[seat])

    def act(self, game: ClientGame, action: Action, path: str, body: Any, token: str) -> None:
        """Send ``action`` (retried with its key) until the server answers it applied."""
        status, answer = post(self.port, path, body, token, self.tally)
        assert status == 201, f"{action} in {path}: {status} {answer}"
        game.apply(action)
        if action.kind == "deal":
            assert answer["commitment"] == game.model.commitment
        assert_shows(answer["game"], game.model)


@dataclass
class ClientGame:
    """One game as its client knows it."""

    id: str
    seed: str
    model: Game
    acknowledged: list[Action] = field(default_factory=list)  # answered 2xx, in order

    def apply(self, action: Action) -> None:
        if action.kind == "deal":
            self.model.deal(action.seat)
        else:
            assert action.card is not None
            self.model.play(action.seat, parse_card(action.card))
        assert len(self.model.log) == action.seq
        self.acknowledged.append(action)


def shown(game: dict[str, Any]) -> dict[str, Any]:
    """The parts of a public game (getGame's body) that the game's log decides."""
    trick = game["trick"]
    last = game["last_trick"]
    return {
        "status": game["status"],
        "version": game["version"],
        "hand_number": game["hand_number"],
        "dealer": game["dealer"],
        "turn": game["turn"],
        "scores": [seat["score"] for seat in game["seats"]],
        "cards_in_hand": [seat["cards_in_hand"] for seat in game["seats"]],
        "tricks_won": [seat["tricks_won"] for seat in game["seats"]],
        "trick": None if trick is None else (trick["leader"], [(p["seat"], p["card"]) for p in trick["plays"]]),
        "last_trick": None
        if last is None
        else (last["leader"], [(p["seat"], p["card"]) for p in last["plays"]], last["winner"], last["points"]),
        "winner": game["winner"],
        "commitment": game["commitment"],
    }


def expected(model: Game) -> dict[str, Any]:
    """The same parts, as the engine has them after the model's actions (version: one per action after creation)."""
    last = model.last_trick
    playing = model.status is Status.PLAYING
    return {
        "status": model.status.value,
        "version": len(model.log) + 1,
        "hand_number": model.hand_number,
        "dealer": model.dealer,
        "turn": model.turn,
        "scores": list(model.scores),
        "cards_in_hand": list(model.cards_in_hand),
        "tricks_won": list(model.tricks_won),
        "trick": (model.leader, [(p.seat, p.card.code) for p in model.trick]) if playing else None,
        "last_trick": None
        if last is None
        else (last.leader, [(p.seat, p.card.code) for p in last.plays], last.winner, last.points),
        "winner": model.winner,
        "commitment": model.commitment,
    }


def assert_shows(game: dict[str, Any], model: Game) -> None:
    assert shown(game) == expected(model), f"game {game['id']} is not the client's model of it"


def replay(record: dict[str, Any], seed: str) -> tuple[Game, list[Action]]:
    """The game a record describes, replayed through the engine from its seed string, and its log."""
    setup = record["setup"]
    game = Game(GameSetup(setup["target_score"], setup["first_dealer"], FirstDealerReason.NAMED, seed))
    log: list[Action] = []
    for hand in record["hands"]:
        assert hand["deal"]["seq"] == len(game.log) + 1, f"hand {hand['hand_number']}'s deal is out of sequence"
        game.deal(hand["dealer"])
        assert game.commitment == hand["commitment"]
        log.append(Action(hand["deal"]["seq"], "deal", hand["dealer"], None))
        for play in hand["plays"]:
            assert play["seq"] == len(game.log) + 1, f"play {play['seq']} is out of sequence"
            game.play(play["seat"], parse_card(play["card"]))
            log.append(Action(play["seq"], "play", play["seat"], play["card"]))
    return game, log


def all_games(port: int) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = []
    query = "/v1/games?limit=100"
    for _ in range(50):  # pages: far more than the games played
        status, _, page = request(port, "GET", query)
        assert status == 200, page
        games.extend(page["items"])
        if not page.get("next_cursor"):
            return games
        query = f"/v1/games?limit=100&cursor={page['next_cursor']}"
    pytest.fail("GET /v1/games did not end")


def wait_for_workers(server: Server, before: set[int]) -> None:
    """Until the master has WORKERS children again, none of them one of ``before`` that was killed."""
    deadline = time.monotonic() + RESPAWN_SECONDS
    while time.monotonic() < deadline:
        workers = set(gunicorn_workers(server.process.pid))
        if len(workers) == WORKERS and not workers & before:
            return
        time.sleep(0.1)
    pytest.fail(f"gunicorn did not replace its killed workers within {RESPAWN_SECONDS} s:\n{server.output()}")


def kill_workers(server: Server, faults: list[str]) -> None:
    """SIGKILL one worker at a time, KILLS times, while the clients play."""
    chooser = random.Random("kills")
    for _ in range(KILLS):
        time.sleep(KILL_EVERY_SECONDS)
        workers = gunicorn_workers(server.process.pid)
        victim = chooser.choice(workers)
        os.kill(victim, signal.SIGKILL)
        faults.append(f"SIGKILL {victim}")
        wait_for_workers(server, {victim})


def restart_postgres(server: Server, faults: list[str]) -> None:
    """Restart PostgreSQL (fast: every connection terminated, as in a crash or a failover) RESTARTS times."""
    for _ in range(RESTARTS):
        time.sleep(RESTART_EVERY_SECONDS)
        pg_ctlcluster("restart", "-m", "fast")
        faults.append("PostgreSQL restarted")


@pytest.fixture
def fault_server(database_url: str, tmp_path: Path) -> Iterator[Server]:
    env = {"RATE_LIMITS": "off", "LOG_LEVEL": "ERROR"}
    with running_server(tmp_path, database_url=database_url, workers=WORKERS, env=env) as server:
        yield server


def play_through(server: Server, fault: Callable[[Server, list[str]], None]) -> None:
    """The clients play while ``fault`` strikes; then every check of nothing lost."""
    tally = Tally()
    players = [Player(number, server.port, tally) for number in range(CLIENTS)]
    faults_over, stop = threading.Event(), threading.Event()
    threads = [threading.Thread(target=player.run, args=(faults_over, stop), daemon=True) for player in players]
    faults: list[str] = []
    started = time.monotonic()
    for thread in threads:
        thread.start()
    try:
        fault(server, faults)
    finally:
        faults_over.set()  # the clients finish the game they are playing
        for thread in threads:
            thread.join(max(0.0, started + LOAD_SECONDS - time.monotonic()))
        stop.set()  # past the bound: the clients stop at their next action
        for thread in threads:
            thread.join(RETRY_SECONDS + REQUEST_SECONDS)
    elapsed = time.monotonic() - started
    games = [game for player in players for game in player.games.values()]
    print(
        f"\n{len(faults)} faults ({', '.join(faults)}) in {elapsed:.1f} s, {len(games)} games; "
        f"clients met: {dict(tally.counts)}"
    )

    assert faults, "no fault struck while the clients played: nothing was tested"
    met = sum(count for what, count in tally.counts.items() if what == "connection errors" or what[0] == "5")
    assert met, "no request met a fault: nothing was tested"
    assert not any(thread.is_alive() for thread in threads), "a client did not stop"
    problems = [f"client {player.number}: {problem}" for player in players for problem in player.problems]
    assert not problems, "\n".join(problems)
    assert server.process.poll() is None, server.output()

    assert len(games) >= CLIENTS * MIN_GAMES
    played = {game.id for game in games}
    others = [game["id"] for game in all_games(server.port) if game["id"] not in played]
    assert not others, f"games no client was told it created: {others}"
    for client_game in games:
        game_id, seed, model = client_game.id, client_game.seed, client_game.model
        status, _, record = request(server.port, "GET", f"/v1/games/{game_id}/record")
        assert status == 200, record
        verify(record)  # the independent verifier: every deal, play, trick and score by the rules
        status, _, game = request(server.port, "GET", f"/v1/games/{game_id}")
        assert status == 200, game
        replayed, log = replay(record, seed)
        assert shown(game) == expected(replayed), f"game {game_id}: its record does not replay to the state it shows"
        assert log == client_game.acknowledged, f"game {game_id}: its log is not what its client was told applied"
        assert replayed == model, f"game {game_id} is not the game its client meant to play"
        assert model.is_over, f"game {game_id} was not played to its end"


def test_workers_killed_under_load_lose_nothing(fault_server: Server) -> None:
    play_through(fault_server, kill_workers)


@pytest.mark.postgres
@pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="restarts PostgreSQL: set TEST_DATABASE_URL")
def test_postgres_restarted_under_load_loses_nothing(fault_server: Server) -> None:
    play_through(fault_server, restart_postgres)
