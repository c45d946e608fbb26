"""The use cases: create and join games, deal, play, hints, leaving, and reads. Imports no Flask.

One job a module:

- :mod:`.operations`: :class:`GameService`, the use cases themselves;
- :mod:`.transactions`: how each touches one game (optimistic writes, the game's lock, reads);
- :mod:`.server_moves`: the server's own moves (auto-deals, bots, stand-ins);
- :mod:`.projections`: stored games, actions and tricks as public results;
- :mod:`.commands` and :mod:`.results`: what the use cases take and give back;
- :mod:`.domain_events`: what happened in a game, as the use cases tell it, and how it is stored
  (:mod:`.plain_values`);
- :mod:`.player_events` and :mod:`.player_feeds`: what a change means for the players seated in
  it, and their own feeds;
- :mod:`.unit_of_work`: one use case's transaction, its ``Idempotency-Key`` and its outbox;
- :mod:`.idempotency`: the keys of idempotent retries and the responses kept for them;
- :mod:`.seating`: taking seats (createGame's, joinGame), for persons, players and bots;
  :mod:`.rated`: who may sit at a rated game; :mod:`.preconditions`: ``If-Match``, a started game;
- :mod:`.players`: :class:`PlayerService`, the players' use cases (:mod:`.player_results`);
- :mod:`.rated_result`, :mod:`.rating_apply` and :mod:`.rating_reads`: a rated game's result as it
  finishes, applying it to the players' ratings once, and reading ratings (as shown, with time
  away), histories and the leaderboard (the model is :mod:`service.ratings`');
- :mod:`.queue`: quick play, tickets matched into new games by the rules of :mod:`.matching`;
- :mod:`.seats`, :mod:`.tokens` (seat tokens and player keys), :mod:`.cursors`, :mod:`.ids`, :mod:`.errors`.
"""

from .commands import NewGame, NewPlayer
from .domain_events import EVENT_TYPES, DomainEvent, FeedStart, GameEvent, decode_event, encode_event
from .errors import DatabaseUnavailable, ServiceError
from .idempotency import IdempotencyKeys, KeyClaim, KeyInUse, KeyReused, SavedResponse
from .operations import GameService
from .player_events import (
    PLAYER_EVENT_TYPES,
    GameResultEvent,
    GameStartedEvent,
    MatchFoundEvent,
    PlayerEvent,
    RematchOfferedEvent,
    ShownRatingChange,
    YourTurnEvent,
    decode_player_event,
)
from .player_feeds import PlayerFeeds, PlayerFeedStart, PlayerStateEvent, connect_quick_play, connect_ratings
from .player_results import NewKey, PlayerGamePage, Profile
from .players import PlayerService
from .queue import QueueRequest, QueueService, Ticket
from .rating_apply import AppliedResult, RatingChange, result_applied
from .rating_reads import LeaderboardPage, RatingHistoryPage, RatingReads
from .results import STATUSES, WAITING_FOR_PLAYERS, etag_for
from .server_moves import BOTS_ONLY_EXPERT_PLAYOUTS, STAND_IN
from .tokens import hash_token, player_key_hash
from .unit_of_work import KeyedRequest, UnitOfWork

__all__ = [
    "connect_quick_play",
    "connect_ratings",
    "decode_player_event",
    "YourTurnEvent",
    "RematchOfferedEvent",
    "ShownRatingChange",
    "PlayerStateEvent",
    "PlayerFeedStart",
    "PlayerFeeds",
    "PlayerEvent",
    "MatchFoundEvent",
    "GameStartedEvent",
    "GameResultEvent",
    "PLAYER_EVENT_TYPES",
    "AppliedResult",
    "LeaderboardPage",
    "RatingChange",
    "RatingHistoryPage",
    "RatingReads",
    "result_applied",
    "BOTS_ONLY_EXPERT_PLAYOUTS",
    "EVENT_TYPES",
    "STAND_IN",
    "STATUSES",
    "WAITING_FOR_PLAYERS",
    "DatabaseUnavailable",
    "DomainEvent",
    "FeedStart",
    "GameEvent",
    "GameService",
    "IdempotencyKeys",
    "KeyClaim",
    "KeyedRequest",
    "KeyInUse",
    "KeyReused",
    "NewGame",
    "NewKey",
    "NewPlayer",
    "PlayerGamePage",
    "PlayerService",
    "Profile",
    "QueueRequest",
    "QueueService",
    "SavedResponse",
    "ServiceError",
    "Ticket",
    "UnitOfWork",
    "decode_event",
    "encode_event",
    "etag_for",
    "hash_token",
    "player_key_hash",
]
