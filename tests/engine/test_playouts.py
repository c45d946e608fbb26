"""Properties of complete random games (Hypothesis), and thousands of random playouts.

A referee follows each game action by action, keeping its own account of the rules (whose
turn it is, the cards in play, the scores, who deals next) and checking the engine against it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine import (
    DECK,
    Card,
    DealAction,
    Dealt,
    FirstDealerReason,
    Game,
    GameFinished,
    GameSetup,
    Play,
    PlayAction,
    Played,
    Status,
    from_dict,
    from_snapshot,
    private_view,
    public_view,
    snapshot,
    to_dict,
    trick_winner,
)

ALL_CARDS = frozenset(DECK)


def left(seat: int) -> int:
    return (seat + 1) % 3


def right(seat: int) -> int:
    return (seat + 2) % 3


def cards_in(value: Any) -> set[Card]:
    """Every card reachable from a view or a record, however deeply nested."""
    found: set[Card] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is Card:
            found.add(item)
        elif kind in ATOMS:
            continue
        elif isinstance(item, tuple | list | set | frozenset):
            stack.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, name) for name in field_names(type(item)))
        else:
            raise AssertionError(f"cards_in does not know how to look inside {item!r}")
    return found


ATOMS = frozenset({type(None), bool, int, str, bytes, Status, FirstDealerReason})


@functools.cache
def field_names(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))


class Referee:
    """Checks every action of one game against the rules, from the setup on."""

    def __init__(self, game: Game, *, thorough: bool) -> None:
        self.game = game
        self.thorough = thorough
        self.target = game.target_score
        self.next_dealer = game.setup.first_dealer
        self.scores = [0, 0, 0]
        self.coins_captured = 0
        self.hand_number = 0
        self.last_winner: int | None = None  # of the previous trick
        self.hand_seed: bytes | None = None
        self.turn: int | None = None
        self.trick: list[Play] = []
        self.trick_number = 0
        assert game.status is Status.WAITING_FOR_DEAL and game.turn == game.dealer == self.next_dealer

    def step(self, rng: random.Random, seeds: random.Random) -> Dealt | Played:
        """Take the next action (a deal when one is due, else a random legal card) and check it."""
        game = self.game
        if game.status is Status.WAITING_FOR_DEAL:
            seed = None if game.setup.seed is not None else seeds.randbytes(rng.choice([1, 8, 32]))
            dealt = game.deal(game.dealer, seed)
            self.check_deal(dealt)
            result: Dealt | Played = dealt
        else:
            seat = game.turn
            assert seat is not None
            legal = game.legal_cards(seat)
            played = game.play(seat, rng.choice(legal))
            self.check_play(played, legal)
            result = played
        if self.thorough or not self.trick:  # every step, or as each trick is taken
            self.check_cards_accounted_for()
        if self.thorough:
            self.check_views()
            self.check_can_play_matches_legal_cards()
        if game.is_over:
            self.check_everything_is_refused()
        return result

    # -- the rules, one action at a time ---------------------------------------------------

    def check_deal(self, dealt: Dealt) -> None:
        game = self.game
        dealer = self.next_dealer
        self.hand_number += 1
        assert dealt == Dealt(self.hand_number, dealer, right(dealer), left(dealer), left(dealer), dealt.commitment)
        if self.last_winner is not None:
            assert dealt.leader == self.last_winner  # the winner of the last trick leads the new hand
        action = game.log[-1]
        assert isinstance(action, DealAction) and action.seat == dealer
        if game.setup.seed is not None:
            expected = f"coins/v1/hand/{game.setup.seed}/{self.hand_number}".encode()
            assert action.seed == hashlib.sha256(expected).digest()
        self.hand_seed = action.seed
        assert dealt.commitment == game.commitment == hashlib.sha256(action.seed).hexdigest()
        assert game.status is Status.PLAYING
        assert game.hand_number == self.hand_number and game.dealer == dealer
        assert game.shuffler == right(dealer) and game.cutter == left(dealer)
        assert game.turn == game.leader == left(dealer)
        assert game.cards_in_hand == (16, 16, 16) and game.tricks_won == (0, 0, 0)
        assert game.hand_tricks == () and game.trick == ()
        for seat in range(3):
            assert list(game.hand(seat)) == sorted(game.hand(seat), key=lambda card: card.order)
        self.turn = left(dealer)
        self.trick = []
        self.trick_number = 0

    def check_play(self, played: Played, legal: tuple[Card, ...]) -> None:
        game = self.game
        seat, card = played.seat, played.card
        assert seat == self.turn
        assert card in legal and card not in game.hand(seat)
        assert len(game.hand(seat)) == len(legal) - 1
        assert game.log[-1] == PlayAction(seat, card)
        self.trick.append(Play(seat, card))
        assert played.hand_number == self.hand_number
        assert played.trick_number == self.trick_number + 1
        assert played.trick == tuple(self.trick)
        leader = self.trick[0].seat
        assert [play.seat for play in self.trick] == [(leader + k) % 3 for k in range(len(self.trick))]
        if len(self.trick) < 3:
            assert played.completed is None and played.hand_ended is None and played.winner is None
            assert game.turn == left(seat) and game.leader == leader
            assert game.trick == tuple(self.trick)
            self.turn = left(seat)
            return

        completed = played.completed
        assert completed is not None
        self.trick_number += 1
        plays = tuple(self.trick)
        cards = [play.card for play in plays]
        winner = plays[trick_winner(cards)].seat
        points = sum(1 for c in cards if c.suit.value == "coins")
        assert (completed.hand_number, completed.trick_number, completed.leader) == (
            self.hand_number,
            self.trick_number,
            leader,
        )
        assert completed.plays == plays and completed.winner == winner and completed.points == points
        assert game.last_trick == completed and game.hand_tricks[-1] == completed
        assert len(game.hand_tricks) == self.trick_number
        self.trick = []
        self.last_winner = winner
        assert max(self.scores) < self.target  # the game did not go on past a win
        self.scores[winner] += points
        self.coins_captured += points
        assert game.scores == tuple(self.scores)
        assert sum(game.scores) == self.coins_captured
        assert sum(game.tricks_won) == self.trick_number

        if self.scores[winner] >= self.target:  # the moment the target is reached, mid-hand or not
            assert game.status is Status.FINISHED and game.is_over
            assert game.winner == played.winner == winner
            assert game.turn is None and game.leader is None
            assert played.hand_ended is not None and played.hand_ended.next_dealer is None
            assert played.hand_ended.seed == self.hand_seed
            assert game.revealed_hands[-1] == played.hand_ended
            assert sorted(self.scores)[1] < self.target  # only the winner reached it
            self.turn = None
        elif self.trick_number == 16:
            self.next_dealer = right(winner)
            assert game.status is Status.WAITING_FOR_DEAL and game.winner is None and played.winner is None
            assert game.dealer == game.turn == self.next_dealer and game.leader is None
            assert played.hand_ended is not None and played.hand_ended.next_dealer == self.next_dealer
            assert played.hand_ended.seed == self.hand_seed and played.hand_ended.hand_number == self.hand_number
            assert game.revealed_hands[-1] == played.hand_ended
            assert game.cards_in_hand == (0, 0, 0) and game.commitment is None
            self.turn = None
        else:
            assert game.status is Status.PLAYING and played.hand_ended is None and played.winner is None
            assert game.turn == game.leader == winner  # the winner leads the next trick
            assert game.trick == ()
            self.turn = winner

    def check_cards_accounted_for(self) -> None:
        game = self.game
        held = [card for seat in range(3) for card in game.hand(seat)]
        on_table = [play.card for play in game.trick]
        taken = [play.card for trick in game.hand_tricks for play in trick.plays]
        everything = held + on_table + taken
        assert len(everything) == 48 and set(everything) == ALL_CARDS
        assert game.cards_in_hand == tuple(len(game.hand(seat)) for seat in range(3))

    # -- what each audience sees -----------------------------------------------------------

    def check_views(self) -> None:
        game = self.game
        hands = [set(game.hand(seat)) for seat in range(3)]
        in_hands = set().union(*hands)
        public = public_view(game)
        public_cards = cards_in(public)
        # No card still in a hand is public. The last trick of the previous hand stays on show
        # until this hand's first trick is taken: its cards are of the old deal, not the new one.
        last = public.last_trick
        if last is not None and last.hand_number < game.hand_number:
            assert public.hand_tricks == ()
            assert not (public_cards - cards_in(last)) & in_hands
        else:
            assert not public_cards & in_hands
        assert public.played_cards == ALL_CARDS - in_hands  # every card of this hand is held or played
        assert (public.status, public.hand_number, public.dealer, public.turn, public.scores) == (
            game.status,
            game.hand_number,
            game.dealer,
            game.turn,
            game.scores,
        )
        assert public.cards_in_hand == tuple(len(hand) for hand in hands)
        if game.status is Status.PLAYING:
            assert [ended.hand_number for ended in public.revealed_hands] == list(range(1, game.hand_number))
            assert public.commitment == hashlib.sha256(self.hand_seed or b"").hexdigest()
        for seat in range(3):
            private = private_view(game, seat)
            assert private.public == public
            assert set(private.hand) == hands[seat] and private.hand == game.hand(seat)
            own = [getattr(private, field.name) for field in dataclasses.fields(private) if field.name != "public"]
            assert cards_in(own) <= hands[seat]  # all it adds to the public view is its own hand
            expected_legal = game.hand(seat) if game.status is Status.PLAYING and game.turn == seat else ()
            assert private.legal_cards == game.legal_cards(seat) == expected_legal

    def check_can_play_matches_legal_cards(self) -> None:
        game = self.game
        for seat in range(3):
            legal = set(game.legal_cards(seat))
            for card in DECK:
                assert game.can_play(seat, card) is (card in legal)
            assert game.can_deal(seat) is (game.status is Status.WAITING_FOR_DEAL and seat == game.dealer)

    def check_everything_is_refused(self) -> None:
        game = self.game
        before = snapshot(game, include_log=True)
        for seat in range(3):
            assert not game.can_deal(seat) and game.legal_cards(seat) == ()
            for attempt in (game.deal, game.verify_deal):
                try:
                    attempt(seat)
                except GameFinished:
                    pass
                else:
                    raise AssertionError("an action was accepted after the game was won")
            for card in game.hand(seat) if self.thorough else game.hand(seat)[:1]:
                assert not game.can_play(seat, card)
                try:
                    game.play(seat, card)
                except GameFinished:
                    pass
                else:
                    raise AssertionError("a play was accepted after the game was won")
        assert snapshot(game, include_log=True) == before


def play_out(game: Game, referee: Referee, rng: random.Random, seeds: random.Random) -> list[Dealt | Played]:
    records = []
    while not game.is_over:
        records.append(referee.step(rng, seeds))
    return records


# -- Hypothesis: complete random games -------------------------------------------------------

game_plans = st.fixed_dictionaries(
    {
        "target": st.integers(1, 30) | st.sampled_from([10, 15, 20]),
        "first_dealer": st.integers(0, 2),
        "seed": st.none() | st.text(max_size=12),
        "choices": st.integers(0, 2**64 - 1),
        "stop_at": st.integers(0, 10_000),
    }
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def new_game(plan: dict[str, Any]) -> Game:
    return Game(GameSetup(target_score=plan["target"], first_dealer=plan["first_dealer"], seed=plan["seed"]))


@SETTINGS
@given(game_plans)
def test_random_complete_games_follow_the_rules(plan: dict[str, Any]) -> None:
    game = new_game(plan)
    referee = Referee(game, thorough=True)
    play_out(game, referee, random.Random(plan["choices"]), random.Random(~plan["choices"]))
    assert game.is_over and game.winner is not None
    assert max(game.scores) == game.scores[game.winner] >= game.target_score
    assert Game.replay(game.setup, game.log) == game


def clone(rng: random.Random) -> random.Random:
    copy = random.Random()
    copy.setstate(rng.getstate())
    return copy


@SETTINGS
@given(game_plans)
def test_saving_loading_and_going_on_is_the_same_game(plan: dict[str, Any]) -> None:
    game = new_game(plan)
    rng, seeds = random.Random(plan["choices"]), random.Random(~plan["choices"])
    referee = Referee(game, thorough=False)
    while not game.is_over and len(game.log) < plan["stop_at"] % 400:
        referee.step(rng, seeds)

    saved_snapshot = json.loads(json.dumps(snapshot(game)))
    saved_whole = json.loads(json.dumps(to_dict(game)))
    resumed = [from_snapshot(saved_snapshot), from_dict(saved_whole), Game.replay(game.setup, game.log)]
    for other in resumed:
        assert snapshot(other) == snapshot(game)
    assert resumed[1] == resumed[2] == game  # with the log: the very same game
    assert resumed[0].log == ()  # a snapshot without its log holds the state only

    finals = []
    for copy in [game, *resumed]:
        copy_rng, copy_seeds = clone(rng), clone(seeds)
        records: list[Dealt | Played] = []
        while not copy.is_over:
            if copy.status is Status.WAITING_FOR_DEAL:
                seed = None if copy.setup.seed is not None else copy_seeds.randbytes(copy_rng.choice([1, 8, 32]))
                records.append(copy.deal(copy.dealer, seed))
            else:
                seat = copy.turn
                assert seat is not None
                records.append(copy.play(seat, copy_rng.choice(copy.legal_cards(seat))))
        finals.append((snapshot(copy), records))
    assert all(final == finals[0] for final in finals[1:])
    assert resumed[1] == resumed[2] == game
    assert from_dict(json.loads(json.dumps(to_dict(game)))) == game


# -- thousands of random playouts ---------------------------------------------------------------


def test_thousands_of_random_playouts() -> None:
    rng, seeds = random.Random(20221001), random.Random(7)
    games = plays = 0
    for number in range(2000):
        target = rng.choice([1, 2, 5, 10, 15, 15, 15, 20, 30]) if number % 100 else 100
        seed = f"playout {number}" if number % 2 else None
        game = Game(GameSetup(target_score=target, first_dealer=number % 3, seed=seed))
        referee = Referee(game, thorough=number % 50 == 25)
        records = play_out(game, referee, rng, seeds)
        plays += sum(isinstance(record, Played) for record in records)
        games += 1
        if number % 25 == 0:
            assert Game.replay(game.setup, game.log) == game
            assert from_dict(json.loads(json.dumps(to_dict(game)))) == game
    assert games == 2000 and plays > 200_000
