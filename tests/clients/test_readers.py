"""The feed readers of coins_client.events against a scripted server (httpx's MockTransport): typed
events, unknown types skipped, resuming with Last-Event-ID after the server's retry delay, Retry-After,
problems, and an error when the feed cannot be kept. The pauses are recorded, not slept."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from coins_client import AuthenticatedClient, Client, FeedLost, ProblemError, afollow_game, follow_game, follow_player
from coins_client.models import (
    CardPlayedEvent,
    GameEvent,
    GameFinishedEvent,
    UnlistedFeedEvent,
    YourTurnEvent,
)

BASE = "http://coins.test"
GAME_ID = "01m8qhcrc96c9c2j46ep4my6k7"


def game_state(status: str = "playing", version: int = 1) -> dict[str, Any]:
    return {
        "id": GAME_ID,
        "status": status,
        "target_score": 15,
        "seeded": False,
        "rated": False,
        "void": False,
        "auto_deal": False,
        "turn_timeout_seconds": None,
        "turn_deadline": None,
        "version": version,
        "created_at": "2026-12-03T13:14:16+00:00",
        "updated_at": "2026-12-03T13:14:16+00:00",
        "seats": [],
        "hand_number": 1,
        "dealer": 0,
        "turn": 1,
        "trick": None,
        "last_trick": None,
        "winner": None,
        "first_dealer": 0,
        "first_dealer_chosen_by": "drawn",
        "commitment": None,
        "rematch_of": None,
        "rematch": None,
        "expires_at": None,
    }


def event(event_id: int, kind: str, **fields: Any) -> dict[str, Any]:
    status = "finished" if kind == "game_finished" else "playing"
    return {"id": event_id, "type": kind, "version": event_id + 1, "game": game_state(status, event_id + 1), **fields}


CARD = {"seat": 0, "card": "ace-coins", "cause": "player", "hand_number": 1, "trick_number": 1}
FINISHED = {"winner": 0, "scores": [15, 3, 2]}


def sse(*events: dict[str, Any], retry: int | None = 7) -> bytes:
    """Events as the server frames them, with a heartbeat."""
    text = f"retry: {retry}\n\n" if retry is not None else ""
    for item in events:
        text += f"id: {item['id']}\nevent: {item['type']}\ndata: {json.dumps(item)}\n\n: keep-alive\n\n"
    return text.encode()


class Script:
    """The server's answers, one per request, in order; records each request."""

    def __init__(self, *answers: Callable[[httpx.Request], httpx.Response]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        assert self.answers, f"an unexpected request: {request.method} {request.url}"
        return self.answers.pop(0)(request)


def stream(body: bytes, then: Exception | None = None, chunk: int = 5) -> Callable[[httpx.Request], httpx.Response]:
    """A 200 event stream sent in small chunks; ``then``: the connection fails after the body."""

    class Chunks(httpx.SyncByteStream, httpx.AsyncByteStream):  # for httpx.Client and httpx.AsyncClient
        def __iter__(self) -> Iterator[bytes]:
            for start in range(0, len(body), chunk):
                yield body[start : start + chunk]
            if then is not None:
                raise then

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for part in self:
                yield part

    return lambda request: httpx.Response(200, headers={"Content-Type": "text/event-stream"}, stream=Chunks())


def problem(status: int, code: str, retry_after: int | None = None) -> Callable[[httpx.Request], httpx.Response]:
    body = {"type": f"urn:coins:problem:{code}", "title": code, "status": status, "detail": code, "code": code}
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
    return lambda request: httpx.Response(status, json=body, headers=headers)


def client_for(script: Script, token: str | None = None) -> Client | AuthenticatedClient:
    client: Client | AuthenticatedClient = Client(BASE) if token is None else AuthenticatedClient(BASE, token=token)
    transport = httpx.MockTransport(script)
    client.set_httpx_client(httpx.Client(base_url=BASE, transport=transport, headers=_auth(token)))
    client.set_async_httpx_client(httpx.AsyncClient(base_url=BASE, transport=transport, headers=_auth(token)))
    return client


def _auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The readers' pauses between connections, recorded instead of slept."""
    recorded: list[float] = []
    monkeypatch.setattr(time, "sleep", recorded.append)

    async def no_wait(seconds: float) -> None:
        recorded.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", no_wait)
    return recorded


def test_typed_events_in_order_unknown_types_skipped_and_the_feed_ends_after_game_finished(pauses: list[float]) -> None:
    body = sse(
        event(0, "game", hand=None),
        event(1, "card_played", **CARD),
        event(2, "a_type_from_later", anything=[1, 2]),
        event(3, "game_finished", **FINISHED),
        event(4, "card_played", **CARD),  # after the end: never read
    )
    script = Script(stream(body))
    events = list(follow_game(client_for(script), GAME_ID))
    assert [type(item) for item in events] == [GameEvent, CardPlayedEvent, GameFinishedEvent]
    assert [item.id for item in events] == [0, 1, 3]
    assert isinstance(events[1], CardPlayedEvent) and events[1].card == "ace-coins"
    request = script.requests[0]
    assert request.url.path == f"/v1/games/{GAME_ID}/events"
    assert request.headers["Accept"] == "text/event-stream"
    assert "Last-Event-ID" not in request.headers
    assert pauses == []


def test_unlisted_true_yields_an_unknown_type_as_unlisted_feed_event() -> None:
    script = Script(stream(sse(event(5, "a_type_from_later"), event(6, "game_finished", **FINISHED))))
    events = list(follow_game(client_for(script), GAME_ID, last_event_id=4, unlisted=True))
    assert isinstance(events[0], UnlistedFeedEvent) and events[0].type_ == "a_type_from_later"
    assert isinstance(events[1], GameFinishedEvent)
    assert script.requests[0].headers["Last-Event-ID"] == "4"


def test_a_dropped_connection_resumes_after_the_last_event_with_the_servers_retry_delay(pauses: list[float]) -> None:
    script = Script(
        stream(
            sse(event(0, "game", hand=None), event(1, "card_played", **CARD), retry=1500), then=httpx.ReadError("reset")
        ),
        stream(sse(event(2, "a_type_from_later"), retry=None)),  # then the server closes: a restart
        stream(sse(event(3, "game_finished", **FINISHED), retry=None)),
    )
    events = list(follow_game(client_for(script, token="seat-token"), GAME_ID))
    assert [item.id for item in events] == [0, 1, 3]
    assert [request.headers.get("Last-Event-ID") for request in script.requests] == [None, "1", "2"]
    assert all(request.headers["Authorization"] == "Bearer seat-token" for request in script.requests)
    # The server's retry (1.5 s), with up to half again as jitter; an event in between resets the backoff.
    assert len(pauses) == 2 and all(1.5 <= pause <= 2.25 for pause in pauses)


def test_failures_in_a_row_back_off_then_the_reader_gives_up_with_feed_lost(pauses: list[float]) -> None:
    script = Script(
        stream(sse(event(0, "game", hand=None), retry=1000)),
        *[stream(b": keep-alive\n\n", then=httpx.ReadTimeout("silent")) for _ in range(4)],
    )
    reader = follow_game(client_for(script), GAME_ID, max_attempts=4)
    assert isinstance(next(reader), GameEvent)
    with pytest.raises(FeedLost) as lost:
        list(reader)
    assert lost.value.last_event_id == 0
    assert [request.headers.get("Last-Event-ID") for request in script.requests] == [None, "0", "0", "0", "0"]
    assert len(pauses) == 4
    assert [round(pause / base, 3) <= 1.5 for pause, base in zip(pauses, [1, 2, 4, 8], strict=True)] == [True] * 4
    assert all(pause >= base for pause, base in zip(pauses, [1, 2, 4, 8], strict=True))


def test_busy_servers_retry_after_is_waited_and_a_problem_retrying_cannot_fix_is_raised(pauses: list[float]) -> None:
    script = Script(problem(503, "too_many_streams", retry_after=9), problem(404, "game_not_found"))
    with pytest.raises(ProblemError) as refused:
        list(follow_game(client_for(script), GAME_ID))
    assert refused.value.status == 404
    assert refused.value.problem is not None and refused.value.problem.code == "game_not_found"
    assert len(pauses) == 1 and pauses[0] >= 9


def test_the_long_poll_pages_through_the_events_with_after() -> None:
    pages = [
        {"items": [event(0, "game", hand=None)], "last_id": 0},
        {"items": [], "last_id": 0},  # `wait` ran out: the reader asks whether the game is over (it is not)
        game_state("playing"),
        {"items": [event(1, "card_played", **CARD), event(2, "a_type_from_later")], "last_id": 2},
        {"items": [event(3, "game_finished", **FINISHED)], "last_id": 3},
    ]
    script = Script(*[lambda request, page=page: httpx.Response(200, json=page) for page in pages])
    events = list(follow_game(client_for(script), GAME_ID, long_poll=True))
    assert [item.id for item in events] == [0, 1, 3]
    polls = [request for request in script.requests if request.url.path.endswith("/events")]
    assert [request.url.params.get("after") for request in polls] == [None, "0", "0", "2"]
    assert all(request.url.params["wait"] == "25" for request in polls)
    assert all(request.headers["Accept"] == "application/json" for request in polls)
    assert script.requests[2].url.path == f"/v1/games/{GAME_ID}"


def answer(body: dict[str, Any]) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(200, json=body)


@pytest.mark.parametrize("long_poll", [False, True])
def test_resuming_after_the_last_event_of_a_game_over_ends_the_feed_at_once(
    pauses: list[float], long_poll: bool
) -> None:
    # The server has nothing after game_finished: the stream ends empty, the page comes back empty.
    nothing = answer({"items": [], "last_id": 3}) if long_poll else stream(sse())
    script = Script(nothing, answer(game_state("finished")))
    assert list(follow_game(client_for(script), GAME_ID, last_event_id=3, long_poll=long_poll)) == []
    assert [request.url.path for request in script.requests] == [f"/v1/games/{GAME_ID}/events", f"/v1/games/{GAME_ID}"]
    assert pauses == []


def test_a_stream_that_ends_with_nothing_new_on_a_game_in_play_resumes(pauses: list[float]) -> None:
    script = Script(stream(sse()), answer(game_state("playing")), stream(sse(event(4, "game_finished", **FINISHED))))
    events = list(follow_game(client_for(script), GAME_ID, last_event_id=3))
    assert [item.id for item in events] == [4]
    assert script.requests[2].headers["Last-Event-ID"] == "3"
    assert len(pauses) == 1


def test_the_async_reader_ends_a_resumed_feed_of_a_game_over_too(pauses: list[float]) -> None:
    script = Script(stream(sse()), answer(game_state("finished")))

    async def read() -> list[Any]:
        return [item async for item in afollow_game(client_for(script), GAME_ID, last_event_id=3)]

    assert asyncio.run(read()) == []
    assert pauses == []


def test_the_player_feed_yields_its_own_types() -> None:
    turn = {
        "id": 5,
        "type": "your_turn",
        "game": GAME_ID,
        "seat": 1,
        "action": "a_new_action",  # an enum value from later: kept as a string
        "version": 2,
        "turn_deadline": None,
        "state": game_state(),
        "hand": {"seat": 1, "hand_number": 1, "cards": ["ace-coins"]},
    }
    script = Script(stream(sse({"id": 4, "type": "from_later"}, turn, {"id": 6, "type": "from_later"})))
    reader = follow_player(client_for(script, token="cpk_key"))  # type: ignore[arg-type]
    first = next(reader)
    reader.close()
    assert isinstance(first, YourTurnEvent) and first.action == "a_new_action"
    assert first.hand is not None and first.hand.cards == ["ace-coins"]
    assert first.state is not None and first.state.id == GAME_ID
    assert script.requests[0].url.path == "/v1/players/me/events"


def test_the_async_reader_resumes_too(pauses: list[float]) -> None:
    script = Script(
        stream(sse(event(0, "game", hand=None)), then=httpx.RemoteProtocolError("incomplete chunked read")),
        stream(sse(event(1, "game_finished", **FINISHED))),
    )

    async def read() -> list[Any]:
        return [item async for item in afollow_game(client_for(script), GAME_ID)]

    events = asyncio.run(read())
    assert [type(item) for item in events] == [GameEvent, GameFinishedEvent]
    assert script.requests[1].headers["Last-Event-ID"] == "0"
    assert len(pauses) == 1
