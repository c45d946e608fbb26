"""Fair deals: the shuffle, the cut and the deal against an independent re-implementation of the documented algorithm."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterator

import pytest

from service.engine import (
    CARD_CODES,
    DECK,
    DealAction,
    Game,
    GameSetup,
    InvalidSetup,
    commitment,
    deal_hands,
    deal_order,
    derive_hand_seed,
)
from service.engine.deal import DealStream, cut, shuffle

# -- the algorithm of docs/fair-deals.md, written from the prose, not from the engine -------


def reference_words(seed: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        counter += 1


def reference_below(words: Iterator[int], n: int) -> int:
    while True:
        x = next(words)
        if x < 2**32 - (2**32 % n):
            return x % n


def reference_deal_order(seed: bytes) -> list[str]:
    words = reference_words(seed)
    deck = list(CARD_CODES)  # cups, coins, swords, clubs; ace down to 2
    for i in range(47, 0, -1):
        j = reference_below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    c = 1 + reference_below(words, 47)
    return deck[c:] + deck[:c]


SEEDS = [b"\x00" * 32, b"\xff" * 32, b"x", bytes(range(32)), hashlib.sha256(b"coins").digest(), b"a longer seed " * 9]


@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: seed.hex()[:16])
def test_deal_order_follows_the_documented_algorithm(seed: bytes) -> None:
    assert [card.code for card in deal_order(seed)] == reference_deal_order(seed)


def test_many_random_seeds_follow_the_documented_algorithm() -> None:
    for _ in range(300):
        seed = secrets.token_bytes(32)
        assert [card.code for card in deal_order(seed)] == reference_deal_order(seed)


@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: seed.hex()[:16])
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_sixteen_each_one_at_a_time_from_the_dealers_left(seed: bytes, dealer: int) -> None:
    order = deal_order(seed)
    hands = deal_hands(seed, dealer)
    assert [len(hand) for hand in hands] == [16, 16, 16]
    assert sorted(card.order for hand in hands for card in hand) == list(range(48))
    left, right = (dealer + 1) % 3, (dealer + 2) % 3
    for k, card in enumerate(order):
        receiver = (left, right, dealer)[k % 3]
        assert hands[receiver][k // 3] is card


def test_shuffle_and_cut_are_deterministic_and_depend_on_the_seed() -> None:
    assert deal_order(b"seed") == deal_order(b"seed")
    assert deal_hands(b"seed", 1) == deal_hands(b"seed", 1)
    assert deal_order(b"seed") != deal_order(b"seed.")
    stream_a, stream_b = DealStream(b"s"), DealStream(b"s")
    shuffled = shuffle(stream_a)
    assert shuffled == shuffle(stream_b)
    assert sorted(shuffled, key=lambda card: card.order) == list(DECK)
    assert cut(list(shuffled), stream_a) == cut(list(shuffled), stream_b)


def test_the_cut_leaves_at_least_one_card_in_each_packet() -> None:
    class Fixed(DealStream):
        def __init__(self, value: int) -> None:
            super().__init__(b"")
            self.value = value

        def below(self, n: int) -> int:
            assert n == 47
            return self.value

    deck = list(DECK)
    assert cut(deck, Fixed(0)) == deck[1:] + deck[:1]
    assert cut(deck, Fixed(46)) == deck[47:] + deck[:47]


def test_stream_words_are_sha256_counter_blocks_read_big_endian() -> None:
    stream = DealStream(b"abc")
    words = reference_words(b"abc")
    for n in [2**32] * 20:  # below(2**32) consumes exactly one word and returns it
        assert stream.below(n) == next(words)


@pytest.mark.parametrize("n", [1, 2, 3, 47, 48, 49, 1000, 2**31 + 1, 3 * 2**30, 2**32 - 1, 2**32])
def test_below_matches_the_reference_including_rejections(n: int) -> None:
    # For n = 2**31 + 1 about half the words are at or above the limit and are discarded.
    stream, words = DealStream(b"rejections"), reference_words(b"rejections")
    assert [stream.below(n) for _ in range(200)] == [reference_below(words, n) for _ in range(200)]


def test_below_discards_words_at_or_above_the_limit() -> None:
    limit = 2**32 - (2**32 % 48)  # 2**32 - 16
    stream = DealStream(b"forced")
    stream._words = iter([2**32 - 1, limit, limit + 7, limit - 1, 2**32 - 1, 5])
    assert stream.below(48) == (limit - 1) % 48 == 47
    assert stream.below(48) == 5


def test_shuffle_draws_through_the_rejection_rule() -> None:
    # Before each draw's word 0, every 32-bit word too big for that draw: the shuffle must skip them.
    limits = [2**32 - (2**32 % (i + 1)) for i in range(47, 0, -1)]
    forced = []
    for limit in limits:
        forced += [word for word in (limit, limit + 1, 2**32 - 1) if limit <= word < 2**32] + [0]
    assert len(forced) > 47 + 40  # only the powers of two have nothing to reject
    stream = DealStream(b"")
    stream._words = iter(forced)
    assert shuffle(stream) == shuffle(_zeros_stream())


def _zeros_stream() -> DealStream:
    stream = DealStream(b"")
    stream._words = iter([0] * 47)
    return stream


@pytest.mark.parametrize("n", [0, -1, 2**32 + 1])
def test_below_rejects_an_impossible_range(n: int) -> None:
    with pytest.raises(ValueError, match=re.escape("n must be in 1 .. 2**32")):
        DealStream(b"x").below(n)


def test_commitment_is_the_sha256_of_the_seed() -> None:
    for seed in SEEDS:
        assert commitment(seed) == hashlib.sha256(seed).hexdigest()


def test_a_game_publishes_the_commitment_and_reveals_the_seed_at_hand_end() -> None:
    game = Game(GameSetup(target_score=100, first_dealer=2))
    dealt = game.deal(2, b"my seed")
    assert dealt.commitment == game.commitment == hashlib.sha256(b"my seed").hexdigest()
    assert game.revealed_hands == ()
    for seat in range(3):
        assert list(game.hand(seat)) == sorted(deal_hands(b"my seed", 2)[seat], key=lambda card: card.order)
    while game.hand_number == 1 and game.status.value == "playing":
        to_play = game.turn
        assert to_play is not None
        game.play(to_play, game.legal_cards(to_play)[0])
    assert len(game.revealed_hands) == 1
    ended = game.revealed_hands[0]
    assert (ended.hand_number, ended.seed, ended.commitment) == (1, b"my seed", dealt.commitment)
    assert game.commitment is None


def test_seeded_games_derive_each_hand_seed_as_documented() -> None:
    for game_seed, hand_number in [("abc", 1), ("abc", 2), ("", 1), ("ünïcode/seed", 17)]:
        expected = hashlib.sha256(f"coins/v1/hand/{game_seed}/{hand_number}".encode()).digest()
        assert derive_hand_seed(game_seed, hand_number) == expected
    game = Game(GameSetup(target_score=100, first_dealer=0, seed="table 7"))
    for hand_number in (1, 2):
        game.deal(game.dealer)
        assert game.log[-1] == DealAction(game.dealer, derive_hand_seed("table 7", hand_number))
        assert game.commitment == hashlib.sha256(derive_hand_seed("table 7", hand_number)).hexdigest()
        while game.status.value == "playing":
            seat = game.turn
            assert seat is not None
            game.play(seat, game.legal_cards(seat)[-1])
    assert [ended.seed for ended in game.revealed_hands] == [derive_hand_seed("table 7", n) for n in (1, 2)]


def test_unseeded_games_take_hand_seeds_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    logs = []
    for _ in range(5):
        game = Game()
        game.deal(0)
        (action,) = game.log
        assert isinstance(action, DealAction)
        logs.append(action.seed)
    assert len(set(logs)) == 5
    assert all(len(seed) == 32 for seed in logs)

    calls: list[int] = []

    def token_bytes(n: int) -> bytes:
        calls.append(n)
        return b"\x07" * n

    monkeypatch.setattr(secrets, "token_bytes", token_bytes)  # the module the engine draws from
    game = Game()
    game.deal(0)
    assert calls == [32]
    assert game.log == (DealAction(0, b"\x07" * 32),)


@pytest.mark.parametrize("seed", [b"", "a string", bytearray(b"x"), 7])
def test_a_callers_hand_seed_is_non_empty_bytes(seed: object) -> None:
    game = Game()
    with pytest.raises(InvalidSetup, match="non-empty bytes"):
        game.deal(0, seed)  # type: ignore[arg-type]
    assert game.hand_number == 0 and game.log == ()
