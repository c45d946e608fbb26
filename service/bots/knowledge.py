"""What a seat knows, read from its private view into masks: its hand, the cards gone, the cards unseen."""

from __future__ import annotations

from dataclasses import dataclass

from service.engine import PrivateView

from .bits import ALL_CARDS, bit_of, mask_of

__all__ = ["Knowledge", "knowledge_of"]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """One seat's knowledge of the hand in progress. It holds no card another seat holds."""

    seat: int
    hand: int  # mask of the seat's own cards
    legal: int  # mask of the cards it may play now
    played: int  # mask of the cards played this hand, the trick in progress included
    trick: tuple[int, ...]  # bits of the trick so far, in play order
    leader: int  # seat that led the trick in progress
    scores: tuple[int, int, int]
    target: int
    cards_in_hand: tuple[int, int, int]
    history: tuple[tuple[int, int], ...] = ()  # (seat, bit) of every play this hand, in order, the trick's too

    @property
    def unseen(self) -> int:
        """The cards in the other two hands, as far as this seat can tell: not its own, not played."""
        return ALL_CARDS & ~self.hand & ~self.played


def knowledge_of(view: PrivateView) -> Knowledge:
    """Read a seat's private view into masks."""
    public = view.public
    trick = tuple(bit_of(play.card) for play in public.trick)
    history = tuple((play.seat, bit_of(play.card)) for done in public.hand_tricks for play in done.plays)
    history += tuple((play.seat, bit_of(play.card)) for play in public.trick)
    played = 0
    for _, bit in history:
        played |= 1 << bit
    leader = public.leader if public.leader is not None else view.seat
    return Knowledge(
        seat=view.seat,
        hand=mask_of(view.hand),
        legal=mask_of(view.legal_cards),
        played=played,
        trick=trick,
        leader=leader,
        scores=public.scores,
        target=public.target_score,
        cards_in_hand=public.cards_in_hand,
        history=history,
    )
