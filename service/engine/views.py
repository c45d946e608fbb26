"""What each audience may see: the public view, and one seat's private view.

The API and the bots work only from these, so a hidden card cannot reach them by accident:
a :class:`PublicView` holds no card that is still in a hand, and a :class:`PrivateView`
adds only its own seat's cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import CompletedTrick, FirstDealerReason, HandEnded, Play, Status
from .cards import Card
from .game import Game

__all__ = ["PublicView", "PrivateView", "public_view", "private_view"]


@dataclass(frozen=True, slots=True)
class PublicView:
    """Everything anyone may know about the game."""

    status: Status
    target_score: int
    seeded: bool
    first_dealer: int
    first_dealer_reason: FirstDealerReason
    hand_number: int
    dealer: int
    leader: int | None
    turn: int | None
    trick_number: int
    trick: tuple[Play, ...]
    hand_tricks: tuple[CompletedTrick, ...]  # completed tricks of the current hand
    last_trick: CompletedTrick | None
    scores: tuple[int, int, int]
    tricks_won: tuple[int, int, int]
    cards_in_hand: tuple[int, int, int]
    winner: int | None
    commitment: str | None  # of the hand in progress
    revealed_hands: tuple[HandEnded, ...]  # hands that are over, seeds revealed

    @property
    def played_cards(self) -> frozenset[Card]:
        """Every card played so far in the current hand: no longer in anyone's hand."""
        cards = {play.card for trick in self.hand_tricks for play in trick.plays}
        cards.update(play.card for play in self.trick)
        return frozenset(cards)


@dataclass(frozen=True, slots=True)
class PrivateView:
    """What one seat knows: the public view plus its own hand."""

    seat: int
    hand: tuple[Card, ...]
    legal_cards: tuple[Card, ...]
    public: PublicView


def public_view(game: Game) -> PublicView:
    setup = game.setup
    return PublicView(
        status=game.status,
        target_score=setup.target_score,
        seeded=setup.seed is not None,
        first_dealer=setup.first_dealer,
        first_dealer_reason=setup.first_dealer_reason,
        hand_number=game.hand_number,
        dealer=game.dealer,
        leader=game.leader,
        turn=game.turn,
        trick_number=game.trick_number,
        trick=game.trick,
        hand_tricks=game.hand_tricks,
        last_trick=game.last_trick,
        scores=game.scores,
        tricks_won=game.tricks_won,
        cards_in_hand=game.cards_in_hand,
        winner=game.winner,
        commitment=game.commitment,
        revealed_hands=game.revealed_hands,
    )


def private_view(game: Game, seat: int) -> PrivateView:
    return PrivateView(seat, game.hand(seat), game.legal_cards(seat), public_view(game))
