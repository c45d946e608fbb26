"""What the use cases take: a new game and the players who take its seats, checked on construction."""

from __future__ import annotations

from dataclasses import dataclass

from .. import engine
from ..bots import STRENGTHS

__all__ = ["NewGame", "NewPlayer"]


@dataclass(frozen=True, slots=True)
class NewPlayer:
    """A person (name, optional age), a bot (strength, optional name), or a player: the caller
    (``me``: the one whose key the request carries, resolved by the use case) or one known by
    ``player_id`` (with their profile's name), taking a seat."""

    name: str | None = None
    age: int | None = None
    bot: str | None = None
    player_id: str | None = None
    me: bool = False
    barred: bool = False  # the player is barred from rated play (an operator's decision)
    #: A seat reserved for the player ``player_id`` (a challenge): kept for them until they take it.
    reserved: bool = False

    def __post_init__(self) -> None:
        if self.bot is not None and self.bot not in STRENGTHS:
            raise ValueError(f"bot must be one of {', '.join(STRENGTHS)}")
        if self.bot is None and not self.name and not self.me and not self.reserved:
            raise ValueError("a player needs a name")
        if self.reserved and self.player_id is None:
            raise ValueError("a seat is reserved for a player named by id")
        if self.me and (self.bot is not None or self.player_id is not None):
            raise ValueError("the caller's seat is neither a bot's nor another player's")

    @property
    def anonymous(self) -> bool:
        """A person with a name only, who gets a seat token (no player holds the seat)."""
        return self.bot is None and self.player_id is None and not self.me

    @property
    def display_name(self) -> str:
        return self.name or f"{(self.bot or '').capitalize()} bot"


@dataclass(frozen=True, slots=True)
class NewGame:
    target_score: int = engine.DEFAULT_TARGET
    seats: tuple[NewPlayer | None, NewPlayer | None, NewPlayer | None] = (None, None, None)
    first_dealer: int | None = None
    auto_deal: bool = False
    seed: str | None = None
    turn_timeout_seconds: int | None = None
    rated: bool = False
    #: How long the seats reserved for challenged players wait for them (then the game is cancelled).
    challenge_seconds: int = 86400
