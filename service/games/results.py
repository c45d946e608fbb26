"""What the use cases give back: frozen results holding public information only.

Nothing here can hold a card that is still in someone's hand (but a seat's own, for that
seat); the API serialises these results (service.api.schemas) and never sees a game's
secret state.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..engine import Card, CompletedTrick, Play, Status

__all__ = [
    "CANCELLED",
    "WAITING_FOR_PLAYERS",
    "STATUSES",
    "SeatRating",
    "SeatState",
    "ShownRatingChange",
    "TrickState",
    "PublicGame",
    "Credential",
    "Created",
    "Joined",
    "DealResult",
    "PlayResult",
    "HandState",
    "Hint",
    "ActionState",
    "TrickPage",
    "ActionPage",
    "GamePage",
    "GameRecord",
    "Rematch",
    "etag_for",
]

WAITING_FOR_PLAYERS = "waiting_for_players"
#: A game that never started and never will: a reserved seat was declined or ran out (contract 1.3).
CANCELLED = "cancelled"
STATUSES = (WAITING_FOR_PLAYERS, *(status.value for status in Status), CANCELLED)


@dataclass(frozen=True, slots=True)
class SeatRating:
    """A rating as a table shows it: its value on the 1500 scale, and whether it is provisional."""

    value: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class ShownRatingChange:
    """A player's rating as shown (its value on the 1500 scale) before and after a rated game."""

    before: int
    after: int


@dataclass(frozen=True, slots=True)
class SeatState:
    seat: int
    name: str | None
    open: bool
    bot: str | None
    score: int
    cards_in_hand: int
    tricks_won: int
    player: str | None = None  # the seat's player's id (a bot's, or one who left it to a bot)
    rating: SeatRating | None = None  # a rated game's: the player's rating as the game began
    rating_change: ShownRatingChange | None = None  # once the rated result is applied to the player
    reserved_for: str | None = None  # the player the seat is (or was) reserved for


@dataclass(frozen=True, slots=True)
class TrickState:
    """A trick in progress (winner and points None) or a completed one."""

    leader: int
    plays: tuple[Play, ...]
    hand_number: int
    trick_number: int
    winner: int | None = None
    points: int | None = None

    @property
    def complete(self) -> bool:
        return self.winner is not None

    @classmethod
    def of(cls, trick: CompletedTrick) -> TrickState:
        return cls(trick.leader, trick.plays, trick.hand_number, trick.trick_number, trick.winner, trick.points)


@dataclass(frozen=True, slots=True)
class PublicGame:
    """A game as anyone may see it: no card that is still in a hand."""

    id: str
    status: str
    target_score: int
    seeded: bool
    auto_deal: bool
    turn_timeout_seconds: int | None
    turn_deadline: datetime | None
    version: int
    created_at: datetime
    updated_at: datetime
    seats: tuple[SeatState, ...]
    hand_number: int
    dealer: int | None
    turn: int | None
    trick: TrickState | None
    last_trick: TrickState | None
    winner: int | None
    first_dealer: int | None
    first_dealer_chosen_by: str | None
    commitment: str | None
    rematch_of: str | None
    rematch: str | None
    rated: bool = False
    void: bool = False  # rated, but a seat left before playing a card: it rates nobody
    expires_at: datetime | None = None  # waiting for reserved seats: when it is cancelled unless they are taken

    @property
    def etag(self) -> str:
        """The version's tag; and the seats showing a rating change, which come after the game's last version."""
        tag = etag_for(self.id, self.version)
        changes = sum(1 for seat in self.seats if seat.rating_change is not None)
        return f"{tag}.{changes}" if changes else tag


def etag_for(game_id: str, version: int) -> str:
    """The strong entity tag of a game's version (without the quotes)."""
    return f"{game_id}.{version}"


@dataclass(frozen=True, slots=True)
class Credential:
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class Created:
    game: PublicGame
    credentials: tuple[Credential, ...]


@dataclass(frozen=True, slots=True)
class Joined:
    seat: int
    token: str | None  # None for a player's seat: their key acts for it
    game: PublicGame


@dataclass(frozen=True, slots=True)
class DealResult:
    hand_number: int
    dealer: int
    shuffler: int
    cutter: int
    leader: int
    commitment: str
    game: PublicGame


@dataclass(frozen=True, slots=True)
class PlayResult:
    seat: int
    card: Card
    trick: TrickState
    game: PublicGame


@dataclass(frozen=True, slots=True)
class HandState:
    seat: int
    hand_number: int
    cards: tuple[Card, ...]
    version: int
    game_id: str


@dataclass(frozen=True, slots=True)
class Hint:
    seat: int
    card: Card
    strength: str
    reason: str
    version: int
    game_id: str


@dataclass(frozen=True, slots=True)
class ActionState:
    """One entry of a game's public history. A deal's seed shows only once its hand is over."""

    seq: int
    kind: str
    seat: int
    hand_number: int
    cause: str
    created_at: datetime
    card: Card | None
    commitment: str | None
    seed: str | None


@dataclass(frozen=True, slots=True)
class TrickPage:
    game_id: str
    version: int
    tricks: tuple[TrickState, ...]
    next_cursor: str | None

    @property
    def etag(self) -> str:
        return etag_for(self.game_id, self.version)


@dataclass(frozen=True, slots=True)
class ActionPage:
    game_id: str
    version: int
    actions: tuple[ActionState, ...]
    next_cursor: str | None

    @property
    def etag(self) -> str:
        return etag_for(self.game_id, self.version)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game's record (:func:`.game_record.build_record`'s JSON-ready document) at one version."""

    game_id: str
    version: int
    document: dict[str, object]

    @property
    def etag(self) -> str:
        return etag_for(self.game_id, self.version)


@dataclass(frozen=True, slots=True)
class Rematch:
    """A seat's place at a finished game's rematch: the caller's seat, their token for the new
    game (None for a player's seat: their key acts for it), the new game, and whether this call
    created it."""

    seat: int
    token: str | None
    game: PublicGame
    created: bool


@dataclass(frozen=True, slots=True)
class GamePage:
    games: tuple[PublicGame, ...]
    next_cursor: str | None
