"""The coins-client package against the real service (coins-realtime on 127.0.0.1, SQLite): whole games
against bots played from the feeds alone, through connections that are cut, with the public API only."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import pytest
from coins_client import AuthenticatedClient, Client, FeedEvent, ProblemError, afollow_game, follow_game, follow_player
from coins_client.api.games import create_game, get_game
from coins_client.api.hands import deal_hand
from coins_client.api.players import join_game
from coins_client.api.plays import play_card
from coins_client.api.profiles import create_player
from coins_client.models import (
    ActionKind,
    BotStrength,
    Card,
    ChallengeReceivedEvent,
    ChallengeSeat,
    CreatedGame,
    CreateGame,
    Credential,
    DealtHand,
    Game,
    GameEvent,
    GameFinishedEvent,
    GameResultEvent,
    GameStatus,
    HandEvent,
    JoinedGame,
    JoinGameAsPlayer,
    JoinGameAsPlayerPlayer,
    NewBot,
    NewPerson,
    NewPlayerProfile,
    PlayCard,
    PlayerSeat,
    PlayerSeatPlayer,
    PlayerWithKey,
    PlayResult,
    YourTurnEvent,
)

from .conftest import PACKAGE_DIRECTORY, PYTHON_CLIENT
from .cutter import CuttingProxy

pytestmark = pytest.mark.slow  # a server, and whole games

BOTS = [NewBot(bot=BotStrength.BASIC), NewBot(bot=BotStrength.RANDOM)]


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def last_event_ids_sent(proxy: CuttingProxy) -> list[str | None]:
    """The Last-Event-ID each connection through the proxy asked to resume after (None: from the start)."""
    found = [re.search(rb"(?i)\r\nlast-event-id: *([0-9]*)\r\n", sent) for sent in proxy.sent]
    return [match.group(1).decode() if match else None for match in found]


class Seat:
    """A seat that plays from its game's feed alone: its cards from its private events, a move when an
    event's state names it (once per game version)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.cards: list[Card] = []
        self.hand_number: int | None = None
        self.acted_at = 0  # the game version it last moved at

    def move(self, event: FeedEvent) -> Literal["deal"] | Card | None:
        """What to do after ``event``: deal, play that card, or nothing."""
        if isinstance(event, GameEvent) and event.hand is not None:
            self.cards, self.hand_number = list(event.hand.cards), event.hand.hand_number
        elif isinstance(event, HandEvent):
            self.cards, self.hand_number = list(event.cards), event.hand_number
        game = event.game
        if game.turn != self.seat or game.version <= self.acted_at or event.version != game.version:
            return None
        if game.status == GameStatus.WAITING_FOR_DEAL:
            self.acted_at = game.version
            return "deal"
        if game.status == GameStatus.PLAYING and self.cards and game.hand_number == self.hand_number:
            self.acted_at = game.version
            return self.cards.pop(0)
        return None


def seat_game(server_url: str) -> tuple[str, Credential]:
    """A new game of a person (Ana, whose seat's credential it answers) and two bots."""
    body = CreateGame(seats=[NewPerson(name="Ana"), *BOTS], target_score=5)
    created = create_game.sync(client=Client(server_url), body=body)
    assert isinstance(created, CreatedGame), created
    (credential,) = created.credentials
    return created.id, credential


def test_a_seat_plays_a_whole_game_from_the_game_feed_through_cut_connections(server_url: str) -> None:
    game_id, credential = seat_game(server_url)
    token = AuthenticatedClient(server_url, token=credential.token)
    seat = Seat(credential.seat)
    events: list[FeedEvent] = []
    cut_after: list[int] = []
    with CuttingProxy(port_of(server_url)) as proxy:
        feed = AuthenticatedClient(proxy.url, token=credential.token)  # the stream goes through the proxy
        for event in follow_game(feed, game_id):
            events.append(event)
            move = seat.move(event)
            if move is not None and len(cut_after) < 2 and len(events) > 1:
                cut_after.append(event.id)  # cut before the move: the events it causes come after
                proxy.cut()
            if move == "deal":
                assert isinstance(deal_hand.sync(game_id, client=token), DealtHand)
            elif move is not None:
                assert isinstance(play_card.sync(game_id, client=token, body=PlayCard(card=move)), PlayResult)
        connections = last_event_ids_sent(proxy)

    assert isinstance(events[0], GameEvent)
    assert isinstance(events[-1], GameFinishedEvent)
    final = get_game.sync(game_id, client=token)
    assert isinstance(final, Game) and final.status == GameStatus.FINISHED
    # Three connections: the first, then one after each cut, each resuming after the last event the reader
    # had read (the cut one, or one that came in the same chunk).
    ids = [event.id for event in events]
    assert proxy.cuts == 2 + 1  # two cuts, and the close at the end
    assert len(connections) == 3 and connections[0] is None
    for resumed, cut in zip(connections[1:], cut_after, strict=True):
        assert resumed is not None and int(resumed) in ids and int(resumed) >= cut
    # Nothing lost, nothing repeated: the events after the first are the game's history (the seat's
    # private ones included), as the long poll gives it from the start.
    history = [event.id for event in follow_game(token, game_id, last_event_id=events[0].id, long_poll=True)]
    assert ids[1:] == history
    assert ids == sorted(set(ids))


def test_the_async_reader_plays_a_game_and_reads_a_finished_one(server_url: str) -> None:
    game_id, credential = seat_game(server_url)
    token = AuthenticatedClient(server_url, token=credential.token)
    seat = Seat(credential.seat)

    async def play() -> list[FeedEvent]:
        events = []
        async for event in afollow_game(token, game_id):
            events.append(event)
            move = seat.move(event)
            if move == "deal":
                assert isinstance(await deal_hand.asyncio(game_id, client=token), DealtHand)
            elif move is not None:
                assert isinstance(await play_card.asyncio(game_id, client=token, body=PlayCard(card=move)), PlayResult)
        return events

    async def read_finished() -> list[FeedEvent]:
        return [event async for event in afollow_game(Client(server_url), game_id)]

    events = asyncio.run(play())
    assert isinstance(events[-1], GameFinishedEvent)
    (state,) = asyncio.run(read_finished())  # a game already over: its state, then the feed ends
    assert isinstance(state, GameEvent) and state.game.status == GameStatus.FINISHED


def new_player(server_url: str, name: str) -> AuthenticatedClient:
    return new_player_with_id(server_url, name)[0]


def new_player_with_id(server_url: str, name: str) -> tuple[AuthenticatedClient, str]:
    player = create_player.sync(client=Client(server_url), body=NewPlayerProfile(name=name))
    assert isinstance(player, PlayerWithKey), player
    return AuthenticatedClient(server_url, token=player.key), player.id


def test_a_challenge_is_written_with_the_packages_models_and_accepted(server_url: str) -> None:
    """A seat reserved for another player (``ChallengeSeat``) is one of the typed forms of a seat:
    the challenged player hears of it on their feed and takes it as ``me``."""
    ana, _ = new_player_with_id(server_url, "Challenger")
    bo, bo_id = new_player_with_id(server_url, "Challenged")
    feed = follow_player(bo)
    next(feed)  # the `player` event
    seats = [PlayerSeat(player=PlayerSeatPlayer.ME), ChallengeSeat(player=bo_id), NewBot(bot=BotStrength.BASIC)]
    created = create_game.sync(client=ana, body=CreateGame(seats=seats, target_score=5, turn_timeout_seconds=86_400))
    assert isinstance(created, CreatedGame), created
    assert created.seats[1].reserved_for == bo_id
    received = next(feed)
    feed.close()
    assert isinstance(received, ChallengeReceivedEvent) and received.game == created.id
    joined = join_game.sync(created.id, client=bo, body=JoinGameAsPlayer(player=JoinGameAsPlayerPlayer.ME, seat=1))
    assert isinstance(joined, JoinedGame), joined
    started = get_game.sync(created.id, client=bo)
    assert isinstance(started, Game) and started.status != GameStatus.WAITING_FOR_PLAYERS


@pytest.mark.parametrize("long_poll", [False, True], ids=["stream", "long-poll"])
def test_a_player_plays_a_whole_game_from_their_feed(server_url: str, long_poll: bool) -> None:
    me = new_player(server_url, f"Bea{int(long_poll)}")
    feed = follow_player(me, long_poll=long_poll)
    next(feed)  # the `player` event: what follows is news
    seats = [PlayerSeat(player=PlayerSeatPlayer.ME), *BOTS]
    created = create_game.sync(client=me, body=CreateGame(seats=seats, target_score=5))
    assert isinstance(created, CreatedGame), created

    turns = 0
    for event in feed:
        if isinstance(event, YourTurnEvent) and event.game == created.id:
            turns += 1
            assert event.state is not None and event.state.turn == event.seat
            if event.action == ActionKind.DEAL:
                assert event.hand is None
                assert isinstance(deal_hand.sync(created.id, client=me), DealtHand)
            else:
                assert event.action == ActionKind.PLAY and event.hand is not None
                played = play_card.sync(created.id, client=me, body=PlayCard(card=event.hand.cards[-1]))
                assert isinstance(played, PlayResult), played
        elif isinstance(event, GameResultEvent) and event.game == created.id:
            break
    feed.close()
    assert turns > 0
    final = get_game.sync(created.id, client=me)
    assert isinstance(final, Game) and final.status == GameStatus.FINISHED


def test_a_feed_the_server_refuses_is_a_problem(server_url: str) -> None:
    with pytest.raises(ProblemError) as refused:
        next(follow_game(Client(server_url), "01m8qhcrc96c9c2j46ep4my6k7"))
    assert refused.value.status == 404
    assert refused.value.problem is not None and refused.value.problem.code == "game_not_found"


def test_the_quickstart_plays_a_game(server_url: str) -> None:
    script = PYTHON_CLIENT / "examples" / "quickstart.py"
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_DIRECTORY)}
    result = subprocess.run(
        [sys.executable, str(script), server_url], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "game over: place" in result.stdout


def test_the_readme_shows_the_quickstart_as_it_is() -> None:
    readme = (PYTHON_CLIENT / "README.md").read_text()
    code = (PYTHON_CLIENT / "examples" / "quickstart.py").read_text()
    assert f"```python\n{code}```" in readme
    assert Path(PACKAGE_DIRECTORY).is_dir()
