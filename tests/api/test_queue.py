"""Quick play over HTTP: enterQueue, getTicket, cancelTicket; matches, bots, expiry, a game made late, and bad input."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event
from sqlalchemy.engine import Engine

from service.games import GameService
from service.quickplay import QueueService
from service.quickplay.matching import EXPIRE_SECONDS
from service.quickplay.queue import QUEUE_TURN_TIMEOUT_SECONDS, RESTART_AFTER
from tests.support.working_client import NO_PACE, keep_up

START = datetime.now(UTC).replace(microsecond=0)


class Clock:
    """The service's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(app: Flask) -> Clock:
    clock = Clock()
    games: GameService = app.extensions["coins.games"]
    games.clock = clock
    return clock


@pytest.fixture
def player(client: FlaskClient) -> Callable[[str], tuple[str, dict[str, str]]]:
    """``player("Ana")``: a new player's id and the headers that carry their key."""

    def create(name: str) -> tuple[str, dict[str, str]]:
        response = client.post("/v1/players", json={"name": name})
        assert response.status_code == 201, response.json
        return response.json["id"], {"Authorization": f"Bearer {response.json['key']}"}

    return create


def queue(client: FlaskClient, auth: dict[str, str], **body: Any) -> Any:
    return client.post("/v1/queue", json=body, headers=auth)


def ticket_of(client: FlaskClient, auth: dict[str, str], ticket_id: str) -> dict[str, Any]:
    response = client.get(f"/v1/queue/{ticket_id}", headers=auth)
    assert response.status_code == 200, response.json
    return response.json  # type: ignore[no-any-return]


def matches_found(client: FlaskClient, auth: dict[str, str], game_id: str) -> int:
    """How many ``match_found`` for ``game_id`` the player's feed holds (once the worker has delivered them)."""
    page = client.get("/v1/players/me/events?after=0&wait=0", headers=auth)
    assert page.status_code == 200, page.json
    return sum(1 for event in page.json["items"] if event["type"] == "match_found" and event["game"] == game_id)


def waiting_count(app: Flask) -> int:
    queue_service: QueueService = app.extensions["coins.queue"]
    with queue_service._games.unit_of_work() as uow, uow.session() as session:
        return len(session.tickets.waiting(limit=1000))


def test_a_ticket_is_created_waiting_with_the_defaults_and_read_by_its_player(
    client: FlaskClient, clock: Clock, player: Any
) -> None:
    _, auth = player("Ana")
    response = queue(client, auth)
    assert response.status_code == 201, response.json
    body = response.json
    assert response.headers["Location"] == f"/v1/queue/{body['id']}"
    assert body["status"] == "waiting" and body["game"] is None and body["seat"] is None
    assert (body["target_score"], body["rated"], body["bots_after"]) == (15, True, 60)
    assert ticket_of(client, auth, body["id"]) == body


def test_three_players_are_matched_into_one_started_game_with_a_seat_each(
    app: Flask, client: FlaskClient, clock: Clock, player: Any
) -> None:
    players = [player(name) for name in ("Ana", "Bo", "Cy")]
    tickets = []
    for _, auth in players:
        response = queue(client, auth, target_score=10, rated=False, bots_after=None)
        assert response.status_code == 201, response.json
        tickets.append(response.json["id"])
    read = [ticket_of(client, auth, ticket_id) for (_, auth), ticket_id in zip(players, tickets, strict=True)]
    assert {t["status"] for t in read} == {"matched"}
    assert len({t["game"] for t in read}) == 1
    assert sorted(t["seat"] for t in read) == [0, 1, 2]
    game = client.get(f"/v1/games/{read[0]['game']}").json
    assert game["status"] == "playing"  # dealt by the server
    assert (game["target_score"], game["rated"], game["seeded"]) == (10, False, False)
    assert game["turn_timeout_seconds"] == QUEUE_TURN_TIMEOUT_SECONDS
    for (player_id, auth), t in zip(players, read, strict=True):
        assert game["seats"][t["seat"]]["player"] == player_id
        hand = client.get(f"/v1/games/{t['game']}/hand", headers=auth)  # the key acts for the seat
        assert hand.status_code == 200, hand.json
        assert matches_found(client, auth, t["game"]) == 1  # from the game's outbox, written with it
    assert waiting_count(app) == 0


def test_a_lone_ticket_is_completed_with_two_bots_of_different_strengths_after_bots_after(
    client: FlaskClient, clock: Clock, player: Any
) -> None:
    player_id, auth = player("Ana")
    ticket_id = queue(client, auth, bots_after=5).json["id"]
    assert ticket_of(client, auth, ticket_id)["status"] == "waiting"
    clock.advance(5)
    ticket = ticket_of(client, auth, ticket_id)
    assert ticket["status"] == "matched"
    game = client.get(f"/v1/games/{ticket['game']}").json
    assert game["rated"] is True
    bots = [seat["bot"] for seat in game["seats"] if seat["bot"] is not None]
    assert len(bots) == 2 and len(set(bots)) == 2
    assert game["seats"][ticket["seat"]]["player"] == player_id
    # Contract 1.3, ratings on the table: each seat's rating as the matched game began, bots' too.
    assert [seat["rating"] for seat in game["seats"]] == [{"value": 1500, "provisional": True}] * 3


def test_a_ticket_not_seen_for_30_seconds_expires(client: FlaskClient, clock: Clock, player: Any) -> None:
    _, auth = player("Ana")
    ticket_id = queue(client, auth, bots_after=None).json["id"]
    clock.advance(20)
    assert ticket_of(client, auth, ticket_id)["status"] == "waiting"  # read: seen now
    clock.advance(29)
    assert ticket_of(client, auth, ticket_id)["status"] == "waiting"
    clock.advance(31)
    assert ticket_of(client, auth, ticket_id)["status"] == "expired"
    assert queue(client, auth).status_code == 201  # no longer waiting: a new ticket may be queued


def test_an_expired_ticket_is_matched_with_nobody(client: FlaskClient, clock: Clock, player: Any) -> None:
    (_, stale), (_, bo), (_, cy) = player("Ana"), player("Bo"), player("Cy")
    stale_id = queue(client, stale, bots_after=None).json["id"]
    clock.advance(31)
    bo_id = queue(client, bo, bots_after=None).json["id"]
    cy_id = queue(client, cy, bots_after=None).json["id"]
    assert ticket_of(client, stale, stale_id)["status"] == "expired"
    assert ticket_of(client, bo, bo_id)["status"] == ticket_of(client, cy, cy_id)["status"] == "waiting"


def test_the_feeds_touch_keeps_a_ticket_alive(app: Flask, client: FlaskClient, clock: Clock, player: Any) -> None:
    player_id, auth = player("Ana")
    ticket_id = queue(client, auth, bots_after=None).json["id"]
    queue_service: QueueService = app.extensions["coins.queue"]
    for _ in range(3):
        clock.advance(20)
        assert queue_service.touch_tickets([player_id]) == 1
        assert queue_service.match_due() == []
    assert ticket_of(client, auth, ticket_id)["status"] == "waiting"


def test_a_cancelled_ticket_is_cancelled_and_cancelling_again_changes_nothing(
    app: Flask, client: FlaskClient, clock: Clock, player: Any
) -> None:
    _, auth = player("Ana")
    ticket_id = queue(client, auth).json["id"]
    assert client.delete(f"/v1/queue/{ticket_id}", headers=auth).status_code == 204
    assert ticket_of(client, auth, ticket_id)["status"] == "cancelled"
    assert client.delete(f"/v1/queue/{ticket_id}", headers=auth).status_code == 204
    assert ticket_of(client, auth, ticket_id)["status"] == "cancelled"
    assert waiting_count(app) == 0


def test_a_matched_ticket_cannot_be_cancelled(client: FlaskClient, clock: Clock, player: Any) -> None:
    _, auth = player("Ana")
    ticket_id = queue(client, auth, bots_after=0).json["id"]
    matched = ticket_of(client, auth, ticket_id)
    assert matched["status"] == "matched"
    response = client.delete(f"/v1/queue/{ticket_id}", headers=auth)
    assert response.status_code == 409
    assert response.json["code"] == "ticket_matched"
    assert response.content_type == "application/problem+json"
    assert ticket_of(client, auth, ticket_id) == matched  # unchanged


def test_a_second_waiting_ticket_is_refused_and_nothing_is_written(
    app: Flask, client: FlaskClient, clock: Clock, player: Any
) -> None:
    _, auth = player("Ana")
    first = queue(client, auth).json
    response = queue(client, auth, target_score=30)
    assert response.status_code == 409
    assert response.json["code"] == "already_queued"
    assert response.json["ticket"] == first["id"]  # the waiting one, for getTicket or cancelTicket
    assert waiting_count(app) == 1
    assert ticket_of(client, auth, first["id"])["target_score"] == 15


def test_another_players_ticket_is_not_found_like_no_ticket(client: FlaskClient, clock: Clock, player: Any) -> None:
    (_, ana), (_, bo) = player("Ana"), player("Bo")
    ticket_id = queue(client, ana).json["id"]
    for method in ("get", "delete"):
        foreign = getattr(client, method)(f"/v1/queue/{ticket_id}", headers=bo)
        unknown = getattr(client, method)("/v1/queue/01jzzzzzzzzzzzzzzzzzzzzzzz", headers=bo)
        assert foreign.status_code == unknown.status_code == 404
        assert foreign.json["code"] == unknown.json["code"] == "ticket_not_found"
    assert ticket_of(client, ana, ticket_id)["status"] == "waiting"  # bo's cancel did nothing


@pytest.mark.parametrize("ticket_id", ["nope", "0" * 27, "I" * 26, "%00" + "0" * 25])
def test_a_malformed_ticket_id_is_not_found(client: FlaskClient, player: Any, ticket_id: str) -> None:
    _, auth = player("Ana")
    response = client.get(f"/v1/queue/{ticket_id}", headers=auth)
    assert response.status_code == 404
    assert response.json["code"] == "ticket_not_found"


@pytest.mark.parametrize(
    "body",
    [
        {"target_score": 0},
        {"target_score": 101},
        {"target_score": "15"},
        {"target_score": 15.5},
        {"rated": "yes"},
        {"rated": None},
        {"bots_after": -1},
        {"bots_after": 3601},
        {"bots_after": "60"},
        {"seats": []},
    ],
)
def test_queue_parameters_out_of_range_are_refused_and_nothing_is_queued(
    app: Flask, client: FlaskClient, player: Any, body: dict[str, Any]
) -> None:
    _, auth = player("Ana")
    response = queue(client, auth, **body)
    assert response.status_code == 422, response.json
    assert response.json["code"] == "validation_error"
    assert set(response.json["errors"]) == set(body)
    assert waiting_count(app) == 0


def test_queueing_needs_a_player_key(app: Flask, client: FlaskClient, new_table: Any, player: Any) -> None:
    missing = client.post("/v1/queue", json={})
    assert missing.status_code == 401 and missing.json["code"] == "missing_token"
    assert "Bearer" in missing.headers["WWW-Authenticate"]
    bogus = queue(client, {"Authorization": "Bearer cpk_" + "x" * 43})
    assert bogus.status_code == 401 and bogus.json["code"] == "invalid_key"
    seat_token = new_table().auth(0)  # a seat's token is no player's key
    assert queue(client, seat_token).json["code"] == "invalid_key"
    _, auth = player("Ana")
    ticket_id = queue(client, auth).json["id"]
    assert client.get(f"/v1/queue/{ticket_id}").json["code"] == "missing_token"
    assert client.delete(f"/v1/queue/{ticket_id}", headers=seat_token).json["code"] == "invalid_key"
    assert waiting_count(app) == 1


def test_a_replaced_key_no_longer_reads_the_ticket_it_queued_which_is_cancelled(
    client: FlaskClient, clock: Clock, player: Any
) -> None:
    _, old = player("Ana")
    ticket_id = queue(client, old).json["id"]
    replaced = client.post("/v1/players/me/key", headers=old)
    assert replaced.status_code in (200, 201), replaced.json
    new = {"Authorization": f"Bearer {replaced.json['key']}"}
    for method in ("get", "delete"):
        response = getattr(client, method)(f"/v1/queue/{ticket_id}", headers=old)
        assert response.status_code == 401 and response.json["code"] == "invalid_key"
    assert queue(client, old).json["code"] == "invalid_key"
    # whoever held the old key may have queued it: the player is seated in no game they did not ask for
    assert ticket_of(client, new, ticket_id)["status"] == "cancelled"
    assert queue(client, new).status_code == 201


def test_a_game_whose_maker_stopped_after_the_match_is_not_made_by_a_reader_but_by_a_later_wave(
    app: Flask, client: FlaskClient, clock: Clock, player: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = [player(name) for name in ("Ana", "Bo", "Cy")]
    queue_service: QueueService = app.extensions["coins.queue"]
    crash = RuntimeError("the process died between the tickets' commit and the game's")

    def dies(*_args: Any, **_kwargs: Any) -> None:
        raise crash

    monkeypatch.setattr(queue_service, "_start", dies)
    tickets = [queue(client, auth, bots_after=None).json["id"] for _, auth in players[:2]]
    tickets.append(queue(client, players[2][1], bots_after=None).json["id"])  # its wave matches, then "dies"
    monkeypatch.undo()
    first = ticket_of(client, players[0][1], tickets[0])
    assert first["status"] == "matched"
    assert client.get(f"/v1/games/{first['game']}").status_code == 404  # a read makes no game
    clock.now += RESTART_AFTER + timedelta(seconds=1)
    keep_up(app)  # the worker's wave makes the game a matched ticket names
    keep_up(app)  # and its next pass deals it (no request makes a server move)
    game = client.get(f"/v1/games/{first['game']}")
    assert game.status_code == 200 and game.json["status"] == "playing"
    again = [ticket_of(client, auth, t) for (_, auth), t in zip(players, tickets, strict=True)]
    assert {t["game"] for t in again} == {first["game"]}
    assert sorted(t["seat"] for t in again) == [0, 1, 2]
    for _, auth in players:  # the game made late tells each player as the wave's own would
        assert matches_found(client, auth, first["game"]) == 1


def test_a_later_wave_makes_a_game_nobody_read(
    app: Flask, client: FlaskClient, clock: Clock, player: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue_service: QueueService = app.extensions["coins.queue"]
    _, auth = player("Ana")
    monkeypatch.setattr(queue_service, "_start", lambda *_args, **_kwargs: None)
    ticket_id = queue(client, auth, bots_after=0).json["id"]  # matched with bots; the game not made
    monkeypatch.undo()
    queue_service.match_due()
    with queue_service._games.unit_of_work() as uow, uow.session() as session:
        stored = session.tickets.get(ticket_id)
    assert stored is not None and stored.status == "matched" and not stored.game_started
    clock.advance(11)
    queue_service.match_due()
    game_id = stored.game_id
    assert client.get(f"/v1/games/{game_id}").json["status"] == "playing"


def test_posting_the_queue_is_rate_limited_per_key(database_url: str, player: Any) -> None:
    from service import create_app
    from service.config import Settings

    limited = create_app(Settings(database_url=database_url, rate_limits="on", **NO_PACE))
    try:
        client = limited.test_client()
        headers = [
            {"Authorization": f"Bearer {client.post('/v1/players', json={'name': n}).json['key']}"} for n in ("A", "B")
        ]
        statuses = [queue(client, headers[0], bots_after=None).status_code for _ in range(31)]
        assert statuses[0] == 201 and set(statuses[1:30]) == {409} and statuses[30] == 429
        assert queue(client, headers[1], bots_after=None).status_code == 201  # another key's count
    finally:
        limited.extensions["coins.feed"].close()
        limited.extensions["coins.db"].dispose()


def test_a_retried_queue_request_gets_the_same_ticket_and_queues_once(
    app: Flask, client: FlaskClient, clock: Clock, player: Any
) -> None:
    _, auth = player("Ana")
    keyed = {**auth, "Idempotency-Key": "5b0f4c1e-queue-retry"}
    first = client.post("/v1/queue", json={"bots_after": None}, headers=keyed)
    again = client.post("/v1/queue", json={"bots_after": None}, headers=keyed)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json and again.headers["Location"] == first.headers["Location"]
    assert waiting_count(app) == 1
    refused = client.post("/v1/queue", json={"bots_after": 5}, headers={**auth, "Idempotency-Key": "another"})
    assert refused.status_code == 409 and refused.json["code"] == "already_queued"
    assert refused.json["ticket"] == first.json["id"]


def test_a_heartbeat_with_no_ticket_to_mark_writes_nothing(
    app: Flask, client: FlaskClient, clock: Clock, player: Any
) -> None:
    """A feed's heartbeat touches its player's tickets: with none waiting (most players, most of the
    time), or one seen a moment ago, it only reads (on SQLite a write, even of no row, would queue
    for the file's one write lock: a thousand feeds then starved the queue's own requests)."""
    player_id, auth = player("Ana")
    queue_service: QueueService = app.extensions["coins.queue"]
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement.lstrip().split(None, 1)[0].upper())

    event.listen(Engine, "before_cursor_execute", seen)
    try:
        assert queue_service.touch_tickets([player_id]) == 0  # no ticket at all
        queue(client, auth, bots_after=None)
        statements.clear()
        assert queue_service.touch_tickets([player_id]) == 0  # just queued: seen a moment ago
        assert "UPDATE" not in statements and statements, statements
        clock.advance(20)
        assert queue_service.touch_tickets([player_id]) == 1  # due: marked
        assert "UPDATE" in statements
    finally:
        event.remove(Engine, "before_cursor_execute", seen)


def test_one_heartbeat_marks_the_tickets_of_many_players_in_a_few_statements(
    app: Flask, client: FlaskClient, clock: Clock, player: Any
) -> None:
    """A real-time process beats for every player it follows at once (thousands, each heartbeat):
    a statement finds the waiting tickets due of a few hundred players, one more marks them, and
    those seen a moment ago, ended or of players not named stay as they are."""
    queue_service: QueueService = app.extensions["coins.queue"]
    queued = [player(name) for name in ("Ana", "Bo", "Cy", "Di")]
    clocks = (60, 90, 120, 150, 180)  # no two tickets alike: none is matched
    tickets = [
        queue(client, auth, bots_after=None, turn_timeout_seconds=seconds).json["id"]
        for (_, auth), seconds in zip(queued, clocks, strict=False)
    ]
    client.delete(f"/v1/queue/{tickets[3]}", headers=queued[3][1])  # cancelled: no longer waiting
    clock.advance(20)
    fresh_id, fresh = player("Fresh")
    fresh_ticket = queue(client, fresh, bots_after=None, turn_timeout_seconds=clocks[4]).json["id"]  # seen just now
    followed = [player_id for player_id, _ in queued[1:]] + [fresh_id] + [f"nobody-{n}" for n in range(1200)]
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement.lstrip().split(None, 1)[0].upper())

    event.listen(Engine, "before_cursor_execute", seen)
    try:
        assert queue_service.touch_tickets(followed) == 2  # Bo's and Cy's: due and waiting
    finally:
        event.remove(Engine, "before_cursor_execute", seen)
    assert statements.count("SELECT") == 3 and statements.count("UPDATE") == 1, statements  # 1,204 players
    clock.advance(11)  # Ana was not followed: her ticket runs out; Bo's and Cy's were marked 11 s ago
    assert queue_service.match_due() == []
    assert [ticket_of(client, auth, ticket)["status"] for (_, auth), ticket in zip(queued, tickets, strict=True)] == [
        "expired",
        "waiting",
        "waiting",
        "cancelled",
    ]
    assert ticket_of(client, fresh, fresh_ticket)["status"] == "waiting"


def test_tickets_match_only_tickets_of_the_same_clock_and_the_game_takes_it(
    client: FlaskClient, clock: Clock, player: Any
) -> None:
    post = {"bots_after": None, "turn_timeout_seconds": 3600}
    _, ana = player("Ana")
    first = queue(client, ana, **post).json
    assert first["turn_timeout_seconds"] == 3600
    queue(client, player("Bo")[1], **post)
    _, cy = player("Cy")
    live = queue(client, cy, bots_after=None).json
    assert live["turn_timeout_seconds"] == QUEUE_TURN_TIMEOUT_SECONDS  # the default clock
    assert ticket_of(client, ana, first["id"])["status"] == "waiting"  # Ana, Bo and Cy: two clocks, no three alike
    queue(client, player("Di")[1], **post)
    matched = ticket_of(client, ana, first["id"])
    assert matched["status"] == "matched"
    game = client.get(f"/v1/games/{matched['game']}").json
    assert game["turn_timeout_seconds"] == 3600 and "Cy" not in [seat["name"] for seat in game["seats"]]
    assert ticket_of(client, cy, live["id"])["status"] == "waiting"


def test_a_correspondence_ticket_waits_a_day_unread(client: FlaskClient, clock: Clock, player: Any) -> None:
    _, auth = player("Ana")
    ticket = queue(client, auth, bots_after=None, turn_timeout_seconds=86_400).json
    queue_service: QueueService = client.application.extensions["coins.queue"]
    clock.advance(EXPIRE_SECONDS + 1)  # nobody reads it
    queue_service.match_due()
    assert ticket_of(client, auth, ticket["id"])["status"] == "waiting"  # a live game's ticket would be gone
    clock.advance(24 * 3600 + 1)  # a day since it was last read
    queue_service.match_due()
    assert ticket_of(client, auth, ticket["id"])["status"] == "expired"


@pytest.mark.parametrize("seconds", [4, 14 * 24 * 3600 + 1])
def test_a_tickets_clock_takes_5_seconds_to_14_days(client: FlaskClient, player: Any, seconds: int) -> None:
    response = queue(client, player("Ana")[1], turn_timeout_seconds=seconds)
    assert response.status_code == 422 and "turn_timeout_seconds" in response.json["errors"]


def test_the_master_never_completes_a_table(app: Flask, client: FlaskClient, clock: Clock, player: Any) -> None:
    """The master's plays are the worker's (up to a second of CPU each): quick play leaves it out, even
    rated exactly as the player waiting while every other bot is far away."""
    from sqlalchemy import text

    from service.games.ids import BOT_PLAYER_IDS

    with app.extensions["coins.db"].engine.begin() as connection:
        connection.execute(
            text("UPDATE players SET mu = 25.0, sigma = 25.0 / 3 WHERE id = :id"), {"id": BOT_PLAYER_IDS["master"]}
        )
        for strength, mu in (("random", 0.0), ("basic", 45.0), ("expert", 50.0)):
            connection.execute(
                text("UPDATE players SET mu = :mu WHERE id = :id"), {"mu": mu, "id": BOT_PLAYER_IDS[strength]}
            )
    _player_id, auth = player("Ana")
    ticket_id = queue(client, auth, bots_after=5).json["id"]
    clock.advance(5)
    ticket = ticket_of(client, auth, ticket_id)
    assert ticket["status"] == "matched"
    bots = [seat["bot"] for seat in client.get(f"/v1/games/{ticket['game']}").json["seats"] if seat["bot"]]
    assert len(bots) == 2 and "master" not in bots


#: The bots' mu in the test below; shown as 1500 + 24·(mu − 25): random 1572, basic 1452, expert 1524, master 1548.
BOT_MUS = {"random": 28.0, "basic": 23.0, "expert": 26.0, "master": 27.0}


@pytest.mark.parametrize(
    ("rated", "humans", "expected"),
    [
        (True, [27.0], ["basic", "expert"]),  # random (1572) is the nearest of all, but never at a rated table
        (False, [27.0], ["expert", "random"]),  # a casual table takes it: 1524 and 1572 are nearest 1548
        (False, [22.0], ["basic", "expert"]),  # 1428: basic (1452) and expert (1524) before random (1572)
        (True, [22.0, 24.0], ["basic"]),  # two waiting: their mean, 1476; basic (1452) is nearest
        (True, [27.2, 28.0], ["expert"]),  # mean 1562: random (1572) nearer than expert (1524), but rated
        (False, [27.2, 28.0], ["random"]),
    ],
)
def test_quick_play_completes_a_table_with_the_bots_whose_shown_ratings_are_nearest_the_players(
    app: Flask, client: FlaskClient, clock: Clock, player: Any, rated: bool, humans: list[float], expected: list[str]
) -> None:
    """#32 item 6: the bots completing a quick-play table are those whose ratings, as profiles and tables show them
    (linear in mu: the mean of the waiting players' is the rating nearest all of them), are nearest the waiting
    players' mean; never the random bot at a rated table, nor the master at any."""
    from sqlalchemy import text

    from service.games.ids import BOT_PLAYER_IDS

    people = [player(name) for name in ("Ana", "Bo")[: len(humans)]]
    with app.extensions["coins.db"].engine.begin() as connection:
        for strength, mu in BOT_MUS.items():
            connection.execute(
                text("UPDATE players SET mu = :mu WHERE id = :id"), {"mu": mu, "id": BOT_PLAYER_IDS[strength]}
            )
        for (player_id, _), mu in zip(people, humans, strict=True):
            connection.execute(text("UPDATE players SET mu = :mu WHERE id = :id"), {"mu": mu, "id": player_id})
    shown = {
        strength: client.get(f"/v1/players/{BOT_PLAYER_IDS[strength]}").json["rating"]["value"] for strength in BOT_MUS
    }
    assert shown == {"random": 1572, "basic": 1452, "expert": 1524, "master": 1548}
    tickets = [queue(client, auth, bots_after=5, rated=rated).json["id"] for _, auth in people]
    clock.advance(5)
    matched = [ticket_of(client, auth, ticket_id) for (_, auth), ticket_id in zip(people, tickets, strict=True)]
    assert {ticket["status"] for ticket in matched} == {"matched"} and len({ticket["game"] for ticket in matched}) == 1
    game = client.get(f"/v1/games/{matched[0]['game']}").json
    assert game["rated"] is rated
    assert sorted(seat["bot"] for seat in game["seats"] if seat["bot"]) == expected
