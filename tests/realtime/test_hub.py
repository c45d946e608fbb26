"""The real-time role in the test's process: what its hub's clock marks, what a player's stream keeps
alive, how a held connection's slot comes back, and what its answers carry."""

from __future__ import annotations

import http.client
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import event, text

from service import create_app
from service.api.resources.events.routes import FEED_EXTENSION
from service.api.resources.events.schemas import MAX_EVENT_ID
from service.config import Settings
from service.games.ids import new_game_id
from service.games.player_events import MatchFoundEvent, encode_player_event
from service.games.tokens import player_key_hash
from service.realtime import StoreLiveness
from service.realtime import held as held_module
from service.realtime import hub as hub_module
from service.realtime.hub import KEYS_EVERY_SECONDS, MARK_SECONDS, TICK_SECONDS
from service.store import player_feed_id
from tests.support.realtime import Realtime, realtime_role
from tests.support.sse import Comment, Event, EventStream
from tests.support.working_client import NO_PACE

FEED = "/v1/players/me/events"


def eventually(check: Callable[[], Any], seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    return check()


def test_the_games_followed_and_the_process_are_marked_alive(client: FlaskClient, realtime: Realtime, app: Any) -> None:
    """A game a stream follows is marked followed in the store for a while, and the process alive."""
    game_id = client.post("/v1/games", json={}).json["id"]
    assert isinstance(realtime.app.hub.liveness, StoreLiveness)
    due = app.extensions["coins.games"].store.due
    with realtime.stream(f"/v1/games/{game_id}/events") as stream:
        assert stream.status == 200
        until = eventually(lambda: _followed_until(app, game_id), MARK_SECONDS + 3)
    assert until is not None and until > datetime.now(UTC)  # followed for a while more
    assert eventually(lambda: "realtime" in due.roles_seen(), 3)  # marked just after the games it follows


def test_a_process_is_marked_alive_as_it_starts(app: Any, settings: Settings) -> None:
    """/readyz does not call the real-time role down for the first MARK_SECONDS of a fresh process."""
    due = app.extensions["coins.games"].store.due
    assert "realtime" not in due.roles_seen()
    with realtime_role(app, settings):
        assert eventually(lambda: "realtime" in due.roles_seen(), MARK_SECONDS / 2)


def test_a_process_whose_listener_is_lost_says_so(
    app: Any, client: FlaskClient, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its streams then hear of changes only at their heartbeats: /readyz's body says so (the probe holds)."""
    channel = app.extensions[FEED_EXTENSION].channel
    monkeypatch.setattr(type(channel), "listening", property(lambda self: False))  # as while it reconnects
    due = app.extensions["coins.games"].store.due
    with realtime_role(app, settings):
        assert eventually(lambda: "realtime" in due.roles_seen(), MARK_SECONDS / 2)
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json["roles"]["realtime"] == "up"
        assert ready.json["listeners"]["realtime"] == "lost"
        monkeypatch.undo()
        assert eventually(lambda: client.get("/readyz").json["listeners"]["realtime"] == "listening", MARK_SECONDS + 3)


def _followed_until(app: Any, game_id: str) -> datetime | None:
    with app.extensions["coins.db"].engine.connect() as connection:
        found = connection.execute(text("SELECT followed_until FROM games WHERE id = :id"), {"id": game_id}).scalar()
    if found is None:
        return None
    if isinstance(found, str):  # SQLite keeps text
        found = datetime.fromisoformat(found)
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def test_a_players_stream_keeps_their_quick_play_ticket_alive(
    client: FlaskClient, realtime: Realtime, app: Any
) -> None:
    """A ticket whose player follows their feed is marked on the stream's heartbeats (1 s here)."""
    created = client.post("/v1/players", json={"name": "Ana"}).json
    auth = {"Authorization": f"Bearer {created['key']}"}
    ticket = client.post("/v1/queue", json={"bots_after": None}, headers=auth)
    assert ticket.status_code == 201, ticket.json
    beats: list[str] = []
    app.extensions["coins.player_feeds"].heartbeat_hooks.append(lambda player_ids, _now: beats.extend(player_ids))
    with realtime.stream(FEED, token=created["key"]) as stream:
        assert stream.status == 200
        assert eventually(lambda: len(beats) >= 2, 5)  # the opening, then the heartbeats
    assert set(beats) == {created["id"]}


def test_every_idle_stream_gets_its_keep_alive_when_more_are_due_than_one_batch(
    client: FlaskClient, realtime: Realtime, monkeypatch: Any
) -> None:
    """Keep-alives go out a batch at a time (the loop free between): every idle stream gets its own."""
    monkeypatch.setattr(held_module, "KEEP_ALIVE_BATCH", 2)
    game_id = client.post("/v1/games", json={}).json["id"]
    streams = [realtime.stream(f"/v1/games/{game_id}/events") for _ in range(5)]
    try:
        for stream in streams:
            assert stream.status == 200
            items = iter(stream)
            first = next(items)
            assert isinstance(first, Event) and first.type == "game"
            assert next(items) == Comment("keep-alive")  # within the heartbeat (1 s), no event between
    finally:
        for stream in streams:
            stream.close()


def test_a_held_long_polls_slot_comes_back_when_it_answers(client: FlaskClient, realtime: Realtime) -> None:
    game_id = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]}).json["id"]
    hub = realtime.app.hub
    assert realtime.get(f"/v1/games/{game_id}/events?after=0&wait=1")[2] == {"items": [], "last_id": 0}
    assert eventually(lambda: hub.held == 0, 2)
    status, _, page = realtime.get(f"/v1/games/{game_id}/events?after=0&wait=0")
    assert status == 200 and page == {"items": [], "last_id": 0}


def test_a_page_answers_at_once_without_being_held(client: FlaskClient, realtime: Realtime) -> None:
    game_id = client.post("/v1/games", json={}).json["id"]
    started = time.monotonic()
    status, headers, page = realtime.get(f"/v1/games/{game_id}/events?wait=30")
    assert status == 200 and [item["type"] for item in page["items"]] == ["game"]
    assert time.monotonic() - started < 5 and headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff" and headers["x-request-id"]


def _replace_key_unsaid(app: Any, player_id: str) -> None:
    """Replace the player's key in the store, with no signal naming them (as another process on an
    SQLite file does: the real-time role sees only that the file changed)."""
    with app.extensions["coins.db"].engine.begin() as connection:
        connection.execute(
            text("UPDATE players SET key_hash = :hash WHERE id = :id"), {"hash": "0" * 64, "id": player_id}
        )


def _types_until_closed(stream: EventStream, seconds: float) -> tuple[list[str], bool]:
    """The types of the stream's events until its connection ends (True), or ``seconds`` pass (False;
    the heartbeats' comments keep an open connection from timing out)."""
    deadline, types = time.monotonic() + seconds, []
    for item in stream:
        if isinstance(item, Event):
            types.append(item.type)
        if time.monotonic() > deadline:
            return types, False
    return types, True


def _next_event_type(stream: EventStream, seconds: float) -> str | None:
    """The type of the stream's next event, None if only heartbeats' comments come for ``seconds``."""
    deadline = time.monotonic() + seconds
    for item in stream:
        if isinstance(item, Event):
            return item.type
        if time.monotonic() > deadline:
            return None
    return None


def _append_match_found(app: Any, player_id: str) -> None:
    found = MatchFoundEvent(ticket=new_game_id(), game=new_game_id())
    with app.extensions["coins.games"].store.session() as session:
        session.append_player_events([encode_player_event(player_id, found, datetime.now(UTC))])


def test_a_players_events_go_to_no_connection_whose_key_was_replaced_unsaid(
    client: FlaskClient, realtime: Realtime, app: Any
) -> None:
    """Every key is checked at most once every KEYS_EVERY_SECONDS when anything may have changed, but
    a connection's key is checked in the very round that would hand it its player's events."""
    created = client.post("/v1/players", json={"name": "Ana"}).json
    hub = realtime.app.hub
    hub._keys_checked = time.monotonic() + 3600  # every key was just checked: none is, for an hour
    with realtime.stream(FEED, token=created["key"], timeout=10) as stream:
        events = stream.events()
        assert stream.status == 200 and next(events).type == "player"
        _append_match_found(app, created["id"])
        hub.signalled(None)  # no signal names the player (their keys would be checked)
        assert next(events).type == "match_found"
        _replace_key_unsaid(app, created["id"])
        _append_match_found(app, created["id"])
        hub.signalled(None)  # the file changed
        assert _types_until_closed(stream, 5) == ([], True)  # the replaced key's connection ended before the event


def test_a_connections_own_read_of_its_players_feed_checks_its_key(client: FlaskClient, app: Any) -> None:
    created = client.post("/v1/players", json={"name": "Ana"}).json
    feed_id, key_hash = player_feed_id(created["id"]), player_key_hash(created["key"])
    _append_match_found(app, created["id"])
    feed = app.extensions["coins.feed"]
    assert [item.type for item in feed.read_for(feed_id, 0, key_hash)[0]] == ["match_found"]
    assert feed.read_for(feed_id, 0, key_hash)[1]
    _replace_key_unsaid(app, created["id"])
    assert not feed.read_for(feed_id, 0, key_hash)[1]


def test_a_key_replaced_unsaid_ends_its_connections_soon_after_every_key_was_checked(
    client: FlaskClient, realtime: Realtime, app: Any
) -> None:
    """A check of every key asked for too soon after the last one is made by the clock's next tick."""
    created = client.post("/v1/players", json={"name": "Ana"}).json
    hub = realtime.app.hub
    with realtime.stream(FEED, token=created["key"], timeout=10) as stream:
        events = stream.events()
        assert stream.status == 200 and next(events).type == "player"
        hub._keys_checked = time.monotonic()  # every key was just checked
        _replace_key_unsaid(app, created["id"])
        hub.signalled(None)
        assert _types_until_closed(stream, KEYS_EVERY_SECONDS + 2 * TICK_SECONDS + 1) == ([], True)


def test_the_metrics_count_the_streams_held(client: FlaskClient, realtime: Realtime) -> None:
    game_id = client.post("/v1/games", json={}).json["id"]

    def held() -> float:
        text = client.get("/metrics").get_data(as_text=True)
        return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith("coins_streams_held"))

    before = held()
    with realtime.stream(f"/v1/games/{game_id}/events") as stream:
        assert stream.status == 200
        assert eventually(lambda: held() == before + 1, 2)
    assert eventually(lambda: held() == before, 2)  # given back when the connection closes


def test_a_refusal_and_a_stream_carry_what_every_answer_carries(database_url: str) -> None:
    """Through the real-time role: problems with their codes, CORS (a preflight too), the security
    headers and a request id, as the web role answers them."""
    settings = Settings(database_url=database_url, rate_limits="off", cors_origins=("https://app.example",), **NO_PACE)
    app = create_app(settings)
    origin = {"Origin": "https://app.example"}
    try:
        game_id = app.test_client().post("/v1/games", json={}).json["id"]
        with realtime_role(app, settings) as realtime:
            status, headers, problem = realtime.get(
                f"/v1/games/{game_id}/events", {"Authorization": "Bearer nope", **origin}
            )
            assert status == 401 and problem["code"] == "invalid_token"
            assert headers["content-type"] == "application/problem+json"
            assert headers["access-control-allow-origin"] == "https://app.example"
            assert headers["x-frame-options"] == "DENY" and headers["x-request-id"]
            with realtime.stream(f"/v1/games/{game_id}/events", headers=origin) as stream:
                assert stream.status == 200
                assert stream.response.getheader("Access-Control-Allow-Origin") == "https://app.example"
                assert stream.response.getheader("Content-Security-Policy") == "frame-ancestors 'none'"
            preflight = http.client.HTTPConnection("127.0.0.1", realtime.port, timeout=10)
            preflight.request(
                "OPTIONS",
                "/v1/players/me/events",
                headers={
                    **origin,
                    "Access-Control-Request-Method": "GET",
                    "Access-Control-Request-Headers": "authorization, last-event-id",
                },
            )
            answer = preflight.getresponse()
            answer.read()
            assert (
                answer.status == 200 and "last-event-id" in answer.getheader("Access-Control-Allow-Headers", "").lower()
            )
            preflight.close()
    finally:
        app.extensions["coins.feed"].close()
        app.extensions["coins.db"].dispose()


def test_a_reader_past_the_feeds_last_event_is_refused_and_leaves_the_others_their_events(
    client: FlaskClient, realtime: Realtime
) -> None:
    """`after` and Last-Event-ID may name any id of ten digits, but one past the game's last event is
    refused where the streams are held (400 unknown_event_id, before anything is cached for the
    feed: a cache from past its last event would keep every other reader from its next events),
    and the game's other readers go on."""
    people = [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, {"name": "Cy", "age": 29}]
    created = client.post("/v1/games", json={"seats": people, "target_score": 3, "seed": "past"}).json
    game_id, hub = created["id"], realtime.app.hub
    auth = {
        credential["seat"]: {"Authorization": f"Bearer {credential['token']}"} for credential in created["credentials"]
    }
    last = client.get(f"/v1/games/{game_id}/events").json["last_id"]
    for past in (last + 1, MAX_EVENT_ID):
        with realtime.stream(f"/v1/games/{game_id}/events", last_event_id=past, timeout=10) as refused:
            assert refused.status == 400
        status, _, body = realtime.get(f"/v1/games/{game_id}/events?after={past}&wait=5")
        assert status == 400 and body is not None and body["code"] == "unknown_event_id"
    assert game_id not in hub._feeds
    with realtime.stream(f"/v1/games/{game_id}/events", last_event_id=last, timeout=10) as follower:
        assert follower.status == 200
        dealer = client.get(f"/v1/games/{game_id}").json["turn"]
        assert client.post(f"/v1/games/{game_id}/hands", headers=auth[dealer]).status_code == 201
        assert _next_event_type(follower, 20) == "hand_dealt"  # the deal reaches it (None: only heartbeats)


def test_the_reading_session_goes_back_to_the_pool_now_and_then(
    app: Any, realtime: Realtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hub keeps its reading session between rounds, and gives it back to the pool every
    SESSION_SECONDS: a connection kept out of the pool for good kept what its transactions left for the
    check-in to undo (on PostgreSQL, two isolation-level resets per read of several players' feeds), and
    the real-time process grew with every such round (a soak: about 0.9 KiB a round, 65-80 KiB/min)."""
    hub = realtime.app.hub
    checkins: list[object] = []

    def checked_in(connection: object, record: object) -> None:
        checkins.append(record)

    engine = app.extensions["coins.db"].engine
    players = {player_feed_id("0" * 26): 0, player_feed_id("1" * 26): 0}
    read = hub_module._Round(after=players, keys={"k" * 64}, private_keys={})

    def round_() -> None:  # on the hub's reading thread, as its rounds run (no stream is held: none runs now)
        hub._reader.submit(hub._read, read).result(timeout=10)

    round_()
    event.listen(engine, "checkin", checked_in)
    try:
        round_()
        round_()
        assert checkins == []  # kept between rounds
        monkeypatch.setattr(hub_module, "SESSION_SECONDS", 0.0)
        round_()
        assert len(checkins) == 1  # the kept session went back (what it kept undone), a new one read
        round_()
        assert len(checkins) == 2
    finally:
        event.remove(engine, "checkin", checked_in)
