"""The use cases: create and join games, deal, play, hints, leaving, and reads. Each owns one transaction on one game.

No Flask here: the API turns HTTP into these calls and their results (frozen records of
public information only) back into JSON. The server's own moves happen inside the request
that makes them due, in the same transaction: auto-deals, bot seats, and stand-ins for a
player whose turn timed out. No background worker, no state kept in the process.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Row

from . import engine
from .bots import make_bot
from .engine import Card, Game, GameFinished, GameSetup, NoHandInProgress, Play, Status
from .errors import (
    GameNotFound,
    InvalidCursor,
    InvalidToken,
    MissingToken,
    NotYourSeat,
    SeatsFull,
    SeatsOpen,
    SeatTaken,
    VersionMismatch,
)
from .ids import new_game_id
from .records import (
    WAITING_FOR_PLAYERS,
    ActionPage,
    ActionState,
    Created,
    Credential,
    DealResult,
    GamePage,
    HandState,
    Hint,
    Joined,
    NewGame,
    NewPlayer,
    PlayResult,
    PublicGame,
    SeatState,
    TrickPage,
    TrickState,
    etag_for,
)
from .store import ConcurrentUpdate, Database, GameRecord, GameRepository, SeatRecord

__all__ = ["GameService", "STAND_IN", "BOTS_ONLY_EXPERT_PLAYOUTS", "hash_token"]

STAND_IN = "basic"  # the strength that plays for a player whose turn timed out
OPTIMISTIC_ATTEMPTS = 3  # lost races on one game before a write takes the game's lock instead
MAX_SERVER_MOVES = 5_000  # one request of three bots plays a whole game: bounded all the same
# With no person at the table (three bot seats, from createGame or after leaveGame) the whole
# rest of the game runs inside one request: experts then search a fixed, smaller budget, so
# that request costs about a second of CPU for a game to 100 rather than a quarter of a minute.
BOTS_ONLY_EXPERT_PLAYOUTS = 25

T = TypeVar("T")


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
            seat = SeatRecord(number)
            if player is not None:
                token = _take_seat(seat, player, now)
                if token is not None:
                    credentials.append(Credential(number, token))
            seats.append(seat)
        row = GameRecord(
            id=new_game_id(),
            version=1,
            status=WAITING_FOR_PLAYERS,
            target_score=request.target_score,
            auto_deal=request.auto_deal,
            seed=request.seed,
            requested_first_dealer=request.first_dealer,
            turn_timeout_seconds=request.turn_timeout_seconds,
            turn_deadline=None,
            open_seats=sum(1 for player in request.seats if player is None),
            trick_count=0,
            action_count=0,
            state=None,
            created_at=now,
            updated_at=now,
            seats=seats,
        )
        with self.db.connect() as connection:
            repo = GameRepository(connection)
            # A full table starts at once (three bots may play the whole game here): the moves
            # are made before the write, so SQLite's write lock is held for the INSERTs alone.
            game = _start(row, repo, now) if row.open_seats == 0 else None
            with self.db.begin(connection, write=True):
                repo.save(row)
            return Created(_public(row, game), tuple(credentials))

    def join(self, game_id: str, player: NewPlayer, *, seat: int | None, if_match: Sequence[str] | None) -> Joined:
        def change(row: GameRecord, game: Game | None, repo: GameRepository, now: datetime) -> Joined:
            _check_version(row, if_match)
            open_seats = [s for s in row.seats if _is_open(s)]
            if not open_seats:
                raise SeatsFull("all three seats are taken")
            if seat is None:
                taken = open_seats[0]
            else:
                taken = row.seats[seat]
                if not _is_open(taken):
                    free = ", ".join(str(s.seat) for s in open_seats)
                    raise SeatTaken(f"seat {seat} is taken; open: {free}")
            token = _take_seat(taken, NewPlayer(player.name, player.age), now)
            assert token is not None
            row.changed_seats.add(taken.seat)
            row.open_seats -= 1
            if row.open_seats == 0:
                game = _start(row, repo, now)
            _touch(row, now)
            return Joined(taken.seat, token, _public(row, game))

        return self._change(game_id, change)

    def deal(self, game_id: str, token: str | None, *, if_match: Sequence[str] | None) -> DealResult:
        def change(row: GameRecord, game: Game | None, repo: GameRepository, now: datetime) -> DealResult:
            seat = _authenticate(row, token)
            _check_version(row, if_match)
            game = _running(row, game)
            dealt = game.deal(seat)
            _record_deal(row, game, repo, "player", now)
            _settle(row, game, repo, now)
            _touch(row, now)
            return DealResult(
                dealt.hand_number,
                dealt.dealer,
                dealt.shuffler,
                dealt.cutter,
                dealt.leader,
                dealt.commitment,
                _public(row, game),
            )

        return self._change(game_id, change)

    def play(self, game_id: str, token: str | None, card: Card, *, if_match: Sequence[str] | None) -> PlayResult:
        def change(row: GameRecord, game: Game | None, repo: GameRepository, now: datetime) -> PlayResult:
            seat = _authenticate(row, token)
            _check_version(row, if_match)
            game = _running(row, game)
            leader = game.leader
            played = game.play(seat, card)
            _record_play(row, played, repo, "player", now)
            if played.completed is not None:
                trick = TrickState.of(played.completed)
            else:
                assert leader is not None
                trick = TrickState(leader, played.trick, played.hand_number, played.trick_number)
            _settle(row, game, repo, now)
            _touch(row, now)
            return PlayResult(seat, card, trick, _public(row, game))

        return self._change(game_id, change)

    def leave(
        self, game_id: str, seat: int, token: str | None, *, bot: str, if_match: Sequence[str] | None
    ) -> PublicGame:
        """Hand a seat to a bot for good (or, before the game starts, give it up)."""

        def change(row: GameRecord, game: Game | None, repo: GameRepository, now: datetime) -> PublicGame:
            caller = _authenticate(row, token)
            if caller != seat:
                raise NotYourSeat(f"the token acts for seat {caller}, not seat {seat}")
            _check_version(row, if_match)
            if game is not None and game.is_over:
                raise GameFinished("the game is over")
            leaving = row.seats[seat]
            leaving.token_hash = None
            row.changed_seats.add(seat)
            if game is None:  # not started: the seat is open again
                leaving.name = leaving.age = leaving.joined_at = None
                row.open_seats += 1
            else:
                leaving.bot = bot
                _settle(row, game, repo, now)
            _touch(row, now)
            return _public(row, game)

        return self._change(game_id, change)

    # -- reads ------------------------------------------------------------------------

    def get(self, game_id: str) -> PublicGame:
        return self._read(game_id, lambda _repo, row: _public(row, _game_of(row)))

    def hand(self, game_id: str, token: str | None) -> HandState:
        def read(_repo: GameRepository, row: GameRecord) -> HandState:
            seat = _authenticate(row, token)
            game = _game_of(row)
            if game is None:
                return HandState(seat, 0, (), row.version, row.id)
            return HandState(seat, game.hand_number, game.hand(seat), row.version, row.id)

        return self._read(game_id, read)

    def hint(self, game_id: str, token: str | None, strength: str) -> Hint:
        """The card a bot of ``strength`` would play for the caller now, and why. Deterministic."""

        def read(_repo: GameRepository, row: GameRecord) -> Hint:
            seat = _authenticate(row, token)
            game = _running(row, _game_of(row))
            if game.is_over:
                raise GameFinished("the game is over")
            if game.status is not Status.PLAYING:
                raise NoHandInProgress(f"hand {game.hand_number + 1} has not been dealt yet")
            rng = random.Random(f"hint/{row.id}/{row.version}/{seat}/{strength}")
            decision = make_bot(strength, seat, rng).decide(engine.private_view(game, seat))
            return Hint(seat, decision.card, strength, decision.reason, row.version, row.id)

        return self._read(game_id, read)

    def tricks(self, game_id: str, *, cursor: str | None, limit: int) -> TrickPage:
        after = _number_cursor(cursor, "t")

        def read(repo: GameRepository, row: GameRecord) -> TrickPage:
            rows = repo.list_tricks(game_id, after=after, limit=limit + 1)
            tricks = tuple(_trick_state(t) for t in rows[:limit])
            next_cursor = _encode_cursor("t", str(rows[limit - 1].number)) if len(rows) > limit else None
            return TrickPage(row.id, row.version, tricks, next_cursor)

        return self._read(game_id, read, more=True)

    def history(self, game_id: str, *, cursor: str | None, limit: int) -> ActionPage:
        after = _number_cursor(cursor, "a")

        def read(repo: GameRepository, row: GameRecord) -> ActionPage:
            rows = repo.list_actions(game_id, after=after, limit=limit + 1)
            over = _hands_over(row)
            actions = tuple(_action_state(a, over) for a in rows[:limit])
            next_cursor = _encode_cursor("a", str(rows[limit - 1].seq)) if len(rows) > limit else None
            return ActionPage(row.id, row.version, actions, next_cursor)

        return self._read(game_id, read, more=True)

    def list_games(self, *, status: str | None, cursor: str | None, limit: int) -> GamePage:
        before = _decode_cursor(cursor, "g") if cursor else None
        if before is not None and not before.isalnum():
            raise InvalidCursor("the cursor is not one this service issued")
        with self.db.transaction(write=False) as connection:
            rows = GameRepository(connection).list_games(status=status, before_id=before, limit=limit + 1)
            more = len(rows) > limit
            rows = rows[:limit]
            games = tuple(_public(row, _game_of(row)) for row in rows)
        next_cursor = _encode_cursor("g", rows[-1].id) if more else None
        return GamePage(games, next_cursor)

    # -- transactions -------------------------------------------------------------------

    def _change(self, game_id: str, change: Callable[[GameRecord, Game | None, GameRepository, datetime], T]) -> T:
        """Apply ``change`` to the game and save the result in one write; a refusal writes nothing.

        Optimistic first: read the game without a lock, apply the change in memory, and save it
        only if the game is still at the version read (on PostgreSQL that write is one statement
        outside a transaction; on SQLite the write lock is held for the write alone). If another
        request saved first, read again and retry. After ``OPTIMISTIC_ATTEMPTS`` lost races, or
        when a stand-in move is due, the game's lock is held from the read to the write instead.
        """
        for _ in range(OPTIMISTIC_ATTEMPTS):
            with self.db.connect() as connection:
                repo = GameRepository(connection)
                with self.db.begin(connection, write=False, one_statement=True):
                    row = _load(repo, game_id)
                now = self.clock()
                if _timed_out(row, now):
                    break
                result = change(row, _game_of(row), repo, now)
                with self.db.begin(connection, write=True, one_statement=repo.saves_in_one_statement):
                    if repo.save(row):
                        return result
        return self._change_locked(game_id, change)

    def _change_locked(
        self, game_id: str, change: Callable[[GameRecord, Game | None, GameRepository, datetime], T]
    ) -> T:
        """:meth:`_change` in one transaction holding the game's lock. An overdue stand-in move is
        first committed in a transaction of its own, so the request (which that move may make
        invalid) sees the game as it now stands, and a refusal does not undo the move."""
        with self.db.transaction(write=True) as connection:
            repo = GameRepository(connection)
            now = self.clock()
            row = _load(repo, game_id, lock=True)
            if not _timed_out(row, now):
                return _saved(repo, row, change(row, _game_of(row), repo, now))
        self._catch_up(game_id)
        with self.db.transaction(write=True) as connection:
            repo = GameRepository(connection)
            row = _load(repo, game_id, lock=True)
            return _saved(repo, row, change(row, _game_of(row), repo, self.clock()))

    def _catch_up(self, game_id: str) -> None:
        """If the player to act has let their time pass, the stand-in moves for them (committed)."""
        with self.db.transaction(write=True) as connection:
            repo = GameRepository(connection)
            now = self.clock()
            row = _load(repo, game_id, lock=True)
            game = _game_of(row)
            if game is None or not _timed_out(row, now):
                return
            _stand_in(row, game, repo, now)
            _settle(row, game, repo, now)
            _touch(row, now)
            _saved(repo, row, None)

    def _read(self, game_id: str, read: Callable[[GameRepository, GameRecord], T], *, more: bool = False) -> T:
        """A read, after any stand-in move that an expired turn makes due. Unless ``read`` runs
        ``more`` statements of its own, it is a single SELECT (on PostgreSQL, outside a transaction)."""
        with self.db.connect() as connection, self.db.begin(connection, write=False, one_statement=not more):
            repo = GameRepository(connection)
            row = _load(repo, game_id)
            if not _timed_out(row, self.clock()):
                return read(repo, row)
        self._catch_up(game_id)
        with self.db.transaction(write=False) as connection:
            repo = GameRepository(connection)
            return read(repo, _load(repo, game_id))


# -- helpers ------------------------------------------------------------------------------


def _new_token() -> str:
    return secrets.token_urlsafe(32)


def _is_open(seat: SeatRecord) -> bool:
    return seat.token_hash is None and seat.bot is None


def _take_seat(seat: SeatRecord, player: NewPlayer, now: datetime) -> str | None:
    """Seat a person (returns their new token) or a bot (returns None)."""
    seat.name = player.display_name
    seat.age = player.age
    seat.joined_at = now
    if player.bot is not None:
        seat.bot = player.bot
        return None
    token = _new_token()
    seat.token_hash = hash_token(token)
    return token


def _saved(repo: GameRepository, row: GameRecord, result: T) -> T:
    """Save under the game's lock, which no other writer can take: a lost race here is a bug."""
    if not repo.save(row):
        raise ConcurrentUpdate(f"game {row.id} changed under its lock")
    return result


def _load(repo: GameRepository, game_id: str, *, lock: bool = False) -> GameRecord:
    row = repo.get(game_id, lock=lock)
    if row is None:
        raise GameNotFound(f"there is no game {game_id!r}")
    return row


def _authenticate(row: GameRecord, token: str | None) -> int:
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


def _check_version(row: GameRecord, if_match: Sequence[str] | None) -> None:
    if if_match is None or "*" in if_match:
        return
    if etag_for(row.id, row.version) not in if_match:
        raise VersionMismatch(f"the game is at version {row.version}; read it again and retry")


def _game_of(row: GameRecord) -> Game | None:
    return engine.from_snapshot(row.state) if row.state is not None else None


def _running(row: GameRecord, game: Game | None) -> Game:
    if game is None:
        raise SeatsOpen(f"{row.open_seats} seat(s) still open: the game starts when all three are taken")
    return game


def _start(row: GameRecord, repo: GameRepository, now: datetime) -> Game:
    """All seats taken: choose the first dealer, start the engine's game, make any moves due."""
    ages = [seat.age for seat in row.seats]
    setup = GameSetup.choose(row.target_score, ages=ages, first_dealer=row.requested_first_dealer, seed=row.seed)
    game = Game(setup)
    _settle(row, game, repo, now)
    return game


def _record_deal(row: GameRecord, game: Game, repo: GameRepository, cause: str, now: datetime) -> None:
    action = game.log[-1]
    assert isinstance(action, engine.DealAction)
    _append_action(row, repo, now, "deal", action.seat, game.hand_number, cause, seed=action.seed.hex())


def _append_action(
    row: GameRecord,
    repo: GameRepository,
    now: datetime,
    kind: str,
    seat: int,
    hand_number: int,
    cause: str,
    **values: str,
) -> None:
    """Number the game's next action and queue it for the log."""
    row.action_count += 1
    repo.append_action(
        row.id,
        seq=row.action_count,
        kind=kind,
        seat=seat,
        hand_number=hand_number,
        cause=cause,
        created_at=now,
        **values,
    )


def _record_play(row: GameRecord, played: engine.Played, repo: GameRepository, cause: str, now: datetime) -> None:
    _append_action(row, repo, now, "play", played.seat, played.hand_number, cause, card=played.card.code)
    trick = played.completed
    if trick is not None:
        row.trick_count += 1
        repo.append_trick(
            row.id,
            number=row.trick_count,
            hand_number=trick.hand_number,
            trick_number=trick.trick_number,
            leader=trick.leader,
            plays=[[play.seat, play.card.code] for play in trick.plays],
            winner=trick.winner,
            points=trick.points,
            created_at=now,
        )


def _bot_rng(row: GameRecord) -> random.Random:
    """Bots' moves are a function of the game (its seed, else its id) and the move number."""
    return random.Random(f"bot/{row.seed if row.seed is not None else row.id}/{row.action_count}")


def _server_move(row: GameRecord, game: Game, repo: GameRepository, now: datetime, strength: str, cause: str) -> None:
    """The server acts for the seat whose turn it is: deals, or plays as a bot of ``strength``."""
    if game.status is Status.WAITING_FOR_DEAL:
        game.deal(game.dealer)
        _record_deal(row, game, repo, cause, now)
        return
    seat = game.turn
    assert seat is not None
    bots_only = all(s.bot is not None for s in row.seats)
    options = {"playouts": BOTS_ONLY_EXPERT_PLAYOUTS} if strength == "expert" and bots_only else {}
    decision = make_bot(strength, seat, _bot_rng(row), **options).decide(engine.private_view(game, seat))
    _record_play(row, game.play(seat, decision.card), repo, cause, now)


def _stand_in(row: GameRecord, game: Game, repo: GameRepository, now: datetime) -> None:
    """The player to act let their time pass: the stand-in bot moves for them, once."""
    _server_move(row, game, repo, now, STAND_IN, "timeout")


def _settle(row: GameRecord, game: Game, repo: GameRepository, now: datetime) -> None:
    """Make the moves the server owes (auto-deals, bot seats), then store the new state."""
    for _ in range(MAX_SERVER_MOVES):
        if game.turn is None:  # finished
            break
        actor = row.seats[game.turn]  # the dealer while waiting for a deal
        if actor.bot is not None:
            _server_move(row, game, repo, now, actor.bot, "bot")
        elif game.status is Status.WAITING_FOR_DEAL and row.auto_deal:
            _server_move(row, game, repo, now, STAND_IN, "auto")
        else:
            break
    row.state = engine.snapshot(game)
    row.status = game.status.value
    waiting_on_person = game.turn is not None and row.seats[game.turn].bot is None
    timeout = row.turn_timeout_seconds
    row.turn_deadline = now + timedelta(seconds=timeout) if timeout and waiting_on_person else None


def _timed_out(row: GameRecord, now: datetime) -> bool:
    return row.turn_deadline is not None and row.turn_deadline <= now


def _touch(row: GameRecord, now: datetime) -> None:
    row.version += 1
    row.updated_at = now


def _public(row: GameRecord, game: Game | None) -> PublicGame:
    if game is None:
        seats = tuple(SeatState(s.seat, s.name, _is_open(s), s.bot, 0, 0, 0) for s in row.seats)
        return PublicGame(
            row.id, WAITING_FOR_PLAYERS, row.target_score, row.seed is not None, row.auto_deal,
            row.turn_timeout_seconds, None, row.version, row.created_at, row.updated_at, seats,
            0, None, None, None, None, None, None, None, None,
        )  # fmt: skip
    view = engine.public_view(game)
    seats = tuple(
        SeatState(
            s.seat, s.name, False, s.bot, view.scores[s.seat], view.cards_in_hand[s.seat], view.tricks_won[s.seat]
        )
        for s in row.seats
    )
    trick = None
    if view.status is Status.PLAYING:
        assert view.leader is not None
        trick = TrickState(view.leader, view.trick, view.hand_number, view.trick_number)
    return PublicGame(
        id=row.id,
        status=view.status.value,
        target_score=view.target_score,
        seeded=view.seeded,
        auto_deal=row.auto_deal,
        turn_timeout_seconds=row.turn_timeout_seconds,
        turn_deadline=row.turn_deadline,
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


def _trick_state(row: Row[Any]) -> TrickState:
    plays = tuple(Play(seat, engine.parse_card(code)) for seat, code in row.plays)
    return TrickState(row.leader, plays, row.hand_number, row.trick_number, row.winner, row.points)


def _hands_over(row: GameRecord) -> int:
    """The highest hand number whose seed may be shown."""
    if row.state is None:
        return 0
    state = row.state["state"]
    return int(state["hand_number"]) if state["status"] != Status.PLAYING.value else int(state["hand_number"]) - 1


def _action_state(action: Row[Any], hands_over: int) -> ActionState:
    seed = bytes.fromhex(action.seed) if action.seed else None
    return ActionState(
        seq=action.seq,
        kind=action.kind,
        seat=action.seat,
        hand_number=action.hand_number,
        cause=action.cause,
        created_at=action.created_at,
        card=engine.parse_card(action.card) if action.card else None,
        commitment=engine.commitment(seed) if seed else None,
        seed=seed.hex() if seed and action.hand_number <= hands_over else None,
    )


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


def _number_cursor(cursor: str | None, kind: str) -> int:
    if not cursor:
        return 0
    value = _decode_cursor(cursor, kind)
    if not value.isdigit():
        raise InvalidCursor("the cursor is not one this service issued")
    return int(value)
