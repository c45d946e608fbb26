"""Typed readers of the service's event feeds: a game's (``GET /v1/games/{id}/events``) and a
player's own (``GET /v1/players/me/events``).

    from coins_client import AuthenticatedClient
    from coins_client.events import follow_player
    from coins_client.models import YourTurnEvent

    me = AuthenticatedClient(base_url="http://127.0.0.1:8000", token=player_key)
    for event in follow_player(me):
        if isinstance(event, YourTurnEvent):
            ...

Each reader yields the generated model of each event type this version of the spec lists
(``GameEvent``, ``CardPlayedEvent``, ``YourTurnEvent`` …) and skips the types it does not list
(types are added within v1; ``unlisted=True`` yields those as ``UnlistedFeedEvent`` /
``UnlistedPlayerEvent`` instead). It reads the Server-Sent Events stream (``long_poll=True``: the
long poll of the same URL, where a stream does not get through), and when the connection drops
it reconnects after the server's ``retry`` delay (doubled on each failure in a row, with jitter)
and resumes with ``Last-Event-ID``: no event is lost or repeated. A connection silent for
``silence_timeout`` seconds (the server sends a heartbeat at least every 20 s) counts as dropped.
After ``max_attempts`` failures in a row without an event it raises ``FeedLost``; an answer that
retrying cannot change (``401 invalid_token``, ``404 game_not_found`` …) raises ``ProblemError``.

A game's feed ends after ``game_finished`` or ``game_cancelled`` (or, on a game already over, after
its ``game`` event, or at once when it resumes after the game's last event: a stream that ends with
nothing new, or an empty long-poll page, makes the reader ask the game's state, and a game over ends
the feed); a player's feed goes on until you stop reading (``break``) or its key is replaced (then
``ProblemError`` with ``invalid_key``).

``afollow_game`` and ``afollow_player`` are the same on asyncio (the client's async httpx client).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeAlias, TypeVar
from urllib.parse import quote

import httpx

from .client import AuthenticatedClient, Client
from .models import (
    CardPlayedEvent,
    ChallengeReceivedEvent,
    GameCancelledEvent,
    GameEvent,
    GameFinishedEvent,
    GameResultEvent,
    GameStartedEvent,
    GameStatus,
    HandDealtEvent,
    HandEndedEvent,
    HandEvent,
    MatchFoundEvent,
    PlayerGameCancelledEvent,
    PlayerStateEvent,
    Problem,
    RematchCreatedEvent,
    RematchOfferedEvent,
    SeatLeftEvent,
    SeatTakenEvent,
    TrickWonEvent,
    UnlistedFeedEvent,
    UnlistedPlayerEvent,
    YourTurnEvent,
)
from .sse import SSEDecoder

FeedEvent: TypeAlias = (
    GameEvent
    | SeatTakenEvent
    | SeatLeftEvent
    | HandDealtEvent
    | HandEvent
    | CardPlayedEvent
    | TrickWonEvent
    | HandEndedEvent
    | GameFinishedEvent
    | RematchCreatedEvent
    | GameCancelledEvent
    | UnlistedFeedEvent
)
"""An event of a game's feed."""

PlayerEvent: TypeAlias = (
    PlayerStateEvent
    | MatchFoundEvent
    | GameStartedEvent
    | YourTurnEvent
    | GameResultEvent
    | RematchOfferedEvent
    | ChallengeReceivedEvent
    | PlayerGameCancelledEvent
    | UnlistedPlayerEvent
)
"""An event of a player's own feed."""

# The types the spec lists (FeedEvent's and PlayerEvent's discriminator mappings), each with its model.
FEED_EVENT_TYPES: Mapping[str, Any] = {
    "game": GameEvent,
    "seat_taken": SeatTakenEvent,
    "seat_left": SeatLeftEvent,
    "hand_dealt": HandDealtEvent,
    "hand": HandEvent,
    "card_played": CardPlayedEvent,
    "trick_won": TrickWonEvent,
    "hand_ended": HandEndedEvent,
    "game_finished": GameFinishedEvent,
    "rematch_created": RematchCreatedEvent,
    "game_cancelled": GameCancelledEvent,
}
PLAYER_EVENT_TYPES: Mapping[str, Any] = {
    "player": PlayerStateEvent,
    "match_found": MatchFoundEvent,
    "game_started": GameStartedEvent,
    "your_turn": YourTurnEvent,
    "game_result": GameResultEvent,
    "rematch_offered": RematchOfferedEvent,
    "challenge_received": ChallengeReceivedEvent,
    "game_cancelled": PlayerGameCancelledEvent,
}

DEFAULT_RETRY_SECONDS = 2.0  # until the server says (it sends `retry: 2000`)
MAX_BACKOFF_SECONDS = 30.0
SILENCE_TIMEOUT_SECONDS = 30.0  # heartbeats come at least every 20 s
CONNECT_TIMEOUT_SECONDS = 10.0
LONG_POLL_WAIT_SECONDS = 25  # the server's `wait` is at most 30
MAX_ATTEMPTS = 8
RETRIABLE_STATUSES = frozenset({429, 500, 502, 503, 504})

Event = TypeVar("Event")


class ProblemError(Exception):
    """The server refused the feed with a problem that retrying will not change."""

    def __init__(self, status: int, problem: Problem | None) -> None:
        self.status = status
        self.problem = problem
        super().__init__(f"{status} {problem.code}: {problem.detail}" if problem is not None else f"{status}")


class FeedLost(Exception):
    """The feed could not be reached or kept: ``attempts`` connections in a row brought no event."""

    def __init__(self, attempts: int, last_event_id: int | None) -> None:
        self.attempts = attempts
        self.last_event_id = last_event_id
        super().__init__(f"the event feed ended unexpectedly: {attempts} attempts in a row brought no event")


@dataclass
class _Follower(Generic[Event]):
    """What a reader knows across its connections: where to resume, how long to wait, when to give up.
    The sync and async readers share it; they only do the I/O."""

    path: str
    models: Mapping[str, Any]
    unlisted_model: Any
    last_event_id: int | None
    unlisted: bool
    max_attempts: int
    silence_timeout: float
    game_feed: bool
    retry_seconds: float = DEFAULT_RETRY_SECONDS
    failures: int = 0
    finished: bool = False
    answered: bool = False  # the last connection was answered with the feed (200)
    _not_before: float = field(default=0.0)  # a Retry-After's wait, for the next pause

    def game_request(self) -> dict[str, Any]:
        """The game's own state (a game's feed only): asked when a connection brought nothing new."""
        timeout = httpx.Timeout(CONNECT_TIMEOUT_SECONDS, read=self.silence_timeout)
        return {"method": "GET", "url": self.path.removesuffix("/events"), "headers": {}, "timeout": timeout}

    def ended_with_nothing_new(self, resumed_from: int | None) -> bool:
        """A game's feed answered, then ended with no event after ``resumed_from``: is the game over?"""
        return self.game_feed and self.answered and not self.finished and self.last_event_id == resumed_from

    def read_game(self, response: httpx.Response) -> None:
        """A game over ends its feed: resumed after its last event, the server has nothing more to send."""
        over = (GameStatus.FINISHED.value, GameStatus.CANCELLED.value)
        if response.status_code == 200 and response.json().get("status") in over:
            self.finished = True

    def stream_request(self) -> dict[str, Any]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = str(self.last_event_id)
        timeout = httpx.Timeout(CONNECT_TIMEOUT_SECONDS, read=self.silence_timeout)
        return {"method": "GET", "url": self.path, "headers": headers, "timeout": timeout}

    def poll_request(self) -> dict[str, Any]:
        params: dict[str, int] = {"wait": LONG_POLL_WAIT_SECONDS}
        if self.last_event_id is not None:
            params["after"] = self.last_event_id
        timeout = httpx.Timeout(CONNECT_TIMEOUT_SECONDS, read=LONG_POLL_WAIT_SECONDS + self.silence_timeout)
        headers = {"Accept": "application/json"}
        return {"method": "GET", "url": self.path, "params": params, "headers": headers, "timeout": timeout}

    def check(self, response: httpx.Response, body: bytes) -> bool:
        """Whether the answer is the feed (200); False to retry later; raises when retrying cannot help."""
        self.answered = response.status_code == 200
        if self.answered:
            return True
        retry_after = response.headers.get("Retry-After", "")
        if response.status_code in RETRIABLE_STATUSES:
            self._not_before = float(retry_after) if retry_after.isdigit() else 0.0
            return False
        try:
            problem: Problem | None = Problem.from_dict(json.loads(body))
        except (ValueError, KeyError, TypeError):
            problem = None
        raise ProblemError(response.status_code, problem)

    def read(self, data: str, sse_id: str | None = None) -> Event | None:
        """The typed event of one event's JSON (None: a type this version does not list, skipped)."""
        raw = json.loads(data)
        self.failures = 0  # an event came: the connection works
        event_id = raw.get("id") if isinstance(raw.get("id"), int) else None
        if event_id is None and sse_id is not None and sse_id.isdigit():
            event_id = int(sse_id)
        if event_id is not None:
            self.last_event_id = event_id
        model = self.models.get(raw.get("type"))
        if model is None:
            if not self.unlisted:
                return None
            model = self.unlisted_model
        event: Event = model.from_dict(raw)
        if self.game_feed and _ends_game_feed(event):
            self.finished = True
        return event

    def take(self, decoder: SSEDecoder, chunk: bytes) -> list[Event]:
        """The events one chunk of a stream completes (none past the end of a game's feed)."""
        messages = decoder.feed(chunk)
        if decoder.retry_ms is not None:
            self.retry_seconds = decoder.retry_ms / 1000
        events: list[Event] = []
        for message in messages:
            event = self.read(message.data, message.id)
            if event is not None:
                events.append(event)
            if self.finished:
                break
        return events

    def pause(self, error: BaseException | None) -> float:
        """After a failed or ended connection: the seconds to wait before the next one (or FeedLost)."""
        self.failures += 1
        if self.failures > self.max_attempts:
            raise FeedLost(self.max_attempts, self.last_event_id) from error
        backoff = min(MAX_BACKOFF_SECONDS, self.retry_seconds * 2.0 ** (self.failures - 1))
        wait = max(backoff * random.uniform(1.0, 1.5), self._not_before)
        self._not_before = 0.0
        return wait


def _ends_game_feed(event: object) -> bool:
    """A game's stream closes after `game_finished` or `game_cancelled`, or after the `game` event of a
    game already over (or cancelled)."""
    if isinstance(event, GameFinishedEvent | GameCancelledEvent):
        return True
    return isinstance(event, GameEvent) and event.game.status in (GameStatus.FINISHED, GameStatus.CANCELLED)


def _game_follower(
    game_id: str, last_event_id: int | None, unlisted: bool, max_attempts: int, silence_timeout: float
) -> _Follower[FeedEvent]:
    path = f"/v1/games/{quote(game_id, safe='')}/events"
    models, unlisted_model = FEED_EVENT_TYPES, UnlistedFeedEvent
    return _Follower(path, models, unlisted_model, last_event_id, unlisted, max_attempts, silence_timeout, True)


def _player_follower(
    last_event_id: int | None, unlisted: bool, max_attempts: int, silence_timeout: float
) -> _Follower[PlayerEvent]:
    path, models, unlisted_model = "/v1/players/me/events", PLAYER_EVENT_TYPES, UnlistedPlayerEvent
    return _Follower(path, models, unlisted_model, last_event_id, unlisted, max_attempts, silence_timeout, False)


NETWORK_ERRORS = (httpx.TransportError, httpx.StreamError)


def follow_game(
    client: Client | AuthenticatedClient,
    game_id: str,
    *,
    last_event_id: int | None = None,
    long_poll: bool = False,
    unlisted: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
    silence_timeout: float = SILENCE_TIMEOUT_SECONDS,
) -> Iterator[FeedEvent]:
    """A game's events in order, none missing or repeated, until the game is over.

    ``client``: an ``AuthenticatedClient`` with a seat's token also gets that seat's private events
    (``hand``, and the ``game`` event's ``hand``). ``last_event_id``: resume after that event
    (without it the feed starts with the ``game`` event, the whole current state).
    """
    follower = _game_follower(game_id, last_event_id, unlisted, max_attempts, silence_timeout)
    return _follow(client, follower, long_poll)


def follow_player(
    client: AuthenticatedClient,
    *,
    last_event_id: int | None = None,
    long_poll: bool = False,
    unlisted: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
    silence_timeout: float = SILENCE_TIMEOUT_SECONDS,
) -> Iterator[PlayerEvent]:
    """Your own feed (``client`` holds your player key): the ``player`` event, then every event that
    concerns you (``your_turn`` carries the game's ``state`` and your ``hand``), until you stop."""
    follower = _player_follower(last_event_id, unlisted, max_attempts, silence_timeout)
    return _follow(client, follower, long_poll)


def _follow(client: Client | AuthenticatedClient, follower: _Follower[Event], long_poll: bool) -> Iterator[Event]:
    http = client.get_httpx_client()
    connection = _poll if long_poll else _stream
    while not follower.finished:
        error: BaseException | None = None
        resumed_from, follower.answered = follower.last_event_id, False
        try:
            yield from connection(http, follower)
            if follower.ended_with_nothing_new(resumed_from):  # a game over ends it; else resume as after a drop
                follower.read_game(http.request(**follower.game_request()))
        except NETWORK_ERRORS as failure:
            error = failure
        if follower.finished:
            return
        time.sleep(follower.pause(error))


def _stream(http: httpx.Client, follower: _Follower[Event]) -> Iterator[Event]:
    """One connection of the stream: its events until it ends (or the game's feed is over)."""
    request = follower.stream_request()
    with http.stream(**request) as response:
        if not follower.check(response, response.read() if response.status_code != 200 else b""):
            return
        decoder = SSEDecoder()
        for chunk in response.iter_bytes():
            yield from follower.take(decoder, chunk)
            if follower.finished:
                return


def _poll(http: httpx.Client, follower: _Follower[Event]) -> Iterator[Event]:
    """Long polls while they answer: each page's events, then the next page after them."""
    while not follower.finished:
        response = http.request(**follower.poll_request())
        if not follower.check(response, response.content):
            return
        yield from _page(follower, response)
        if follower.game_feed and not response.json()["items"]:  # `wait` ran out, or the game is over
            follower.read_game(http.request(**follower.game_request()))


def _page(follower: _Follower[Event], response: httpx.Response) -> Iterator[Event]:
    page = response.json()
    follower.failures = 0  # a page came: the connection works, even an empty one
    for item in page["items"]:
        event = follower.read(json.dumps(item))
        if event is not None:
            yield event
        if follower.finished:
            return
    follower.last_event_id = page["last_id"]


def afollow_game(
    client: Client | AuthenticatedClient,
    game_id: str,
    *,
    last_event_id: int | None = None,
    long_poll: bool = False,
    unlisted: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
    silence_timeout: float = SILENCE_TIMEOUT_SECONDS,
) -> AsyncIterator[FeedEvent]:
    """``follow_game`` on asyncio: ``async for event in afollow_game(client, game_id): ...``"""
    follower = _game_follower(game_id, last_event_id, unlisted, max_attempts, silence_timeout)
    return _afollow(client, follower, long_poll)


def afollow_player(
    client: AuthenticatedClient,
    *,
    last_event_id: int | None = None,
    long_poll: bool = False,
    unlisted: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
    silence_timeout: float = SILENCE_TIMEOUT_SECONDS,
) -> AsyncIterator[PlayerEvent]:
    """``follow_player`` on asyncio: ``async for event in afollow_player(client): ...``"""
    follower = _player_follower(last_event_id, unlisted, max_attempts, silence_timeout)
    return _afollow(client, follower, long_poll)


async def _afollow(
    client: Client | AuthenticatedClient, follower: _Follower[Event], long_poll: bool
) -> AsyncIterator[Event]:
    http = client.get_async_httpx_client()
    while not follower.finished:
        error: BaseException | None = None
        resumed_from, follower.answered = follower.last_event_id, False
        try:
            if long_poll:
                async for event in _apoll(http, follower):
                    yield event
            else:
                async for event in _astream(http, follower):
                    yield event
            if follower.ended_with_nothing_new(resumed_from):  # a game over ends it; else resume as after a drop
                follower.read_game(await http.request(**follower.game_request()))
        except NETWORK_ERRORS as failure:
            error = failure
        if follower.finished:
            return
        await asyncio.sleep(follower.pause(error))


async def _astream(http: httpx.AsyncClient, follower: _Follower[Event]) -> AsyncIterator[Event]:
    async with http.stream(**follower.stream_request()) as response:
        if not follower.check(response, await response.aread() if response.status_code != 200 else b""):
            return
        decoder = SSEDecoder()
        async for chunk in response.aiter_bytes():
            for event in follower.take(decoder, chunk):
                yield event
            if follower.finished:
                return


async def _apoll(http: httpx.AsyncClient, follower: _Follower[Event]) -> AsyncIterator[Event]:
    while not follower.finished:
        response = await http.request(**follower.poll_request())
        if not follower.check(response, response.content):
            return
        for event in _page(follower, response):
            yield event
        if follower.game_feed and not response.json()["items"]:  # `wait` ran out, or the game is over
            follower.read_game(await http.request(**follower.game_request()))
