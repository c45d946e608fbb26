"""Games to and from plain JSON-compatible data, with a format version.

Two forms: a *snapshot* (setup plus current state: what a store loads per request, so it
need not replay a whole game) and the *action log* (with the setup, the whole game:
:meth:`Game.replay` rebuilds it). Both hold secrets (hands, the current seed): they are
for storage, never for a response.
"""

from __future__ import annotations

from typing import Any

from .actions import (
    Action,
    CompletedTrick,
    DealAction,
    FirstDealerReason,
    HandEnded,
    Play,
    PlayAction,
    Status,
)
from .cards import CARD_BY_CODE, DECK, parse_card
from .errors import CoinsError, UnsupportedFormat
from .game import Game
from .setup import GameSetup

__all__ = [
    "FORMAT_VERSION",
    "setup_to_dict",
    "setup_from_dict",
    "action_to_dict",
    "action_from_dict",
    "snapshot",
    "from_snapshot",
    "to_dict",
    "from_dict",
]

FORMAT_VERSION = 1
JSON = dict[str, Any]

# Restoring a snapshot (every request does) looks each card (CARD_BY_CODE) and each play up in
# a table: a code that is not a card raises KeyError, reported as malformed data.
_PLAY_BY_SEAT_AND_CODE = {(seat, card.code): Play(seat, card) for seat in range(3) for card in DECK}


def setup_to_dict(setup: GameSetup) -> JSON:
    return {
        "target_score": setup.target_score,
        "first_dealer": setup.first_dealer,
        "first_dealer_reason": setup.first_dealer_reason.value,
        "seed": setup.seed,
    }


def setup_from_dict(data: JSON) -> GameSetup:
    return GameSetup(
        data["target_score"], data["first_dealer"], FirstDealerReason(data["first_dealer_reason"]), data["seed"]
    )


def action_to_dict(action: Action) -> JSON:
    if isinstance(action, DealAction):
        return {"type": "deal", "seat": action.seat, "seed": action.seed.hex()}
    return {"type": "play", "seat": action.seat, "card": action.card.code}


def action_from_dict(data: JSON) -> Action:
    kind = data.get("type")
    if kind == "deal":
        return DealAction(data["seat"], bytes.fromhex(data["seed"]))
    if kind == "play":
        return PlayAction(data["seat"], parse_card(data["card"]))
    raise UnsupportedFormat(f"unknown action type {kind!r}")


def _trick_to_dict(trick: CompletedTrick) -> JSON:
    return {
        "hand_number": trick.hand_number,
        "trick_number": trick.trick_number,
        "leader": trick.leader,
        "plays": [[play.seat, play.card.code] for play in trick.plays],
        "winner": trick.winner,
        "points": trick.points,
    }


def _trick_from_dict(data: JSON) -> CompletedTrick:
    (seat_a, a), (seat_b, b), (seat_c, c) = data["plays"]
    plays = _PLAY_BY_SEAT_AND_CODE
    return CompletedTrick(
        data["hand_number"],
        data["trick_number"],
        data["leader"],
        (plays[seat_a, a], plays[seat_b, b], plays[seat_c, c]),
        data["winner"],
        data["points"],
    )


def _ended_to_dict(ended: HandEnded) -> JSON:
    return {
        "hand_number": ended.hand_number,
        "seed": ended.seed.hex(),
        "commitment": ended.commitment,
        "next_dealer": ended.next_dealer,
    }


def _ended_from_dict(data: JSON) -> HandEnded:
    return HandEnded(data["hand_number"], bytes.fromhex(data["seed"]), data["commitment"], data["next_dealer"])


def snapshot(game: Game, *, include_log: bool = False) -> JSON:
    """The game's setup and state (and, if asked, its action log) as JSON-compatible data."""
    g: Any = game  # reads the private state this module exists to persist
    data: JSON = {
        "format": FORMAT_VERSION,
        "setup": setup_to_dict(game.setup),
        "state": {
            "status": g._status.value,
            "hand_number": g._hand_number,
            "dealer": g._dealer,
            "leader": g._leader,
            "turn": g._turn,
            "hands": [[card.code for card in cards] for cards in g._hands],
            "trick": [[play.seat, play.card.code] for play in g._trick],
            "hand_tricks": [_trick_to_dict(t) for t in g._hand_tricks],
            "last_trick": _trick_to_dict(g._last_trick) if g._last_trick else None,
            "scores": list(g._scores),
            "tricks_won": list(g._tricks_won),
            "winner": g._winner,
            "seed": g._seed.hex() if g._seed is not None else None,
            "commitment": g._commitment,
            "revealed": [_ended_to_dict(e) for e in g._revealed],
        },
    }
    if include_log:
        data["log"] = [action_to_dict(action) for action in g._log]
    return data


def from_snapshot(data: JSON) -> Game:
    """Load a game saved by :func:`snapshot`, without replaying it."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
        raise UnsupportedFormat(f"format {_format_of(data)!r} is not {FORMAT_VERSION}")
    try:
        game = Game(setup_from_dict(data["setup"]))
        state = data["state"]
        g: Any = game
        g._status = Status(state["status"])
        g._hand_number = state["hand_number"]
        g._dealer = state["dealer"]
        g._leader = state["leader"]
        g._turn = state["turn"]
        card = CARD_BY_CODE.__getitem__
        a, b, c = ([card(code) for code in cards] for cards in state["hands"])
        g._hands = (a, b, c)
        g._trick = [_PLAY_BY_SEAT_AND_CODE[seat, code] for seat, code in state["trick"]]
        g._hand_tricks = [_trick_from_dict(t) for t in state["hand_tricks"]]
        g._last_trick = _trick_from_dict(state["last_trick"]) if state["last_trick"] else None
        g._scores = list(state["scores"])
        g._tricks_won = list(state["tricks_won"])
        g._winner = state["winner"]
        g._seed = bytes.fromhex(state["seed"]) if state["seed"] is not None else None
        g._commitment = state["commitment"]
        g._revealed = [_ended_from_dict(e) for e in state["revealed"]]
        g._log = [action_from_dict(a) for a in data.get("log", [])]
    except (CoinsError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UnsupportedFormat(f"malformed game data: {exc}") from exc
    return game


def _format_of(data: object) -> object:
    return data.get("format") if isinstance(data, dict) else type(data).__name__


def to_dict(game: Game) -> JSON:
    """The whole game: snapshot and action log."""
    return snapshot(game, include_log=True)


def from_dict(data: JSON) -> Game:
    """Rebuild a game saved by :func:`to_dict` by replaying its log, and check it against the snapshot."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
        raise UnsupportedFormat(f"format {_format_of(data)!r} is not {FORMAT_VERSION}")
    try:
        game = Game.replay(setup_from_dict(data["setup"]), [action_from_dict(a) for a in data["log"]])
    except (CoinsError, KeyError, TypeError, ValueError, AttributeError) as exc:  # a log the rules refuse, too
        raise UnsupportedFormat(f"malformed game data: {exc}") from exc
    if snapshot(game) != {k: v for k, v in data.items() if k != "log"}:
        raise UnsupportedFormat("the snapshot does not match the replayed log")
    return game
