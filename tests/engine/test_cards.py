"""Cards: the 48 codes of the contract, parsing with precise errors, interning, immutability."""

from __future__ import annotations

import copy
import pickle

import pytest

from service.engine import CARD_CODES, DECK, RANKS, SUITS, Card, InvalidCard, Rank, Suit, parse_card, sort_cards

RANK_CODES = ["ace", "king", "knight", "knave", "9", "8", "7", "6", "5", "4", "3", "2"]
SUIT_CODES = ["cups", "coins", "swords", "clubs"]
ALL_CODES = [f"{rank}-{suit}" for suit in SUIT_CODES for rank in RANK_CODES]


def test_the_deck_is_the_contracts_48_codes_in_canonical_order() -> None:
    assert list(CARD_CODES) == ALL_CODES
    assert [card.code for card in DECK] == ALL_CODES
    assert [rank.value for rank in RANKS] == RANK_CODES
    assert [suit.value for suit in SUITS] == SUIT_CODES
    assert [card.order for card in DECK] == list(range(48))


@pytest.mark.parametrize("code", ALL_CODES)
def test_every_code_round_trips(code: str) -> None:
    card = parse_card(code)
    assert card.code == str(card) == code
    assert parse_card(card.code) is card
    assert Card.parse(code) is card
    assert Card(card.rank, card.suit) is card
    assert card.is_coin == code.endswith("-coins")
    assert repr(card) == f"Card({code})"


RANK_LIST = "ace, king, knight, knave, 9, 8, 7, 6, 5, 4, 3, 2"
SUIT_LIST = "cups, coins, swords, clubs"
FORM = "expected '<rank>-<suit>', such as 'ace-coins'"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("1-coins", f"'1-coins' is not a card code: rank '1' is not one of {RANK_LIST}"),
        ("10-cups", f"'10-cups' is not a card code: rank '10' is not one of {RANK_LIST}"),
        ("queen-swords", f"'queen-swords' is not a card code: rank 'queen' is not one of {RANK_LIST}"),
        ("ace-diamonds", f"'ace-diamonds' is not a card code: suit 'diamonds' is not one of {SUIT_LIST}"),
        ("ace-coin", f"'ace-coin' is not a card code: suit 'coin' is not one of {SUIT_LIST}"),
        (
            "jack-hearts",
            f"'jack-hearts' is not a card code: rank 'jack' is not one of {RANK_LIST}; "
            f"suit 'hearts' is not one of {SUIT_LIST}",
        ),
        ("acecoins", f"'acecoins' is not a card code: {FORM}"),
        ("ace coins", f"'ace coins' is not a card code: {FORM}"),
        ("", f"'' is not a card code: {FORM}"),
        ("-", f"'-' is not a card code: rank '' is not one of {RANK_LIST}; suit '' is not one of {SUIT_LIST}"),
        ("ace-coins-cups", f"'ace-coins-cups' is not a card code: it has 2 hyphens; {FORM}"),
        ("ace--coins", f"'ace--coins' is not a card code: it has 2 hyphens; {FORM}"),
        ("Ace-Coins", "'Ace-Coins' is not a card code: card codes are lower case: 'ace-coins'"),
        ("ACE-COINS", "'ACE-COINS' is not a card code: card codes are lower case: 'ace-coins'"),
        (" ace-coins", f"' ace-coins' is not a card code: rank ' ace' is not one of {RANK_LIST}"),
        ("ace-coins ", f"'ace-coins ' is not a card code: suit 'coins ' is not one of {SUIT_LIST}"),
    ],
)
def test_malformed_codes_say_what_is_wrong(code: str, message: str) -> None:
    with pytest.raises(InvalidCard) as caught:
        parse_card(code)
    assert str(caught.value) == message
    assert caught.value.code == "invalid_card"
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("value", "type_name"),
    [(None, "NoneType"), (1, "int"), (b"ace-coins", "bytes"), (["ace", "coins"], "list"), (DECK[0], "Card")],
)
def test_a_code_must_be_a_string(value: object, type_name: str) -> None:
    with pytest.raises(InvalidCard, match=f"a card code is a string such as 'ace-coins', not {type_name}$"):
        parse_card(value)  # type: ignore[arg-type]


def test_cards_are_interned() -> None:
    for card in DECK:
        assert Card(card.rank, card.suit) is card
        assert Card(Rank(card.rank.value), Suit(card.suit.value)) is card
        assert copy.copy(card) is card
        assert copy.deepcopy(card) is card
        assert pickle.loads(pickle.dumps(card)) is card
    assert len({id(card) for card in DECK}) == 48


@pytest.mark.parametrize(("rank", "suit"), [("ace", "coins"), (Rank.ACE, "coins"), ("ace", Suit.COINS), (1, 2)])
def test_a_card_is_made_of_a_rank_and_a_suit(rank: object, suit: object) -> None:
    with pytest.raises(InvalidCard, match="is not a card of the deck"):
        Card(rank, suit)  # type: ignore[arg-type]


def test_cards_are_immutable() -> None:
    card = parse_card("ace-coins")
    with pytest.raises(AttributeError):
        card.code = "king-coins"
    assert card.code == "ace-coins"


def test_suit_cycle_and_rank_order() -> None:
    assert [suit.beats for suit in SUITS] == [Suit.COINS, Suit.SWORDS, Suit.CLUBS, Suit.CUPS]
    assert [suit.index for suit in SUITS] == [0, 1, 2, 3]
    assert [rank.index for rank in RANKS] == list(range(12))


def test_sort_cards_is_suit_in_cycle_order_then_rank_high_to_low() -> None:
    shuffled = [parse_card(code) for code in ["2-clubs", "ace-clubs", "9-coins", "knave-cups", "ace-coins"]]
    assert [card.code for card in sort_cards(shuffled)] == [
        "knave-cups",
        "ace-coins",
        "9-coins",
        "ace-clubs",
        "2-clubs",
    ]
    assert sort_cards(reversed(DECK)) == list(DECK)
