"""A player's stored events read back: a ``your_turn`` with the state and the seat's own cards, and
one stored before it carried them (its ``state`` and ``hand`` then None)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from service import engine
from service.games import YourTurnEvent
from service.games.player_events import decode_player_event, encode_player_event
from service.games.results import HandState, PublicGame, SeatState

NOW = datetime(2026, 12, 3, tzinfo=UTC)


def playing_state() -> PublicGame:
    seats = tuple(SeatState(seat, name, False, None, 0, 16, 0, f"p{seat}") for seat, name in enumerate("ABC"))
    return PublicGame(
        "g1", "playing", 15, False, False, 60, NOW, 4, NOW, NOW, seats,
        1, 2, 0, None, None, None, 2, "age", "c0ffee", None, None, True, False,
    )  # fmt: skip


def test_a_your_turn_reads_back_with_its_state_and_hand() -> None:
    cards = tuple(engine.parse_card(code) for code in ("ace-coins", "7-clubs"))
    event = YourTurnEvent(
        game="g1", version=4, seat=0, action="play", turn_deadline=NOW,
        state=playing_state(), hand=HandState(0, 1, cards, 4, "g1"),
    )  # fmt: skip
    stored = replace(encode_player_event("p0", event, NOW), id=9)
    assert decode_player_event(stored) == replace(event, id=9)


def test_a_your_turn_stored_before_it_carried_the_state_reads_back_without_it() -> None:
    event = YourTurnEvent(game="g1", version=4, seat=0, action="deal", turn_deadline=None)
    as_stored_by_1_2 = '{"id":0,"game":"g1","version":4,"seat":0,"action":"deal","turn_deadline":null}'
    stored = replace(encode_player_event("p0", event, NOW), data=as_stored_by_1_2)
    read = decode_player_event(stored)
    assert isinstance(read, YourTurnEvent) and read.state is None and read.hand is None and read.action == "deal"
