"""The rules of Coins (a game by Mark Steere), as a pure, standard-library-only package."""

from .actions import (
    Action,
    CompletedTrick,
    DealAction,
    Dealt,
    FirstDealerReason,
    HandEnded,
    Play,
    PlayAction,
    Played,
    Status,
)
from .cards import CARD_BY_CODE, CARD_CODES, DECK, RANKS, SUITS, Card, Rank, Suit, parse_card, sort_cards
from .deal import commitment, deal_hands, deal_order, derive_hand_seed
from .errors import (
    CardNotInHand,
    CoinsError,
    GameFinished,
    HandInProgress,
    InvalidCard,
    InvalidSeat,
    InvalidSetup,
    NoHandInProgress,
    NotDealer,
    NotYourTurn,
    UnsupportedFormat,
)
from .game import TRICKS_PER_HAND, Game
from .persist import FORMAT_VERSION, from_dict, from_snapshot, snapshot, to_dict
from .setup import DEFAULT_TARGET, MAX_TARGET, MIN_TARGET, SEATS, GameSetup, choose_first_dealer, left_of, right_of
from .tricks import trick_points, trick_winner
from .views import PrivateView, PublicView, private_view, public_view

__all__ = [
    "CARD_BY_CODE", "CARD_CODES", "DECK", "RANKS", "SUITS", "Card", "Rank", "Suit", "parse_card", "sort_cards",
    "commitment", "deal_hands", "deal_order", "derive_hand_seed",
    "CardNotInHand", "CoinsError", "GameFinished", "HandInProgress", "InvalidCard", "InvalidSeat",
    "InvalidSetup", "NoHandInProgress", "NotDealer", "NotYourTurn", "UnsupportedFormat",
    "DEFAULT_TARGET", "MAX_TARGET", "MIN_TARGET", "SEATS", "TRICKS_PER_HAND", "Game", "GameSetup",
    "choose_first_dealer", "left_of", "right_of",
    "FORMAT_VERSION", "from_dict", "from_snapshot", "snapshot", "to_dict",
    "Action", "CompletedTrick", "DealAction", "Dealt", "FirstDealerReason", "HandEnded", "Play",
    "PlayAction", "Played", "Status",
    "trick_points", "trick_winner",
    "PrivateView", "PublicView", "private_view", "public_view",
]  # fmt: skip
