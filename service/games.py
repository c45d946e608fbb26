"""The use cases: create and join games, deal, play, and read state. Each owns one transaction on one game.

No Flask here: the API turns HTTP into these calls and their results (frozen records of
public information only) back into JSON.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from . import engine
from .engine import Card, CompletedTrick, Game, GameSetup, Play, Status
from .errors import (
    GameNotFound,
    InvalidCursor,
    InvalidToken,
    MissingToken,
    SeatsFull,
    SeatsOpen,
    SeatTaken,
    VersionMismatch,
)
from .ids import new_game_id
from .store import ActionRow, Database, GameRepository, GameRow, SeatRow, TrickRow

__all__ = [
    "WAITING_FOR_PLAYERS",
    "STATUSES",
    "NewPlayer",
    "NewGame",
    "SeatState",
    "TrickState",
    "PublicGame",
    "Credential",
    "Created",
    "Joined",
    "DealResult",
    "PlayResult",
    "HandState",
    "TrickPage",
    "GamePage",
    "GameService",
]

WAITING_FOR_PLAYERS = "waiting_for_players"
STATUSES = (WAITING_FOR_PLAYERS, *(status.value for status in Status))


# -- requests ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewPlayer:
    name: str
    age: int | None = None


@dataclass(frozen=True, slots=True)
class NewGame:
    target_score: int = engine.DEFAULT_TARGET
    seats: tuple[NewPlayer | None, NewPlayer | None, NewPlayer | None] = (None, None, None)
    first_dealer: int | None = None
    auto_deal: bool = False
    seed: str | None = None


# -- results: public information only ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatState:
    seat: int
    name: str | None
    open: bool
    score: int
    cards_in_hand: int
    tricks_won: int


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

    @property
    def etag(self) -> str:
        return etag_for(self.id, self.version)


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
    token: str
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
class TrickPage:
    game_id: str
    version: int
    tricks: tuple[TrickState, ...]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class GamePage:
    games: tuple[PublicGame, ...]
    next_cursor: str | None


# -- the service --------------------------------------------------------------------------


def hash_token(token: str) -> str:
    """Tokens carry 256 random bits, so a plain SHA-256 is a safe stored form."""
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


class GameService:
    """The use cases over one database. Stateless between calls: any number can run side by side."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = _now) -> None:
        self.db = db
        self.clock = clock

    # -- writes -----------------------------------------------------------------------

    def create(self, request: NewGame) -> Created:
        now = self.clock()
        credentials: list[Credential] = []
        seats = []
        for number, player in enumerate(request.seats):
            seat = SeatRow(seat=number)
            if player is not None:
                token = _new_token()
                _take_seat(seat, player, token, now)
                credentials.append(Credential(number, token))
            seats.append(seat)
        row = GameRow(
            id=new_game_id(),
            version=1,
            status=WAITING_FOR_PLAYERS,
            target_score=request.target_score,
            auto_deal=request.auto_deal,
            seed=request.seed,
            requested_first_dealer=request.first_dealer,
            open_seats=sum(1 for player in request.seats if player is None),
            trick_count=0,
            action_count=0,
            state=None,
            created_at=now,
            updated_at=now,
            seats=seats,
        )
        with self.db.transaction(write=True) as session:
            repo = GameRepository(session)
            repo.add(row)
            game = _start_if_full(row) if row.open_seats == 0 else None
            if game is not None:
                _settle(row, game, repo)
            return Created(_public(row, game), tuple(credentials))

    def join(self, game_id: str, player: NewPlayer, *, seat: int | None, if_match: Sequence[str] | None) -> Joined:
        with self.db.transaction(write=True) as session:
            repo = GameRepository(session)
            row = _load(repo, game_id, lock=True)
            _check_version(row, if_match)
            open_seats = [s for s in row.seats if s.token_hash is None]
            if not open_seats:
                raise SeatsFull("all three seats are taken")
            if seat is None:
                taken = open_seats[0]
            else:
                taken = row.seats[seat]
                if taken.token_hash is not None:
                    free = ", ".join(str(s.seat) for s in open_seats)
                    raise SeatTaken(f"seat {seat} is taken; open: {free}")
            token = _new_token()
            now = self.clock()
            _take_seat(taken, player, token, now)
            row.open_seats -= 1
            game = _start_if_full(row) if row.open_seats == 0 else None
            if game is not None:
                _settle(row, game, repo)
            _touch(row, now)
            return Joined(taken.seat, token, _public(row, game))

    def deal(self, game_id: str, token: str | None, *, if_match: Sequence[str] | None) -> DealResult:
        with self.db.transaction(write=True) as session:
            repo = GameRepository(session)
            row = _load(repo, game_id, lock=True)
            seat = _authenticate(row, token)
            _check_version(row, if_match)
            game = _running(row)
            dealt = game.deal(seat)
            _record_deal(row, game, repo)
            _settle(row, game, repo)
            _touch(row, self.clock())
            return DealResult(
                dealt.hand_number,
                dealt.dealer,
                dealt.shuffler,
                dealt.cutter,
                dealt.leader,
                dealt.commitment,
                _public(row, game),
            )

    def play(self, game_id: str, token: str | None, card: Card, *, if_match: Sequence[str] | None) -> PlayResult:
        with self.db.transaction(write=True) as session:
            repo = GameRepository(session)
            row = _load(repo, game_id, lock=True)
            seat = _authenticate(row, token)
            _check_version(row, if_match)
            game = _running(row)
            leader = game.leader
            played = game.play(seat, card)
            _record_play(row, played, repo)
            assert leader is not None
            if played.completed is not None:
                trick = TrickState.of(played.completed)
            else:
                trick = TrickState(leader, played.trick, played.hand_number, played.trick_number)
            _settle(row, game, repo)
            _touch(row, self.clock())
            return PlayResult(seat, card, trick, _public(row, game))

    # -- reads ------------------------------------------------------------------------

    def get(self, game_id: str) -> PublicGame:
        with self.db.transaction(write=False) as session:
            row = _load(GameRepository(session), game_id)
            return _public(row, _game_of(row))

    def hand(self, game_id: str, token: str | None) -> HandState:
        with self.db.transaction(write=False) as session:
            row = _load(GameRepository(session), game_id)
            seat = _authenticate(row, token)
            game = _game_of(row)
            if game is None:
                return HandState(seat, 0, (), row.version, row.id)
            return HandState(seat, game.hand_number, game.hand(seat), row.version, row.id)

    def tricks(self, game_id: str, *, cursor: str | None, limit: int) -> TrickPage:
        after = _decode_cursor(cursor, "t") if cursor else "0"
        if not after.isdigit():
            raise InvalidCursor("the cursor is not one this service issued")
        with self.db.transaction(write=False) as session:
            repo = GameRepository(session)
            row = _load(repo, game_id)
            rows = repo.list_tricks(game_id, after=int(after), limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        tricks = tuple(_trick_state(t) for t in rows)
        next_cursor = _encode_cursor("t", str(rows[-1].number)) if more else None
        return TrickPage(row.id, row.version, tricks, next_cursor)

    def list_games(self, *, status: str | None, cursor: str | None, limit: int) -> GamePage:
        before = _decode_cursor(cursor, "g") if cursor else None
        if before is not None and not before.isalnum():
            raise InvalidCursor("the cursor is not one this service issued")
        with self.db.transaction(write=False) as session:
            rows = GameRepository(session).list_games(status=status, before_id=before, limit=limit + 1)
            more = len(rows) > limit
            rows = rows[:limit]
            games = tuple(_public(row, _game_of(row)) for row in rows)
        next_cursor = _encode_cursor("g", rows[-1].id) if more else None
        return GamePage(games, next_cursor)


# -- helpers ------------------------------------------------------------------------------


def _new_token() -> str:
    return secrets.token_urlsafe(32)


def _take_seat(seat: SeatRow, player: NewPlayer, token: str, now: datetime) -> None:
    seat.name = player.name
    seat.age = player.age
    seat.token_hash = hash_token(token)
    seat.joined_at = now


def _load(repo: GameRepository, game_id: str, *, lock: bool = False) -> GameRow:
    row = repo.get(game_id, lock=lock)
    if row is None:
        raise GameNotFound(f"there is no game {game_id!r}")
    return row


def _authenticate(row: GameRow, token: str | None) -> int:
    """The seat whose token this is. Every seat's hash is compared, in constant time."""
    if not token:
        raise MissingToken("send the seat's token as 'Authorization: Bearer <token>'")
    digest = hash_token(token)
    seat = None
    for candidate in row.seats:
        if candidate.token_hash is not None and hmac.compare_digest(candidate.token_hash, digest):
            seat = candidate.seat
    if seat is None:
        raise InvalidToken("the token is not one of this game's seats")
    return seat


def _check_version(row: GameRow, if_match: Sequence[str] | None) -> None:
    if if_match is None or "*" in if_match:
        return
    if etag_for(row.id, row.version) not in if_match:
        raise VersionMismatch(f"the game is at version {row.version}; read it again and retry")


def _game_of(row: GameRow) -> Game | None:
    return engine.from_snapshot(row.state) if row.state is not None else None


def _running(row: GameRow) -> Game:
    game = _game_of(row)
    if game is None:
        raise SeatsOpen(f"{row.open_seats} seat(s) still open: the game starts when all three are taken")
    return game


def _start_if_full(row: GameRow) -> Game:
    """All seats taken: choose the first dealer and start the engine's game."""
    ages = [seat.age for seat in row.seats]
    setup = GameSetup.choose(row.target_score, ages=ages, first_dealer=row.requested_first_dealer, seed=row.seed)
    return Game(setup)


def _record_deal(row: GameRow, game: Game, repo: GameRepository) -> None:
    action = game.log[-1] if game.log else None
    assert isinstance(action, engine.DealAction)
    row.action_count += 1
    repo.append_action(
        ActionRow(game_id=row.id, seq=row.action_count, kind="deal", seat=action.seat, seed=action.seed.hex())
    )


def _record_play(row: GameRow, played: engine.Played, repo: GameRepository) -> None:
    row.action_count += 1
    repo.append_action(
        ActionRow(game_id=row.id, seq=row.action_count, kind="play", seat=played.seat, card=played.card.code)
    )
    trick = played.completed
    if trick is not None:
        row.trick_count += 1
        repo.append_trick(
            TrickRow(
                game_id=row.id,
                number=row.trick_count,
                hand_number=trick.hand_number,
                trick_number=trick.trick_number,
                leader=trick.leader,
                plays=[[play.seat, play.card.code] for play in trick.plays],
                winner=trick.winner,
                points=trick.points,
            )
        )


def _settle(row: GameRow, game: Game, repo: GameRepository) -> None:
    """Take the actions the server takes by itself (auto-deal), then store the new state."""
    while row.auto_deal and game.status is Status.WAITING_FOR_DEAL:
        game.deal(game.dealer)
        _record_deal(row, game, repo)
    row.state = engine.snapshot(game)
    row.status = game.status.value


def _touch(row: GameRow, now: datetime) -> None:
    row.version += 1
    row.updated_at = now


def _public(row: GameRow, game: Game | None) -> PublicGame:
    if game is None:
        seats = tuple(SeatState(s.seat, s.name, s.token_hash is None, 0, 0, 0) for s in row.seats)
        return PublicGame(
            row.id, WAITING_FOR_PLAYERS, row.target_score, row.seed is not None, row.auto_deal, row.version,
            row.created_at, row.updated_at, seats, 0, None, None, None, None, None, None, None, None,
        )  # fmt: skip
    view = engine.public_view(game)
    seats = tuple(
        SeatState(s.seat, s.name, False, view.scores[s.seat], view.cards_in_hand[s.seat], view.tricks_won[s.seat])
        for s in row.seats
    )
    trick = None
    if view.trick or view.status is Status.PLAYING:
        assert view.leader is not None
        trick = TrickState(view.leader, view.trick, view.hand_number, view.trick_number)
    return PublicGame(
        id=row.id,
        status=view.status.value,
        target_score=view.target_score,
        seeded=view.seeded,
        auto_deal=row.auto_deal,
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        seats=seats,
        hand_number=view.hand_number,
        dealer=view.dealer,
        turn=view.turn,
        trick=trick,
        last_trick=TrickState.of(view.last_trick) if view.last_trick else None,
        winner=view.winner,
        first_dealer=view.first_dealer,
        first_dealer_chosen_by=view.first_dealer_reason.value,
        commitment=view.commitment,
    )


def _trick_state(row: TrickRow) -> TrickState:
    plays = tuple(Play(seat, engine.parse_card(code)) for seat, code in row.plays)
    return TrickState(row.leader, plays, row.hand_number, row.trick_number, row.winner, row.points)


def _encode_cursor(kind: str, value: str) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{value}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str, kind: str) -> str:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidCursor("the cursor is not one this service issued") from None
    prefix, _, value = text.partition(":")
    if prefix != kind or not value:
        raise InvalidCursor("the cursor is not one this service issued")
    return value
