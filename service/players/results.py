"""What the players' use cases give back: a profile, a new key (shown once), a page of a player's games."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..ratings.reads import Rating

__all__ = ["GamesRecord", "NewKey", "Opponent", "PlayerGame", "PlayerGamePage", "Profile", "Rating"]


@dataclass(frozen=True, slots=True)
class GamesRecord:
    """Finished games the player sat in, and those they won."""

    played: int
    won: int


@dataclass(frozen=True, slots=True)
class Profile:
    """A player as anyone may see them: never their key."""

    id: str
    name: str
    created_at: datetime
    bot: str | None
    rating: Rating
    games: GamesRecord
    challenges: str = "everyone"  # who may challenge the player: "everyone" or "nobody"


@dataclass(frozen=True, slots=True)
class NewKey:
    """A player with their new key: the one result that ever holds a key (created, or replaced)."""

    player: Profile
    key: str


@dataclass(frozen=True, slots=True)
class Opponent:
    """Another seat of one of a player's games, as their list names it: who sits there, and their score."""

    seat: int
    name: str | None  # None: an open seat (or one reserved for a player not yet seated)
    bot: str | None
    player: str | None
    score: int


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """One of a player's games, as their list shows it: where it stands and whether they are to act."""

    id: str
    status: str
    rated: bool
    version: int
    seat: int  # the player's seat (a bot's first one, if it holds several)
    left: bool  # the player left the seat to a bot
    your_turn: bool  # the seat is the one to act now, and still the player's
    turn: int | None
    turn_deadline: datetime | None
    created_at: datetime
    updated_at: datetime
    reserved: bool = False  # the seat is reserved for the player, who has not taken it: a challenge to answer
    reserved_until: datetime | None = None  # when such a seat's reservation runs out (the game is then cancelled)
    score: int = 0  # the player's seat's score
    place: int | None = None  # the player's place once the game is finished (1 is first; a leaver is last)
    opponents: tuple[Opponent, ...] = ()  # the other seats, in seat order


@dataclass(frozen=True, slots=True)
class PlayerGamePage:
    player: str
    games: tuple[PlayerGame, ...]
    next_cursor: str | None
