"""Game records of bot games played through the engine, for the record builder's and the verifier's tests."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from service.bots import make_bot
from service.engine import FirstDealerReason, Game, GameSetup, Status, private_view
from service.games.game_record import ActionEntry, GameInfo, SeatInfo, build_record

START = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
SEATS = (SeatInfo(0, "Ana", None), SeatInfo(1, "Bo", None), SeatInfo(2, "Basic bot", "basic"))


@dataclass(frozen=True)
class Table:
    """How a test game is set up and how far it is played."""

    target: int = 15
    first_dealer: int = 0
    chosen_by: FirstDealerReason = FirstDealerReason.NAMED
    seed: str | None = None  # a seeded game's seed string; else hand seeds come from the test's own rng
    stop_after: int | None = None  # actions to apply; None plays to the end

    @property
    def setup(self) -> GameSetup:
        return GameSetup(self.target, self.first_dealer, self.chosen_by, self.seed)


@dataclass(frozen=True)
class Played:
    """A game played to where the table says, with everything the record builder takes."""

    game: Game
    info: GameInfo
    actions: tuple[ActionEntry, ...]

    def record(self) -> dict[str, Any]:
        return build_record(self.info, SEATS, self.actions, self.game.setup, now=_at(len(self.actions) + 1))


def _at(seq: int) -> datetime:
    return START + timedelta(seconds=7 * seq)


def play(table: Table, name: str = "game") -> Played:
    """Play ``table`` with a random bot in seat 0, basic bots elsewhere, logging each action as the service does."""
    rng = random.Random(f"records/{name}")
    game = Game(table.setup)
    bots = [make_bot("random" if seat == 0 else "basic", seat, random.Random(f"{name}/{seat}")) for seat in range(3)]
    actions: list[ActionEntry] = []
    while not game.is_over and (table.stop_after is None or len(actions) < table.stop_after):
        seq = len(actions) + 1
        if game.status is Status.WAITING_FOR_DEAL:
            seed = None if table.seed is not None else rng.randbytes(32)
            dealt = game.deal(game.dealer, seed)
            hex_seed = game.log[-1].seed.hex()  # type: ignore[union-attr]
            actions.append(ActionEntry(seq, "deal", dealt.dealer, dealt.hand_number, "auto", _at(seq), seed=hex_seed))
            continue
        seat = game.turn
        assert seat is not None
        card = bots[seat].decide(private_view(game, seat)).card
        played = game.play(seat, card)
        cause = "bot" if seat == 2 else "player"
        actions.append(ActionEntry(seq, "play", seat, played.hand_number, cause, _at(seq), card=card.code))
    info = GameInfo(
        id=f"01TEST{name.upper()}",
        status=game.status.value,
        target_score=table.target,
        auto_deal=True,
        turn_timeout_seconds=None,
        seeded=table.seed is not None,
        created_at=START,
        updated_at=_at(len(actions)),
    )
    return Played(game, info, tuple(actions))
