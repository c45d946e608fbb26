"""A game of Coins as a state machine: three seats, deals and plays, to a target score.

Each action is offered three ways: ``verify_x`` raises the precise error, ``can_x`` answers
with a bool, and ``x`` applies the action and returns a frozen record of what happened.
A game is its setup plus its list of actions: :meth:`Game.replay` rebuilds it exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter

from .actions import (
    Action,
    CompletedTrick,
    DealAction,
    Dealt,
    HandEnded,
    Play,
    PlayAction,
    Played,
    Status,
)
from .cards import DECK, Card
from .deal import commitment, deal_hands, derive_hand_seed, new_hand_seed
from .errors import (
    CardNotInHand,
    GameFinished,
    HandInProgress,
    InvalidCard,
    InvalidSeat,
    InvalidSetup,
    NoHandInProgress,
    NotDealer,
    NotYourTurn,
)
from .setup import SEATS, GameSetup, check_seat, left_of, right_of
from .tricks import trick_winner

__all__ = [
    "TRICKS_PER_HAND",
    "Game",
]

TRICKS_PER_HAND = 16

# Hot-path constants: an enum member costs a class attribute lookup each time it is named.
_WAITING_FOR_DEAL = Status.WAITING_FOR_DEAL
_PLAYING = Status.PLAYING
_FINISHED = Status.FINISHED
# Every (seat, card) pair as an immutable record, made once: a play allocates neither.
_PLAYS = tuple(tuple(Play(seat, card) for card in DECK) for seat in SEATS)
_PLAY_ACTIONS = tuple(tuple(PlayAction(seat, card) for card in DECK) for seat in SEATS)
_card_order = attrgetter("order")


class Game:
    """The state of one game of Coins, changed only through its actions."""

    __slots__ = (
        "setup",
        "_status",
        "_hand_number",
        "_dealer",
        "_leader",
        "_turn",
        "_hands",
        "_trick",
        "_hand_tricks",
        "_last_trick",
        "_scores",
        "_tricks_won",
        "_winner",
        "_seed",
        "_commitment",
        "_revealed",
        "_log",
    )

    def __init__(self, setup: GameSetup | None = None) -> None:
        self.setup = setup if setup is not None else GameSetup()
        self._status = _WAITING_FOR_DEAL
        self._hand_number = 0
        self._dealer = self.setup.first_dealer
        self._leader: int | None = None
        self._turn: int | None = self._dealer
        self._hands: tuple[list[Card], list[Card], list[Card]] = ([], [], [])
        self._trick: list[Play] = []
        self._hand_tricks: list[CompletedTrick] = []
        self._last_trick: CompletedTrick | None = None
        self._scores = [0, 0, 0]
        self._tricks_won = [0, 0, 0]
        self._winner: int | None = None
        self._seed: bytes | None = None
        self._commitment: str | None = None
        self._revealed: list[HandEnded] = []
        self._log: list[Action] = []

    # -- reading the state ------------------------------------------------------------

    @property
    def status(self) -> Status:
        return self._status

    @property
    def target_score(self) -> int:
        return self.setup.target_score

    @property
    def hand_number(self) -> int:
        """0 before the first deal, then 1, 2, …"""
        return self._hand_number

    @property
    def dealer(self) -> int:
        """The dealer of the current hand, or of the next one while waiting for a deal."""
        return self._dealer

    @property
    def shuffler(self) -> int:
        return right_of(self._dealer)

    @property
    def cutter(self) -> int:
        return left_of(self._dealer)

    @property
    def leader(self) -> int | None:
        """The seat that led (or is to lead) the trick in progress."""
        return self._leader

    @property
    def turn(self) -> int | None:
        """The seat expected to act: the dealer while waiting for a deal, the player to play while playing."""
        return self._turn

    @property
    def trick(self) -> tuple[Play, ...]:
        """The plays of the trick in progress."""
        return tuple(self._trick)

    @property
    def trick_number(self) -> int:
        """The number (1 to 16) of the trick in progress, or of the last one played."""
        return len(self._hand_tricks) + (1 if self._trick or self._status is _PLAYING else 0)

    @property
    def hand_tricks(self) -> tuple[CompletedTrick, ...]:
        """The completed tricks of the current (or last) hand, oldest first."""
        return tuple(self._hand_tricks)

    @property
    def last_trick(self) -> CompletedTrick | None:
        return self._last_trick

    @property
    def scores(self) -> tuple[int, int, int]:
        a, b, c = self._scores
        return a, b, c

    @property
    def tricks_won(self) -> tuple[int, int, int]:
        """Tricks each seat has won in the current (or last) hand."""
        a, b, c = self._tricks_won
        return a, b, c

    @property
    def cards_in_hand(self) -> tuple[int, int, int]:
        a, b, c = self._hands
        return len(a), len(b), len(c)

    @property
    def winner(self) -> int | None:
        return self._winner

    @property
    def is_over(self) -> bool:
        return self._status is _FINISHED

    @property
    def commitment(self) -> str | None:
        """SHA-256 of the current hand's seed: public from the deal on."""
        return self._commitment

    @property
    def revealed_hands(self) -> tuple[HandEnded, ...]:
        """Every hand that is over, with its seed revealed."""
        return tuple(self._revealed)

    @property
    def log(self) -> tuple[Action, ...]:
        """Every action applied so far, oldest first: with the setup, the whole game."""
        return tuple(self._log)

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds, sorted by suit in cycle order, then rank high to low. Secret."""
        return tuple(self._hands[check_seat(seat)])

    def legal_cards(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` may play now: its whole hand on its turn (no duty to follow suit), else none."""
        if self._status is _PLAYING and seat == self._turn and type(seat) is int:
            return tuple(self._hands[seat])
        return ()

    # -- dealing ----------------------------------------------------------------------

    def verify_deal(self, seat: int) -> None:
        """Raise the precise error if ``seat`` may not deal now."""
        check_seat(seat)
        if self._status is _FINISHED:
            raise GameFinished("the game is over")
        if self._status is _PLAYING:
            raise HandInProgress(f"hand {self._hand_number} is still being played")
        if seat != self._dealer:
            raise NotDealer(f"seat {self._dealer} deals this hand, not seat {seat}")

    def can_deal(self, seat: int) -> bool:
        try:
            self.verify_deal(seat)
        except (InvalidSeat, GameFinished, HandInProgress, NotDealer):
            return False
        return True

    def deal(self, seat: int, seed: bytes | None = None) -> Dealt:
        """The dealer deals the next hand. Without ``seed`` the game's seed or :mod:`secrets` provides one."""
        self.verify_deal(seat)
        if seed is None:
            if self.setup.seed is not None:
                seed = derive_hand_seed(self.setup.seed, self._hand_number + 1)
            else:
                seed = new_hand_seed()
        elif not isinstance(seed, bytes) or not seed:
            raise InvalidSetup("a hand's seed is a non-empty bytes value")
        return self._apply_deal(DealAction(seat, seed))

    def _apply_deal(self, action: DealAction) -> Dealt:
        dealer = self._dealer
        hands = deal_hands(action.seed, dealer)
        for cards in hands:
            cards.sort(key=_card_order)
        self._hands = hands
        self._hand_number += 1
        self._status = _PLAYING
        self._leader = self._turn = left_of(dealer)
        self._trick = []
        self._hand_tricks = []
        self._tricks_won = [0, 0, 0]
        self._seed = action.seed
        self._commitment = commitment(action.seed)
        self._log.append(action)
        return Dealt(self._hand_number, dealer, right_of(dealer), left_of(dealer), self._leader, self._commitment)

    # -- playing ----------------------------------------------------------------------

    def verify_play(self, seat: int, card: Card) -> None:
        """Raise the precise error if ``seat`` may not play ``card`` now."""
        status = self._status
        if status is not _PLAYING:
            check_seat(seat)
            if status is _FINISHED:
                raise GameFinished("the game is over")
            raise NoHandInProgress(f"hand {self._hand_number + 1} has not been dealt yet")
        if seat != self._turn or type(seat) is not int:
            check_seat(seat)
            raise NotYourTurn(f"it is seat {self._turn}'s turn, not seat {seat}'s")
        if type(card) is not Card:
            raise InvalidCard(f"{card!r} is not a card")
        if card not in self._hands[seat]:
            raise CardNotInHand(f"seat {seat} does not hold {card.code}")

    def can_play(self, seat: int, card: Card) -> bool:
        # Exactly the conditions verify_play checks, without the cost of building an exception.
        return (
            self._status is _PLAYING
            and seat == self._turn
            and type(seat) is int
            and type(card) is Card
            and card in self._hands[seat]
        )

    def play(self, seat: int, card: Card) -> Played:
        """``seat`` plays ``card``; the third card of a trick settles it."""
        if not self.can_play(seat, card):
            self.verify_play(seat, card)  # raises the precise error
            raise AssertionError("verify_play accepted a play that can_play refuses")
        return self._apply_play(seat, card)

    def _apply_play(self, seat: int, card: Card) -> Played:
        order = card.order
        self._hands[seat].remove(card)
        self._log.append(_PLAY_ACTIONS[seat][order])
        trick = self._trick
        trick.append(_PLAYS[seat][order])
        trick_number = len(self._hand_tricks) + 1
        if len(trick) < 3:
            self._turn = (seat + 1) % 3
            return Played(seat, card, self._hand_number, trick_number, tuple(trick), None, None, None)

        a, b, c = trick
        plays = (a, b, c)
        win = plays[trick_winner((a.card, b.card, c.card))].seat
        points = (a.card.suit_index == 1) + (b.card.suit_index == 1) + (c.card.suit_index == 1)
        leader = a.seat
        completed = CompletedTrick(self._hand_number, trick_number, leader, plays, win, points)
        self._hand_tricks.append(completed)
        self._last_trick = completed
        self._trick = []
        scores = self._scores
        scores[win] += points
        self._tricks_won[win] += 1

        hand_ended = None
        if scores[win] >= self.setup.target_score:
            self._status = _FINISHED
            self._winner = win
            self._turn = self._leader = None
            hand_ended = self._end_hand(None)
        elif trick_number == TRICKS_PER_HAND:
            self._status = _WAITING_FOR_DEAL
            self._dealer = right_of(win)  # so the winner of the last trick leads next
            self._turn = self._dealer
            self._leader = None
            hand_ended = self._end_hand(self._dealer)
        else:
            self._leader = self._turn = win
        return Played(seat, card, self._hand_number, trick_number, plays, completed, hand_ended, self._winner)

    def _end_hand(self, next_dealer: int | None) -> HandEnded:
        assert self._seed is not None and self._commitment is not None
        ended = HandEnded(self._hand_number, self._seed, self._commitment, next_dealer)
        self._revealed.append(ended)
        self._seed = None
        self._commitment = None
        return ended

    # -- replay -----------------------------------------------------------------------

    def apply(self, action: Action) -> Dealt | Played:
        """Apply a logged action, with full validation."""
        if isinstance(action, DealAction):
            return self.deal(action.seat, action.seed)
        return self.play(action.seat, action.card)

    @classmethod
    def replay(cls, setup: GameSetup, actions: Iterable[Action]) -> Game:
        """Rebuild a game from its setup and its action log."""
        game = cls(setup)
        for action in actions:
            game.apply(action)
        return game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in Game.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"<Game {self._status.value} hand={self._hand_number} dealer={self._dealer} "
            f"turn={self._turn} scores={self._scores} target={self.setup.target_score}>"
        )
