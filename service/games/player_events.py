"""A player's own events: what a change to a game means for each player seated in it, and how it is stored.

The game's domain events (:mod:`.domain_events`) tell what happened in one game; a player's
events tell a player what concerns them, across their games: a game they sit in started, it is
their turn, a game ended (their place and score), a rematch was offered, quick play found them a
game. :func:`player_events_of` derives them from a change's domain events, as the change is queued
for saving (:meth:`.EventLog.queue`); they are written to the game's outbox in the change's own
transaction, and the worker delivers them to each player's feed (:meth:`.StoreSession.deliver_outbox`).
They live with the games' use cases because a game's change derives them, and their payloads are
the games' projections; what the players' subject appends on its own (quick play's ``match_found``,
the ratings' ``game_result``) is :mod:`service.players.feeds`' and :mod:`service.quickplay`'s. A game without a player seated (anonymous seats and bots only) makes none, at the cost
of one look at its three seats.

Stored like the game's events, as plain JSON values of their fields (:mod:`.plain_values`), the
id being the row's (numbered per player when appended).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from .. import engine, jsonio
from ..engine import Game
from ..ratings import finishing_order
from ..store import StoredGame, StoredPlayerEvent
from .domain_events import (
    CardPlayedEvent,
    DomainEvent,
    EventLog,
    GameCancelledEvent,
    GameFinishedEvent,
    HandDealtEvent,
    RematchCreatedEvent,
    SeatTakenEvent,
)
from .plain_values import from_plain, plain_json
from .projections import public_game
from .results import HandState, PublicGame, ShownRatingChange
from .seats import has_left, is_person

__all__ = [
    "PLAYER_EVENT_TYPES",
    "ChallengeReceivedEvent",
    "GameCancelledPlayerEvent",
    "GameResultEvent",
    "GameStartedEvent",
    "MatchFoundEvent",
    "PlayerEvent",
    "ShownRatingChange",
    "RematchOfferedEvent",
    "YourTurnEvent",
    "decode_player_event",
    "encode_player_event",
    "game_result_events",
    "player_events_of",
    "queue_change",
]

WAITING_FOR_PLAYERS = "waiting_for_players"
WAITING_FOR_DEAL = "waiting_for_deal"
PLAYING = "playing"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerEvent:
    """What every event of a player's feed has: its number in that feed (0 until appended)."""

    TYPE: ClassVar[str]
    id: int = 0

    @property
    def type(self) -> str:
        return self.TYPE


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchFoundEvent(PlayerEvent):
    """Quick play matched the player's ticket into a new game."""

    TYPE = "match_found"
    ticket: str
    game: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStartedEvent(PlayerEvent):
    """A game the player sits in started: its third seat was taken (or it was created full)."""

    TYPE = "game_started"
    game: str
    version: int
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class YourTurnEvent(PlayerEvent):
    """The player's seat is to act (``action``: deal or play) after a change by anyone, with what
    the move needs: the game's public state and, to play, the seat's own cards (never another's)."""

    TYPE = "your_turn"
    game: str
    version: int
    seat: int
    action: str  # "deal" or "play"
    turn_deadline: datetime | None
    state: PublicGame | None = None  # None only in events stored before they carried it
    hand: HandState | None = None  # the seat's own cards to play; None when the action is a deal


@dataclass(frozen=True, slots=True, kw_only=True)
class GameResultEvent(PlayerEvent):
    """A game the player sat in is over: every seat's place (1 the winner; equal scores tie) and score."""

    TYPE = "game_result"
    game: str
    version: int
    seat: int
    place: int
    places: tuple[int, ...]
    scores: tuple[int, ...]
    rated: bool
    rating: ShownRatingChange | None
    void: bool = False  # a rated game a seat left before playing a card: it rated nobody


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchOfferedEvent(PlayerEvent):
    """Another seat of a finished game the player sat in asked for its rematch."""

    TYPE = "rematch_offered"
    game: str
    version: int
    seat: int
    rematch: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeReceivedEvent(PlayerEvent):
    """Another player challenged the player: ``seat`` of the new game ``game`` is reserved for them
    until ``expires_at`` (accept by joining it as ``me``, decline by leaving it as ``me``)."""

    TYPE = "challenge_received"
    game: str
    version: int
    seat: int
    challenger: str  # the challenger's player id
    expires_at: datetime
    state: PublicGame


@dataclass(frozen=True, slots=True, kw_only=True)
class GameCancelledPlayerEvent(PlayerEvent):
    """A game the player sat in, or had a seat reserved in, was cancelled before it started."""

    TYPE = "game_cancelled"
    game: str
    version: int
    seat: int
    reason: str  # "declined" or "expired"


#: Every type of stored player event, by its ``type`` (the ``player`` event is made when read).
PLAYER_EVENT_TYPES: dict[str, type[PlayerEvent]] = {
    cls.TYPE: cls
    for cls in (
        MatchFoundEvent,
        GameStartedEvent,
        YourTurnEvent,
        GameResultEvent,
        RematchOfferedEvent,
        ChallengeReceivedEvent,
        GameCancelledPlayerEvent,
    )
}


def encode_player_event(player_id: str, event: PlayerEvent, now: datetime) -> StoredPlayerEvent:
    """The event's stored form, for the player's feed (numbered when appended)."""
    return StoredPlayerEvent(player_id, 0, event.TYPE, plain_json(event), now)


def decode_player_event(stored: StoredPlayerEvent) -> PlayerEvent:
    """The player event a row holds, with the row's id (the inverse of :func:`encode_player_event`)."""
    plain = jsonio.loads(stored.data)
    plain["id"] = stored.id
    return from_plain(PLAYER_EVENT_TYPES[stored.type], plain)


def queue_change(log: EventLog, stored: StoredGame, now: datetime, game: Game | None = None) -> None:
    """Queue a change's events on the stored game, to be saved with it, and its players' events, to
    be appended once it has committed. ``game``: the engine's game of a table that starts full (a
    new game, a rematch), whose start may log no event."""
    log.queue(stored, now)
    stored.new_player_events = player_events_of(stored, log.events, now, game)


def player_events_of(
    stored: StoredGame, events: Sequence[DomainEvent], now: datetime, game: Game | None = None
) -> list[StoredPlayerEvent]:
    """What the change whose domain events are ``events`` (in order) means for the players seated
    in ``stored`` (as it is after the change): its game started, a player's seat is to act anew
    (after a deal, a card or the start: ``your_turn``), a finished unrated game's result, a rematch
    offered to the seats that did not ask for it (the caller, when a player's key asked). A rated
    game's results come from the ratings (:func:`game_result_events`), but a void one's, which rates
    nobody, as it ends."""
    seated = {
        seat.seat: seat.player_id
        for seat in stored.seats
        if seat.player_id is not None and (is_person(seat) or has_left(seat))
    }
    new_table = not stored.is_stored and stored.status != WAITING_FOR_PLAYERS
    if not seated or not (events or new_table):
        return []
    new: list[tuple[str, PlayerEvent]] = _cancelled(stored, events)
    state = events[-1].game if events else public_game(stored, game)
    started = any(
        isinstance(event, SeatTakenEvent) and event.game.status != WAITING_FOR_PLAYERS for event in events
    ) or (not stored.is_stored and stored.status != WAITING_FOR_PLAYERS)
    if started:
        new += [
            (player, GameStartedEvent(game=stored.id, version=state.version, seat=seat))
            for seat, player in seated.items()
        ]
    moved = started or any(isinstance(event, CardPlayedEvent | HandDealtEvent) for event in events)
    if moved and (turn := _your_turn(stored, state, game)) is not None:
        new.append(turn)
    for event in events:
        if isinstance(event, GameFinishedEvent) and (not stored.rated or stored.void):  # a void one rates nobody
            new += game_result_events(stored, event.version, event.winner, event.scores, None)
        if isinstance(event, RematchCreatedEvent):
            offer = {"game": stored.id, "version": event.version, "rematch": event.rematch}
            new += [
                (player, RematchOfferedEvent(seat=seat, **offer))  # type: ignore[arg-type]
                for seat, player in seated.items()
                if player != stored.caller and is_person(stored.seats[seat])  # a leaver's bot takes its seat
            ]
    return [encode_player_event(player, event, now) for player, event in new]


def _cancelled(stored: StoredGame, events: Sequence[DomainEvent]) -> list[tuple[str, PlayerEvent]]:
    """The ``game_cancelled`` of every player seated in the game or with a seat reserved for them."""
    told = {seat.seat: seat.player_id or seat.reserved_for for seat in stored.seats if not seat.bot}
    return [
        (player, GameCancelledPlayerEvent(game=stored.id, version=event.version, seat=seat, reason=event.reason))
        for event in events
        if isinstance(event, GameCancelledEvent)
        for seat, player in told.items()
        if player is not None
    ]


def _your_turn(stored: StoredGame, state: PublicGame, game: Game | None) -> tuple[str, PlayerEvent] | None:
    """The ``your_turn`` of the seat to act in ``state``, if a player holds it (not a bot, nor the
    server's auto-deal), with that seat's own cards when it is to play (``game``: the engine's game
    after the change, else restored from the stored snapshot)."""
    if state.turn is None or state.status not in (WAITING_FOR_DEAL, PLAYING):
        return None
    if state.status == WAITING_FOR_DEAL and stored.auto_deal:
        return None
    seat = stored.seats[state.turn]
    if seat.player_id is None or not is_person(seat):
        return None
    action = "deal" if state.status == WAITING_FOR_DEAL else "play"
    hand = None
    if action == "play":
        if game is None:
            assert stored.state is not None  # a game being played has its snapshot
            game = engine.from_snapshot(stored.state)
        hand = HandState(seat.seat, game.hand_number, game.hand(seat.seat), state.version, stored.id)
    event = YourTurnEvent(
        game=stored.id,
        version=state.version,
        seat=seat.seat,
        action=action,
        turn_deadline=state.turn_deadline,
        state=state,
        hand=hand,
    )
    return seat.player_id, event


def game_result_events(
    stored: StoredGame,
    version: int,
    winner: int,
    scores: Sequence[int],
    ratings: Mapping[str, ShownRatingChange] | None,
) -> list[tuple[str, PlayerEvent]]:
    """The ``game_result`` of every player who sat in the finished game (one who left too), with
    their rating change from ``ratings`` (by player id; None, or a player missing: not rated). The
    ratings step calls it (:meth:`.PlayerFeeds.game_result`) as a rated game's ratings are applied."""
    finishing = finishing_order(winner, scores, [seat.seat for seat in stored.seats if has_left(seat)])
    rated = ratings is not None
    return [
        (
            seat.player_id,
            GameResultEvent(
                game=stored.id,
                version=version,
                seat=seat.seat,
                place=finishing[seat.seat],
                places=finishing,
                scores=tuple(scores),
                rated=stored.rated,
                rating=ratings.get(seat.player_id) if rated and ratings is not None else None,
                void=stored.void,
            ),
        )
        for seat in stored.seats
        if seat.player_id is not None and (is_person(seat) or has_left(seat))
    ]
