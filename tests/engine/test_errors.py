"""Every refusal of the state machine: verify_x raises the precise error, can_x is False, x changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from service.engine import (
    CardNotInHand,
    CoinsError,
    DealAction,
    Game,
    GameFinished,
    GameSetup,
    HandInProgress,
    InvalidCard,
    InvalidSeat,
    InvalidSetup,
    NoHandInProgress,
    NotDealer,
    NotYourTurn,
    PlayAction,
    Status,
    UnsupportedFormat,
    parse_card,
    snapshot,
)


def waiting() -> Game:
    """Before the first deal; seat 0 deals."""
    return Game(GameSetup(target_score=15, first_dealer=0, seed="errors"))


def dealt() -> Game:
    """Hand 1 just dealt by seat 0: seat 1 leads."""
    game = waiting()
    game.deal(0)
    return game


def playing() -> Game:
    """Hand 1 dealt by seat 0 and one card played by seat 1: seat 2 is to play."""
    game = waiting()
    game.deal(0)
    game.play(1, game.hand(1)[0])
    return game


def between_hands() -> Game:
    """Hand 1 over (the target is out of reach), hand 2 not dealt yet."""
    game = Game(GameSetup(target_score=100, first_dealer=0, seed="errors"))
    game.deal(0)
    while game.status is Status.PLAYING:
        seat = game.turn
        assert seat is not None
        game.play(seat, game.hand(seat)[0])
    return game


def finished() -> Game:
    """Won mid-hand at target 1: the first coin captured ends the game."""
    game = Game(GameSetup(target_score=1, first_dealer=0, seed="errors"))
    game.deal(0)
    while not game.is_over:
        seat = game.turn
        assert seat is not None
        game.play(seat, game.hand(seat)[-1])
    assert sum(game.cards_in_hand) > 0  # the rest of the hand is never played
    return game


STATES: dict[str, Callable[[], Game]] = {
    "waiting": waiting,
    "dealt": dealt,
    "playing": playing,
    "between_hands": between_hands,
    "finished": finished,
}

BAD_SEATS = [3, -1, "0", True, None, 0.0, 1.0]


def own_card(game: Game, seat: int) -> Any:
    return game.hand(seat)[0] if game.hand(seat) else parse_card("ace-coins")


def someone_elses_card(game: Game, seat: int) -> Any:
    other = (seat + 1) % 3
    return game.hand(other)[0]


def _id(value: object) -> str:
    """A test id that is the same in every process: names for functions and classes, not addresses."""
    return getattr(value, "__name__", None) or str(value)


DEAL_REFUSALS = [
    ("waiting", 1, NotDealer, "seat 0 deals this hand, not seat 1"),
    ("waiting", 2, NotDealer, "seat 0 deals this hand, not seat 2"),
    *[("waiting", seat, InvalidSeat, "seat must be 0, 1 or 2") for seat in BAD_SEATS],
    ("playing", 0, HandInProgress, "hand 1 is still being played"),
    ("playing", 2, HandInProgress, "hand 1 is still being played"),
    ("playing", 3, InvalidSeat, "seat must be 0, 1 or 2"),
    ("between_hands", "non-dealer", NotDealer, "deals this hand, not seat"),
    ("between_hands", True, InvalidSeat, "seat must be 0, 1 or 2"),
    ("finished", 0, GameFinished, "the game is over"),
    ("finished", 1, GameFinished, "the game is over"),
    ("finished", 2, GameFinished, "the game is over"),
    ("finished", -1, InvalidSeat, "seat must be 0, 1 or 2"),
]


@pytest.mark.parametrize(("state", "seat", "error", "message"), DEAL_REFUSALS, ids=_id)
def test_deal_refusals(state: str, seat: Any, error: type[CoinsError], message: str) -> None:
    game = STATES[state]()
    if seat == "non-dealer":
        seat = (game.dealer + 1) % 3
    assert_refused(game, lambda: game.verify_deal(seat), lambda: game.can_deal(seat), lambda: game.deal(seat), error)
    with pytest.raises(error, match=message):
        game.verify_deal(seat)


PLAY_REFUSALS = [
    ("waiting", 0, own_card, NoHandInProgress, "hand 1 has not been dealt yet"),
    ("waiting", 1, own_card, NoHandInProgress, "hand 1 has not been dealt yet"),
    *[("waiting", seat, own_card, InvalidSeat, "seat must be 0, 1 or 2") for seat in BAD_SEATS],
    ("between_hands", 0, own_card, NoHandInProgress, "hand 2 has not been dealt yet"),
    ("playing", 0, own_card, NotYourTurn, "it is seat 2's turn, not seat 0's"),
    ("playing", 1, own_card, NotYourTurn, "it is seat 2's turn, not seat 1's"),
    ("playing", 2, someone_elses_card, CardNotInHand, "seat 2 does not hold "),
    ("playing", 2, lambda game, seat: game.log[-1].card, CardNotInHand, "seat 2 does not hold "),  # already played
    ("playing", 2, lambda game, seat: game.hand(seat)[0].code, InvalidCard, "is not a card"),  # a code, not a Card
    ("playing", 2, lambda game, seat: None, InvalidCard, "None is not a card"),
    ("playing", 2, lambda game, seat: 7, InvalidCard, "7 is not a card"),
    *[("playing", seat, own_card, InvalidSeat, "seat must be 0, 1 or 2") for seat in BAD_SEATS],
    # seats equal to the seat to play, but not the int itself
    ("dealt", True, own_card, InvalidSeat, "seat must be 0, 1 or 2, not True"),
    ("dealt", 1.0, own_card, InvalidSeat, "seat must be 0, 1 or 2, not 1.0"),
    ("dealt", 0, own_card, NotYourTurn, "it is seat 1's turn, not seat 0's"),
    ("finished", 0, own_card, GameFinished, "the game is over"),
    ("finished", 1, own_card, GameFinished, "the game is over"),
    ("finished", 2, own_card, GameFinished, "the game is over"),
    ("finished", 5, own_card, InvalidSeat, "seat must be 0, 1 or 2"),
]


@pytest.mark.parametrize(("state", "seat", "card_of", "error", "message"), PLAY_REFUSALS, ids=_id)
def test_play_refusals(
    state: str, seat: Any, card_of: Callable[[Game, Any], Any], error: type[CoinsError], message: str
) -> None:
    game = STATES[state]()
    card = card_of(game, seat if seat in (0, 1, 2) and type(seat) is int else game.turn or 0)
    assert_refused(
        game,
        lambda: game.verify_play(seat, card),
        lambda: game.can_play(seat, card),
        lambda: game.play(seat, card),
        error,
    )
    with pytest.raises(error, match=message):
        game.verify_play(seat, card)


def assert_refused(
    game: Game,
    verify: Callable[[], None],
    can: Callable[[], bool],
    act: Callable[[], object],
    error: type[CoinsError],
) -> None:
    before = snapshot(game, include_log=True)
    copy = Game.replay(game.setup, game.log) if game.hand_number else Game(game.setup)
    with pytest.raises(error) as caught:
        verify()
    assert type(caught.value) is error
    assert caught.value.code == error.code
    assert can() is False
    with pytest.raises(error):
        act()
    assert snapshot(game, include_log=True) == before
    if game.setup.seed is not None:
        assert copy == game


@pytest.mark.parametrize("state", ["waiting", "between_hands"])
def test_the_dealer_may_deal(state: str) -> None:
    game = STATES[state]()
    dealer = game.dealer
    game.verify_deal(dealer)
    assert game.can_deal(dealer)
    assert [game.can_deal(seat) for seat in range(3)] == [seat == dealer for seat in range(3)]


def test_the_seat_to_play_may_play_any_card_it_holds() -> None:
    game = playing()
    for seat in range(3):
        for card in game.hand(seat):
            assert game.can_play(seat, card) is (seat == 2)
    for card in game.hand(2):
        game.verify_play(2, card)


def test_replaying_a_refused_action_is_refused_too() -> None:
    game = playing()
    before = snapshot(game, include_log=True)
    with pytest.raises(NotYourTurn):
        game.apply(PlayAction(0, game.hand(0)[0]))
    assert snapshot(game, include_log=True) == before


@pytest.mark.parametrize(
    ("error", "code", "bases"),
    [
        (InvalidCard, "invalid_card", (ValueError,)),
        (InvalidSeat, "invalid_seat", (ValueError,)),
        (InvalidSetup, "invalid_setup", (ValueError,)),
        (NotYourTurn, "not_your_turn", ()),
        (CardNotInHand, "card_not_in_hand", ()),
        (NoHandInProgress, "no_hand_in_progress", ()),
        (HandInProgress, "hand_in_progress", ()),
        (NotDealer, "not_dealer", ()),
        (GameFinished, "game_finished", ()),
        (UnsupportedFormat, "unsupported_format", (ValueError,)),
    ],
)
def test_each_error_has_a_stable_code(error: type[CoinsError], code: str, bases: tuple[type, ...]) -> None:
    assert issubclass(error, CoinsError)
    assert error.code == code
    for base in bases:
        assert issubclass(error, base)


@pytest.mark.parametrize("seed", [b"", "abc"])
def test_replaying_a_deal_checks_its_seed(seed: object) -> None:
    game = waiting()
    with pytest.raises(InvalidSetup, match="non-empty bytes"):
        game.apply(DealAction(0, seed))  # type: ignore[arg-type]
    assert game.log == () and game.hand_number == 0
