"""The tables that belong to players, not to games: players, their own feeds, their rating histories and
the opponents they met, the operators' audit of what they did to players; and the secrets the service
made for itself.

Each is keyed by player (or by its own id), not by game id: a game's transaction only reads the
players table (to resolve a key), and the rest is written in transactions of its own (see
:mod:`.models`' docstring for the rule, and each table's docstring for why it is an exception).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Index, Integer, SmallInteger, String, Text, false, text
from sqlalchemy.orm import Mapped, mapped_column

from .models import _CLUSTERED, ADDRESS_HASH_LENGTH, NAME_LENGTH, Base, JsonType, UTCDateTime

__all__ = [
    "AdminActionRow",
    "PlayerEventRow",
    "PlayerFeedRow",
    "PlayerRow",
    "RatingHistoryRow",
    "RatingOpponentRow",
    "ServiceSecretRow",
]

# A history row still to complete (a bot's step 2 of a result), listed by a partial index (see models.PENDING_RESULT).
PENDING_HISTORY = "mu_after IS NULL"


class PlayerRow(Base):
    """A player: one identity across games, with the SHA-256 of their key (a bot strength's
    player has none), and the state of their rating.

    Keyed by player id, not by game id: a player belongs to no game. Games only read it (to
    resolve a key to the seat it holds, within the game's load); it is written by the player's
    own requests (created, key replaced) and by the ratings, never in a game's transaction.
    """

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), nullable=False)
    bot: Mapped[str | None] = mapped_column(String(10), unique=True)  # one player per bot strength
    key_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    mu: Mapped[float] = mapped_column(Float, nullable=False)
    sigma: Mapped[float] = mapped_column(Float, nullable=False)
    rated_games: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    rated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    # Until when the rating is listed on the leaderboard (service.ratings.provisional_from: the
    # moment time away makes it provisional); None while it is provisional. The leaderboard reads
    # the listed players by mu (the displayed value's order) from its partial index.
    listed_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The keyed hash of the address that created the player (service.addresses), never the address.
    address_hash: Mapped[str | None] = mapped_column(String(ADDRESS_HASH_LENGTH))
    # Distinct opponents met in rated games, sharing no address (rating_opponents lists them).
    opponents: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    # The leaderboard may list the player: a bot; or a person with MIN_OPPONENTS opponents, not barred
    # from rated play, not deleted. Ranked while listed_until is ahead, else rising.
    listable: Mapped[bool] = mapped_column(nullable=False, default=False, server_default=false())
    barred_at: Mapped[datetime | None] = mapped_column(UTCDateTime())  # barred from rated play by an operator
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())  # the account was deleted
    # The name predates the rule for names and would be refused now (kept as it was: coins-admin renames).
    legacy_name: Mapped[bool] = mapped_column(nullable=False, default=False, server_default=false())
    # Who may challenge the player (contract 1.3): "everyone" or "nobody".
    challenges: Mapped[str] = mapped_column(String(10), nullable=False, default="everyone", server_default="everyone")

    __table_args__ = (
        Index(
            "ix_players_leaderboard", "mu", "id",
            postgresql_where=text("listed_until IS NOT NULL"), sqlite_where=text("listed_until IS NOT NULL"),
        ),
        Index("ix_players_rising", "mu", "id", postgresql_where=text("listable"), sqlite_where=text("listable = 1")),
    )  # fmt: skip


class RatingHistoryRow(Base):
    """One rated game of one player: their rating before and after it, their place and score.

    Keyed by (player, game): the key makes applying a result idempotent (a second insert of a
    game's rows conflicts). It names its game with no foreign key and holds all a player's
    history shows, so that ``coins-purge`` may delete the game and lose nothing of it. A bot's row
    is written with its game's result and completed (``mu_after``) by the bot's own batch."""

    __tablename__ = "rating_history"
    __table_args__ = (
        Index("ix_rating_history_newest", "player_id", "finished_at", "game_id"),
        Index(
            "ix_rating_history_pending", "player_id", "finished_at",
            postgresql_where=text(PENDING_HISTORY), sqlite_where=text(PENDING_HISTORY),
        ),
        _CLUSTERED,
    )  # fmt: skip

    player_id: Mapped[str] = mapped_column(String(26), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(26), primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    seat: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    place: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    score: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    left: Mapped[bool] = mapped_column(nullable=False)
    # The rating the game started from (sigma grown by the time away) and the rated games it counted.
    mu_before: Mapped[float] = mapped_column(Float, nullable=False)
    sigma_before: Mapped[float] = mapped_column(Float, nullable=False)
    games_before: Mapped[int] = mapped_column(Integer, nullable=False)
    mu_after: Mapped[float | None] = mapped_column(Float)  # None: a bot's row waiting for its batch
    sigma_after: Mapped[float | None] = mapped_column(Float)
    applied_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # How much the game counted for the player, 0 to 1 (service.ratings.fairness): 1 for a game of strangers.
    weight: Mapped[float] = mapped_column(Float, nullable=False, default=1.0, server_default="1")


class RatingOpponentRow(Base):
    """A distinct opponent a player met in a rated game, sharing no address with them (the
    leaderboard's floor counts them: ``players.opponents``). Keyed by (player, opponent), written by
    the ratings' apply step with the player's rating; persons only (bots are listed without it)."""

    __tablename__ = "rating_opponents"
    __table_args__ = _CLUSTERED

    player_id: Mapped[str] = mapped_column(String(26), primary_key=True)
    opponent_id: Mapped[str] = mapped_column(String(26), primary_key=True)


class AdminActionRow(Base):
    """What an operator did to a player with ``coins-admin`` (rename, revoke a key, issue one, bar,
    lift a bar): who, when, why, and the change (never a key). Keyed by a time-sorted id."""

    __tablename__ = "admin_actions"
    __table_args__ = (Index("ix_admin_actions_player_id", "player_id", "id"),)

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    operator: Mapped[str] = mapped_column(String(100), nullable=False)
    action: Mapped[str] = mapped_column(String(20), nullable=False)
    player_id: Mapped[str] = mapped_column(String(26), nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False)
    detail: Mapped[dict[str, Any]] = mapped_column(JsonType, nullable=False)


class ServiceSecretRow(Base):
    """A secret the service made for itself, for installs that do not set it (``ADDRESS_HASH_KEY``'s
    stand-in: service.store.secrets). Set the environment's in production: see docs/security.md."""

    __tablename__ = "service_secrets"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(128), nullable=False)


class PlayerFeedRow(Base):
    """A player's feed: the id of the last event appended to it (see :mod:`service.store.player_events`).

    Keyed by player id, not by game id: a player's feed belongs to the player. It is written after a
    game's change has committed, in a short transaction of its own (never in the game's), which
    numbers the new events on from ``last_id``; no feed row means no event yet."""

    __tablename__ = "player_feeds"
    __table_args__ = _CLUSTERED

    player_id: Mapped[str] = mapped_column(String(26), primary_key=True)
    last_id: Mapped[int] = mapped_column(Integer, nullable=False)


class PlayerEventRow(Base):
    """One event of a player's own feed, numbered from 1 per player: ``data`` holds its own fields as
    plain JSON values (service.games.player_events), rendered on the way out.

    Keyed by (player id, id), not by game id: the event belongs to its player, though it tells of a
    game (its ``game`` field). Written with its feed row's new ``last_id``, in that row's short
    transaction, after the game's change committed; the primary key guards the numbering."""

    __tablename__ = "player_events"
    # The retention purge finds the old events by their time (service.store.purge.purge_feeds).
    __table_args__ = (Index("ix_player_events_created_at", "created_at"), _CLUSTERED)

    player_id: Mapped[str] = mapped_column(String(26), primary_key=True)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    data: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
