"""Players: identities across games, their keys and profiles, and their own feeds. Imports no Flask.

- :mod:`.operations`: :class:`PlayerService`, the players' use cases (create, profiles, key
  replacement, a player's games), and :mod:`.results`, what they give back;
- :mod:`.accounts`: :class:`Accounts` (deleting one's own) and :class:`Operators` (what
  ``coins-admin`` does: rename, revoke a key, issue one, bar from rated play), each audited;
- :mod:`.feeds`: :class:`PlayerFeeds`, where a reader of a player's feed starts, whether its key
  still holds, and the events other parts append (quick play's, the ratings').

What a game's change means for its players is derived with the change (:mod:`service.games.player_events`),
written to its outbox and delivered by the worker; every use case runs in a unit of work (:mod:`service.work`).
"""

from .accounts import Accounts, OperatorAction, Operators
from .feeds import PlayerFeeds, PlayerFeedStart, PlayerStateEvent, connect_quick_play, connect_ratings
from .operations import PlayerService
from .results import NewKey, PlayerGamePage, Profile

__all__ = [
    "Accounts",
    "NewKey",
    "OperatorAction",
    "Operators",
    "PlayerFeedStart",
    "PlayerFeeds",
    "PlayerGamePage",
    "PlayerService",
    "PlayerStateEvent",
    "Profile",
    "connect_quick_play",
    "connect_ratings",
]
