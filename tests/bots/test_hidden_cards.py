"""Bots cannot see another seat's cards: by construction, and by experiment."""

from __future__ import annotations

import dataclasses
import inspect
import random
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.bots import STRENGTHS, BasicBot, ExpertBot, RandomBot, make_bot, review_play
from service.bots.knowledge import Knowledge
from service.engine import Card, Game, PrivateView, from_snapshot, private_view, snapshot

from .conftest import game_at

BOT_CLASSES = [RandomBot, BasicBot, ExpertBot]


@pytest.mark.parametrize("bot_class", BOT_CLASSES)
def test_decide_takes_only_a_private_view(bot_class: type[RandomBot | BasicBot | ExpertBot]) -> None:
    parameters = list(inspect.signature(bot_class.decide).parameters)
    assert parameters == ["self", "view"]
    assert typing.get_type_hints(bot_class.decide)["view"] is PrivateView


def test_a_private_view_holds_only_its_own_seats_cards() -> None:
    fields = {field.name: field.type for field in dataclasses.fields(PrivateView)}
    assert set(fields) == {"seat", "hand", "legal_cards", "public"}
    game = game_at("hidden/view", 20)
    seat = game.turn
    assert seat is not None
    others = {card for other in range(3) if other != seat for card in game.hand(other)}
    assert not others & _cards_reachable(private_view(game, seat))


def test_what_a_bot_reads_from_the_view_holds_no_hidden_card() -> None:
    assert {field.name for field in dataclasses.fields(Knowledge)} == {
        "seat", "hand", "legal", "played", "trick", "leader", "scores", "target", "cards_in_hand", "history",
    }  # fmt: skip  # history: the plays of this hand, public


def _cards_reachable(value: object, seen: set[int] | None = None) -> set[Card]:
    """Every card object reachable from ``value`` through dataclass fields, tuples and named tuples."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return set()
    seen.add(id(value))
    if isinstance(value, Card):
        return {value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        children: list[object] = [getattr(value, field.name) for field in dataclasses.fields(value)]
    elif isinstance(value, tuple | list | frozenset | set):
        children = list(value)
    else:
        return set()
    return set().union(*(_cards_reachable(child, seen) for child in children))


def _with_hidden_cards_shuffled(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game, but the other two seats' cards redealt between them (their counts kept)."""
    data = snapshot(game)
    hands = data["state"]["hands"]
    others = [other for other in range(3) if other != seat]
    pool = hands[others[0]] + hands[others[1]]
    rng.shuffle(pool)
    count = len(hands[others[0]])
    hands[others[0]], hands[others[1]] = sorted(pool[:count]), sorted(pool[count:])
    return from_snapshot(data)


@settings(max_examples=30, deadline=None)
@given(plays=st.integers(0, 40), shuffle_seed=st.integers(0, 2**32), strength=st.sampled_from(STRENGTHS))
def test_decisions_do_not_depend_on_how_the_hidden_cards_lie(plays: int, shuffle_seed: int, strength: str) -> None:
    game = game_at("hidden/permute", plays)
    seat = game.turn
    assert seat is not None
    other = _with_hidden_cards_shuffled(game, seat, random.Random(shuffle_seed))
    view, same_view = private_view(game, seat), private_view(other, seat)
    assert view == same_view
    options = {"playouts": 40} if strength in ("expert", "master") else {}
    decide = [make_bot(strength, seat, random.Random(5), **options).decide(v) for v in (view, same_view)]
    assert decide[0] == decide[1]


def test_shuffling_hidden_cards_does_change_the_other_hands() -> None:
    game = game_at("hidden/check", 5)
    seat = game.turn
    assert seat is not None
    other = _with_hidden_cards_shuffled(game, seat, random.Random(1))
    assert [other.hand(s) for s in range(3) if s != seat] != [game.hand(s) for s in range(3) if s != seat]


@settings(max_examples=15, deadline=None)
@given(plays=st.integers(0, 40), shuffle_seed=st.integers(0, 2**32))
def test_a_review_does_not_depend_on_how_the_hidden_cards_lie(plays: int, shuffle_seed: int) -> None:
    game = game_at("hidden/review", plays)
    seat = game.turn
    assert seat is not None
    other = _with_hidden_cards_shuffled(game, seat, random.Random(shuffle_seed))
    played = game.legal_cards(seat)[-1]
    judged = [review_play(private_view(g, seat), played, random.Random(9), deals=20) for g in (game, other)]
    assert judged[0] == judged[1]
