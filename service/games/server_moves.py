"""The server's own moves: auto-deals, bot seats, and stand-ins for a player whose turn timed out.

They happen inside the request that makes them due, on the game in memory, before it is saved:
no background worker, no state kept in the process. Each move is also queued on the stored
game as an entry of its action log (and a completed trick as a trick).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from .. import engine
from ..bots import make_bot
from ..engine import Game, GameSetup, Status
from ..store import StoredAction, StoredGame, StoredTrick

__all__ = [
    "BOTS_ONLY_EXPERT_PLAYOUTS",
    "STAND_IN",
    "record_deal",
    "record_play",
    "settle",
    "stand_in",
    "start",
    "timed_out",
    "touch",
]

STAND_IN = "basic"  # the strength that plays for a player whose turn timed out
MAX_SERVER_MOVES = 5_000  # one request of three bots plays a whole game: bounded all the same
# With no person at the table (three bot seats, from createGame or after leaveGame) the whole
# rest of the game runs inside one request: experts then search a fixed, smaller budget, so
# that request costs about a second of CPU for a game to 100 rather than a quarter of a minute.
BOTS_ONLY_EXPERT_PLAYOUTS = 25


def start(stored: StoredGame, now: datetime) -> Game:
    """All seats taken: choose the first dealer, start the engine's game, make any moves due."""
    ages = [seat.age for seat in stored.seats]
    setup = GameSetup.choose(
        stored.target_score, ages=ages, first_dealer=stored.requested_first_dealer, seed=stored.seed
    )
    game = Game(setup)
    settle(stored, game, now)
    return game


def settle(stored: StoredGame, game: Game, now: datetime) -> None:
    """Make the moves the server owes (auto-deals, bot seats), then store the new state."""
    for _ in range(MAX_SERVER_MOVES):
        if game.turn is None:  # finished
            break
        actor = stored.seats[game.turn]  # the dealer while waiting for a deal
        if actor.bot is not None:
            _server_move(stored, game, now, actor.bot, "bot")
        elif game.status is Status.WAITING_FOR_DEAL and stored.auto_deal:
            _server_move(stored, game, now, STAND_IN, "auto")
        else:
            break
    stored.state = engine.snapshot(game)
    stored.status = game.status.value
    waiting_on_person = game.turn is not None and stored.seats[game.turn].bot is None
    timeout = stored.turn_timeout_seconds
    stored.turn_deadline = now + timedelta(seconds=timeout) if timeout and waiting_on_person else None


def stand_in(stored: StoredGame, game: Game, now: datetime) -> None:
    """The player to act let their time pass: the stand-in bot moves for them, once."""
    _server_move(stored, game, now, STAND_IN, "timeout")


def timed_out(stored: StoredGame, now: datetime) -> bool:
    return stored.turn_deadline is not None and stored.turn_deadline <= now


def touch(stored: StoredGame, now: datetime) -> None:
    """The game changed: a new version."""
    stored.version += 1
    stored.updated_at = now


def record_deal(stored: StoredGame, game: Game, cause: str, now: datetime) -> None:
    """Queue the deal just made for the action log (with its seed: secret until the hand is over)."""
    action = game.log[-1]
    assert isinstance(action, engine.DealAction)
    _append_action(stored, "deal", action.seat, game.hand_number, cause, now, seed=action.seed.hex())


def record_play(stored: StoredGame, played: engine.Played, cause: str, now: datetime) -> None:
    """Queue the play just made for the action log, and the trick it completed, if it did."""
    _append_action(stored, "play", played.seat, played.hand_number, cause, now, card=played.card.code)
    trick = played.completed
    if trick is not None:
        stored.trick_count += 1
        stored.new_tricks.append(
            StoredTrick(
                number=stored.trick_count,
                hand_number=trick.hand_number,
                trick_number=trick.trick_number,
                leader=trick.leader,
                plays=[[play.seat, play.card.code] for play in trick.plays],
                winner=trick.winner,
                points=trick.points,
                created_at=now,
            )
        )


def _append_action(
    stored: StoredGame,
    kind: str,
    seat: int,
    hand_number: int,
    cause: str,
    now: datetime,
    *,
    card: str | None = None,
    seed: str | None = None,
) -> None:
    """Number the game's next action and queue it for the log."""
    stored.action_count += 1
    stored.new_actions.append(StoredAction(stored.action_count, kind, seat, hand_number, cause, now, card, seed))


def _bot_rng(stored: StoredGame) -> random.Random:
    """Bots' moves are a function of the game (its seed, else its id) and the move number."""
    return random.Random(f"bot/{stored.seed if stored.seed is not None else stored.id}/{stored.action_count}")


def _server_move(stored: StoredGame, game: Game, now: datetime, strength: str, cause: str) -> None:
    """The server acts for the seat whose turn it is: deals, or plays as a bot of ``strength``."""
    if game.status is Status.WAITING_FOR_DEAL:
        game.deal(game.dealer)
        record_deal(stored, game, cause, now)
        return
    seat = game.turn
    assert seat is not None
    bots_only = all(s.bot is not None for s in stored.seats)
    options = {"playouts": BOTS_ONLY_EXPERT_PLAYOUTS} if strength == "expert" and bots_only else {}
    decision = make_bot(strength, seat, _bot_rng(stored), **options).decide(engine.private_view(game, seat))
    record_play(stored, game.play(seat, decision.card), cause, now)
