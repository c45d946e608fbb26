"""The tables: games, their seats, their append-only action log, their completed tricks, their events,
a rated game's result and review, and what its changes owe players' feeds (the outbox); quick-play
tickets; and, for the HTTP layer's bookkeeping, idempotency keys and rate-limit counters. The
players' tables (players, their own feeds, their rating histories and opponents, the operators'
audit) and the service's own secrets are in :mod:`.player_models`.

Every game table is keyed by game id first, so every transaction touches exactly one game and
the schema can be sharded by game id later. The outbox carries its game's id but is numbered by one
sequence (the worker reads it oldest first across games). The players table, the rating history, the tickets, the
players' feeds and the two bookkeeping tables are the exceptions, each saying why in its docstring:
they belong to callers, not to games. A seat names its player by id with no foreign key (as a
rematch names its game), and a ticket its game: no game's rows are tied to another table's, and a
transaction that changes a game only reads the players table.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Text,
    TypeDecorator,
    false,
    func,
    text,
    true,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

JsonType = JSON().with_variant(JSONB(), "postgresql")

# SQLite keeps a table with a primary key other than one integer as a rowid table plus an index
# on the key: two B-trees to search on a read and to write on an INSERT. The small rows keyed by
# (game_id, …) are kept in one, ordered by their key, instead (WITHOUT ROWID). Not the games:
# a row holding a snapshot is too large for it. Other databases ignore the option.
_CLUSTERED = {"sqlite_with_rowid": False}
NAME_LENGTH = 80  # code points: a name is at most 40 grapheme clusters and 80 code points (service.names)
ADDRESS_HASH_LENGTH = 32  # hex digits of a keyed hash of an address (service.addresses)
# The rows still owed work by the worker, each listed by a partial index (the worker's probe of a pass,
# service.store.due, asks the same of each: a query must say the index's own condition to use it).
PENDING_RESULT = "applied_at IS NULL"
WAITING_TICKET = "status = 'waiting'"
UNSTARTED_TICKET = "status = 'matched' AND NOT game_started"
PENDING_REVIEW = "done_at IS NULL"


class UTCDateTime(TypeDecorator[datetime]):
    """Timestamps stored in UTC and always read back timezone-aware (SQLite keeps no offset)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    """The declarative base of every table."""


class GameRow(Base):
    """One game: its public summary columns (for listing) and the engine's snapshot (secret)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False)
    target_score: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    auto_deal: Mapped[bool] = mapped_column(nullable=False, default=False)
    seed: Mapped[str | None] = mapped_column(String(200))  # the caller's seed: never shown
    requested_first_dealer: Mapped[int | None] = mapped_column(SmallInteger)
    turn_timeout_seconds: Mapped[int | None] = mapped_column(Integer)
    # When the player to act runs out of time (None: no timeout, a bot's turn, or no turn); in a game
    # waiting for a reserved seat, when the reservation runs out (the game is then cancelled).
    turn_deadline: Mapped[datetime | None] = mapped_column(UTCDateTime())
    open_seats: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    trick_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    action_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    event_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    # The engine's snapshot (hands, the hand's seed): None until all three seats are taken.
    # Plain JSON, not JSONB, on PostgreSQL: it is only ever written and read whole, and JSONB
    # would parse its ~3 KB into the binary form (and compress it) on every write and turn it
    # back into text on every read, a third of the server's CPU for a play.
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)

    seats: Mapped[list[SeatRow]] = relationship(
        back_populates="game", order_by="SeatRow.seat", lazy="selectin", cascade="all, delete-orphan"
    )
    # A rematch and the game it follows name each other by id, with no foreign key between the
    # two rows: a key to another game would tie two games' rows together (see the module's docstring).
    rematch_of: Mapped[str | None] = mapped_column(String(26))
    rematch: Mapped[str | None] = mapped_column(String(26))
    rated: Mapped[bool] = mapped_column(nullable=False, default=False, server_default=false())
    winner: Mapped[int | None] = mapped_column(SmallInteger)  # the winning seat, once finished
    # A rated game a seat left (or lapsed out of) before playing a card: it rates nobody.
    void: Mapped[bool] = mapped_column(nullable=False, default=False, server_default=false())
    # Until when a game of bots alone is followed (the real-time role marks the games its streams
    # follow): the worker moves such a game only while it is. A liveness mark, not a change: no
    # version, no event, and a save of the game never writes it.
    followed_until: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        Index("ix_games_status_id", "status", "id"),
        Index("ix_games_turn_deadline", "turn_deadline"),  # the worker's due games, soonest first
    )


class SeatRow(Base):
    """One of the three seats of a game: open, a player's (with a token hash), or a bot's."""

    __tablename__ = "seats"
    # A player's games, newest first (game ids sort by creation time); the seats reserved for a player.
    __table_args__ = (
        Index("ix_seats_player_id_game_id", "player_id", "game_id"),
        Index("ix_seats_reserved_for_game_id", "reserved_for", "game_id"),
        _CLUSTERED,
    )

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    name: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    age: Mapped[int | None] = mapped_column(SmallInteger)
    token_hash: Mapped[str | None] = mapped_column(String(64))
    bot: Mapped[str | None] = mapped_column(String(10))  # the strength of the bot in the seat
    joined_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The player in the seat (a bot seat: the bot's player; a seat left to a bot: the player who
    # left). No foreign key: see the module's docstring.
    player_id: Mapped[str | None] = mapped_column(String(26))
    # The keyed hash of the address the seat was taken from (service.addresses), never the address:
    # for the ratings' rules on games between players of one address. Deleted with the game.
    address_hash: Mapped[str | None] = mapped_column(String(ADDRESS_HASH_LENGTH))
    # The seat's own holder (its person, or the bot seated from the start) has played a card: a rated
    # game ended before every seat has is void.
    played: Mapped[bool] = mapped_column(nullable=False, default=False, server_default=false())
    # The deadlines in a row the seat's holder let pass (contract 1.3: too many and they have left).
    lapses: Mapped[int] = mapped_column(SmallInteger, nullable=False, default=0, server_default="0")
    # A rated game's seat: its player's rating as shown (value on the 1500 scale, provisional) when
    # the game began (contract 1.3, "Ratings on the table"); null in an unrated game.
    rating: Mapped[int | None] = mapped_column(Integer)
    rating_provisional: Mapped[bool | None] = mapped_column()
    # The player the seat is reserved for (contract 1.3, "Reserved seats": a challenge's, a rematch
    # offer's): only they take it. Kept once they do (the day's challenges are counted by it).
    reserved_for: Mapped[str | None] = mapped_column(String(26))

    game: Mapped[GameRow] = relationship(back_populates="seats", lazy="raise")


class GameResultRow(Base):
    """A rated game's result, written by the transaction that finishes the game (keyed by it, as
    every game table): each seat's player, place, score and whether they left, in ``entries``.
    The ratings apply it later in a transaction of their own and set ``applied_at``; until then it
    is pending (a partial index lists the pending ones for the catch-up)."""

    __tablename__ = "game_results"
    __table_args__ = (
        Index(
            "ix_game_results_pending", "finished_at",
            postgresql_where=text(PENDING_RESULT), sqlite_where=text(PENDING_RESULT),
        ),
    )  # fmt: skip

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    # [{"seat", "player", "bot", "place", "score", "left"}, …] by seat
    entries: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, nullable=False)
    applied_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ActionRow(Base):
    """The append-only log of a game's actions, numbered from 1. A deal row holds its seed: secret."""

    __tablename__ = "actions"
    __table_args__ = _CLUSTERED

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), nullable=False)  # "deal" or "play"
    seat: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    hand_number: Mapped[int] = mapped_column(Integer, nullable=False)
    cause: Mapped[str] = mapped_column(String(8), nullable=False)  # "player", "bot", "auto" or "timeout"
    card: Mapped[str | None] = mapped_column(String(16))
    seed: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, server_default=func.now())


class TrickRow(Base):
    """A completed trick, numbered from 1 across the whole game: public once played."""

    __tablename__ = "tricks"
    __table_args__ = _CLUSTERED

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_number: Mapped[int] = mapped_column(Integer, nullable=False)
    trick_number: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    leader: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    plays: Mapped[list[list[Any]]] = mapped_column(JsonType, nullable=False)  # [[seat, card], …]
    winner: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    points: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, server_default=func.now())


class EventRow(Base):
    """A game's domain events, numbered from 1, written with the change they tell: ``data`` holds the
    event's own fields as plain JSON values (service.games.domain_events), not the API's rendering,
    which is made on the way out. A private event (a seat's own cards) names its seat; a public one
    has none."""

    __tablename__ = "events"
    __table_args__ = _CLUSTERED

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(16), nullable=False)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    seat: Mapped[int | None] = mapped_column(SmallInteger)  # None: public; else only for that seat
    data: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, server_default=func.now())


class OutboxRow(Base):
    """What a game's change owes its players' feeds: one row per player event, written in the change's
    own transaction (so a change and what it owes commit together, or neither), and moved to the
    players' feeds by the worker (:func:`service.store.player_events.deliver_outbox`), which deletes
    the rows in the transaction that appends them. Numbered by one sequence, oldest first; a game's
    rows belong to it (purged with it)."""

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), nullable=False)
    player_id: Mapped[str] = mapped_column(String(26), nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    data: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class IdempotencyKeyRow(Base):
    """A caller's ``Idempotency-Key`` and the first response given to it (see
    :mod:`service.store.idempotency`).

    Keyed by (scope, key), not by game id: a key belongs to a caller (a seat's token, or a client
    address for the requests that carry no token), and a createGame key belongs to no game yet.
    The key and the scope are stored as SHA-256 hashes, and the response (which may carry a seat's
    token) only sealed with a key derived from the idempotency key itself: the table alone gives no
    token away. A row is written with its response, in the transaction of its request's change
    (never while the request runs). Rows are deleted once ``expires_at`` has passed.
    """

    __tablename__ = "idempotency_keys"
    __table_args__ = (Index("ix_idempotency_keys_expires_at", "expires_at"), _CLUSTERED)

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256 of the caller's scope
    key: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256 of the Idempotency-Key
    fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)  # SHA-256 of method, path, body
    status: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    response: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)  # headers and body, sealed
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class RateLimitRow(Base):
    """A fixed-window rate-limit counter, for installs without Redis (see :mod:`service.store.rate_limits`).

    Keyed by the limit's key (which names the limit, the window and the caller: a client address or
    a hash of a seat's token), not by game id: limits count a caller's requests across games.
    ``expires_at`` is seconds since the epoch, as the ``limits`` library reckons.
    """

    __tablename__ = "rate_limits"
    __table_args__ = (Index("ix_rate_limits_expires_at", "expires_at"), _CLUSTERED)

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, nullable=False)
    expires_at: Mapped[float] = mapped_column(Float, nullable=False)


class TicketRow(Base):
    """A quick-play ticket: a player waiting to be matched into a new game (see
    :mod:`service.store.tickets`).

    Keyed by ticket id, not by game id: like idempotency keys and rate limits, a ticket belongs to
    its caller (a player), and is written in short transactions of its own, never in a game's. The
    game it is matched into is named by id, with no foreign key (a game's rows tie to no other).
    ``mu`` and ``sigma`` are the player's rating when they queued (matching compares them);
    ``lineup`` the three seats of the game, written with the match, so that whoever reads a
    matched ticket can create its game. A player has at most one waiting ticket (a partial
    unique index, on both databases).
    """

    __tablename__ = "queue_tickets"
    __table_args__ = (
        Index(
            "ix_queue_tickets_waiting_player",
            "player_id",
            unique=True,
            sqlite_where=text(WAITING_TICKET),
            postgresql_where=text(WAITING_TICKET),
        ),
        Index(
            "ix_queue_tickets_waiting",
            "created_at",
            sqlite_where=text(WAITING_TICKET),
            postgresql_where=text(WAITING_TICKET),
        ),
        Index("ix_queue_tickets_game_id", "game_id"),
        Index(
            "ix_queue_tickets_unstarted",
            "matched_at",
            sqlite_where=text(UNSTARTED_TICKET),
            postgresql_where=text(UNSTARTED_TICKET),
        ),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(26), nullable=False)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), nullable=False)  # the player's name when they queued
    target_score: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    rated: Mapped[bool] = mapped_column(nullable=False)
    bots_after: Mapped[int | None] = mapped_column(Integer)  # seconds; None: never
    status: Mapped[str] = mapped_column(String(10), nullable=False)  # waiting, matched, expired, cancelled
    mu: Mapped[float] = mapped_column(Float, nullable=False)
    sigma: Mapped[float] = mapped_column(Float, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)  # the player last read it or their feed
    game_id: Mapped[str | None] = mapped_column(String(26))  # once matched
    seat: Mapped[int | None] = mapped_column(SmallInteger)  # the player's seat in it
    lineup: Mapped[list[Any] | None] = mapped_column(JSON)  # once matched: [{"player", "name", "bot"}] × 3
    matched_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())  # expired or cancelled
    game_started: Mapped[bool] = mapped_column(nullable=False, default=False)  # its game is stored
    address_hash: Mapped[str | None] = mapped_column(String(ADDRESS_HASH_LENGTH))  # where it was queued from, keyed
    # The turn clock of the game it asks for (seconds): tickets match only tickets of the same clock.
    turn_timeout_seconds: Mapped[int] = mapped_column(Integer, nullable=False, default=60, server_default="60")


class RoleHeartbeatRow(Base):
    """The last sign of life of each process of a role (``worker``, ``realtime``): ``/readyz``
    reports a role as up while one of its processes was seen recently. Keyed by role and process,
    not by game: written by each process on its own, never in a game's transaction."""

    __tablename__ = "role_heartbeats"
    __table_args__ = (_CLUSTERED,)

    role: Mapped[str] = mapped_column(String(16), primary_key=True)
    instance: Mapped[str] = mapped_column(String(128), primary_key=True)  # host:pid
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    # Whether it heard the changes of games then (its listener on the channel was not lost).
    listening: Mapped[bool] = mapped_column(nullable=False, default=True, server_default=true())


class ReviewRow(Base):
    """A finished game's review (keyed by the game, as every game table): asked for by its first
    reader, then computed by the worker a few plays at a time. ``plays`` grows, in play order, to
    ``total`` entries; ``done_at`` is set with the last. A partial index lists the pending ones."""

    __tablename__ = "reviews"
    __table_args__ = (
        Index(
            "ix_reviews_pending", "requested_at",
            postgresql_where=text(PENDING_REVIEW), sqlite_where=text(PENDING_REVIEW),
        ),
    )  # fmt: skip

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    total: Mapped[int] = mapped_column(Integer, nullable=False)  # the game's plays, each to review
    reviewed: Mapped[int] = mapped_column(Integer, nullable=False)  # entries in ``plays`` (the optimistic check)
    # [{"seq", "hand_number", "trick_number", "seat", "card", "choice", "loss", "values": [[card, points], …]}, …]
    plays: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, nullable=False)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
