"""The engine's exceptions: one type per failure a client can act on, each with a stable code."""

from __future__ import annotations

__all__ = [
    "CoinsError",
    "InvalidCard",
    "InvalidSeat",
    "InvalidSetup",
    "NotYourTurn",
    "CardNotInHand",
    "NoHandInProgress",
    "HandInProgress",
    "NotDealer",
    "GameFinished",
    "UnsupportedFormat",
]


class CoinsError(Exception):
    """Base of every rule violation. ``code`` is stable and is what the API reports."""

    code = "coins_error"


class InvalidCard(CoinsError, ValueError):
    """A card code that names no card of the deck."""

    code = "invalid_card"


class InvalidSeat(CoinsError, ValueError):
    """A seat number other than 0, 1 or 2."""

    code = "invalid_seat"


class InvalidSetup(CoinsError, ValueError):
    """A game set up with impossible options (target score, first dealer, ages)."""

    code = "invalid_setup"


class NotYourTurn(CoinsError):
    """The seat tried to play while another seat is to play."""

    code = "not_your_turn"


class CardNotInHand(CoinsError):
    """The seat tried to play a card it does not hold."""

    code = "card_not_in_hand"


class NoHandInProgress(CoinsError):
    """A play was attempted while no hand is being played (the next hand is not dealt yet)."""

    code = "no_hand_in_progress"


class HandInProgress(CoinsError):
    """A deal was attempted while a hand is still being played."""

    code = "hand_in_progress"


class NotDealer(CoinsError):
    """A seat other than the dealer tried to deal."""

    code = "not_dealer"


class GameFinished(CoinsError):
    """Any action after a player has reached the target score."""

    code = "game_finished"


class UnsupportedFormat(CoinsError, ValueError):
    """Persisted data of a format version this engine cannot read, or otherwise malformed."""

    code = "unsupported_format"
