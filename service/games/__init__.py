"""A game's use cases: create and join games, deal, play, hints, leaving, rematches, and reads. Imports no Flask.

One job a module:

- :mod:`.operations`: :class:`GameService`, the use cases themselves;
- :mod:`.transactions`: how each touches one game (optimistic writes, the game's lock, reads);
- :mod:`.server_moves`: the server's own moves (auto-deals, bots, stand-ins);
- :mod:`.projections`: stored games, actions and tricks as public results (a rated game's seats with their
  rating changes once applied);
- :mod:`.commands` and :mod:`.results`: what the use cases take and give back;
- :mod:`.domain_events`: what happened in a game, as the use cases tell it, and how it is stored
  (:mod:`.plain_values`);
- :mod:`.player_events`: what a change means for the players seated in it, written to the game's
  outbox with the change (their feeds are :mod:`service.players`');
- :mod:`.seating`: taking seats (createGame's, joinGame), for persons, players and bots;
  :mod:`.rated`: who may sit at a rated game, its clock, when it is void (the games' own rules:
  what the ratings do to its seats is :mod:`service.ratings.seats`); :mod:`.preconditions`:
  ``If-Match``, a started game;
- :mod:`.reviews`: finished games' reviews, asked for by readers and computed by the worker;
- :mod:`.seats`, :mod:`.tokens` (seat tokens and player keys), :mod:`.cursors`, :mod:`.ids`, :mod:`.errors`.
"""

from .commands import NewGame, NewPlayer
from .domain_events import EVENT_TYPES, DomainEvent, FeedStart, GameEvent, decode_event, encode_event
from .errors import DatabaseUnavailable
from .operations import GameService
from .player_events import (
    PLAYER_EVENT_TYPES,
    ChallengeReceivedEvent,
    GameCancelledPlayerEvent,
    GameResultEvent,
    GameStartedEvent,
    MatchFoundEvent,
    PlayerEvent,
    RematchOfferedEvent,
    ShownRatingChange,
    YourTurnEvent,
    decode_player_event,
)
from .rated import RATED_TURN_TIMEOUT_SECONDS
from .results import STATUSES, WAITING_FOR_PLAYERS, etag_for
from .reviews import CandidateValue, GameReview, PendingReview, ReviewedPlay
from .server_moves import BOTS_ONLY_EXPERT_PLAYOUTS, STAND_IN, WORKER_STRENGTHS, Pace
from .tokens import hash_token, player_key_hash

__all__ = [
    "Pace",
    "CandidateValue",
    "GameReview",
    "PendingReview",
    "ReviewedPlay",
    "decode_player_event",
    "YourTurnEvent",
    "RematchOfferedEvent",
    "ChallengeReceivedEvent",
    "GameCancelledPlayerEvent",
    "ShownRatingChange",
    "PlayerEvent",
    "MatchFoundEvent",
    "GameStartedEvent",
    "GameResultEvent",
    "PLAYER_EVENT_TYPES",
    "BOTS_ONLY_EXPERT_PLAYOUTS",
    "RATED_TURN_TIMEOUT_SECONDS",
    "EVENT_TYPES",
    "STAND_IN",
    "WORKER_STRENGTHS",
    "STATUSES",
    "WAITING_FOR_PLAYERS",
    "DatabaseUnavailable",
    "DomainEvent",
    "FeedStart",
    "GameEvent",
    "GameService",
    "NewGame",
    "NewPlayer",
    "decode_event",
    "encode_event",
    "etag_for",
    "hash_token",
    "player_key_hash",
]
