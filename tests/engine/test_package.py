"""The engine package: standard library only, mypy --strict clean, and a stable public API.

What the engine's modules import is declared in pyproject.toml ([tool.importlinter], run by
.ci/run); the test below checks what importing it actually loads."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import service.engine as engine
from tests.support.imports import modules_loaded_by

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_engine_loads_nothing_outside_the_standard_library() -> None:
    loaded = modules_loaded_by("service.engine")
    assert "service.engine.game" in loaded
    outside = [name for name in loaded if name.partition(".")[0] not in sys.stdlib_module_names]
    assert [name for name in outside if not name.startswith("service.engine")] == ["service"]


@pytest.mark.slow
def test_mypy_strict() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "service/engine"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr


# The public API other code is built on: additions are fine, changes are not.
PUBLIC_NAMES = {
    "CARD_CODES", "DECK", "RANKS", "SUITS", "Card", "Rank", "Suit", "parse_card", "sort_cards",
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
}  # fmt: skip

SIGNATURES = {
    "parse_card": "(code: 'str') -> 'Card'",
    "sort_cards": "(cards: 'Iterable[Card]') -> 'list[Card]'",
    "commitment": "(seed: 'bytes') -> 'str'",
    "deal_hands": "(seed: 'bytes', dealer: 'int') -> 'tuple[list[Card], list[Card], list[Card]]'",
    "deal_order": "(seed: 'bytes') -> 'list[Card]'",
    "derive_hand_seed": "(game_seed: 'str', hand_number: 'int') -> 'bytes'",
    "choose_first_dealer": (
        "(ages: 'Sequence[int | None]' = (None, None, None), named: 'int | None' = None, "
        "seed: 'str | None' = None) -> 'tuple[int, FirstDealerReason]'"
    ),
    "left_of": "(seat: 'int') -> 'int'",
    "right_of": "(seat: 'int') -> 'int'",
    "from_dict": "(data: 'JSON') -> 'Game'",
    "from_snapshot": "(data: 'JSON') -> 'Game'",
    "snapshot": "(game: 'Game', *, include_log: 'bool' = False) -> 'JSON'",
    "to_dict": "(game: 'Game') -> 'JSON'",
    "trick_points": "(cards: 'Sequence[Card]') -> 'int'",
    "trick_winner": "(cards: 'Sequence[Card]') -> 'int'",
    "private_view": "(game: 'Game', seat: 'int') -> 'PrivateView'",
    "public_view": "(game: 'Game') -> 'PublicView'",
    "Game.deal": "(self, seat: 'int', seed: 'bytes | None' = None) -> 'Dealt'",
    "Game.play": "(self, seat: 'int', card: 'Card') -> 'Played'",
    "Game.verify_deal": "(self, seat: 'int') -> 'None'",
    "Game.verify_play": "(self, seat: 'int', card: 'Card') -> 'None'",
    "Game.can_deal": "(self, seat: 'int') -> 'bool'",
    "Game.can_play": "(self, seat: 'int', card: 'Card') -> 'bool'",
    "Game.legal_cards": "(self, seat: 'int') -> 'tuple[Card, ...]'",
    "Game.hand": "(self, seat: 'int') -> 'tuple[Card, ...]'",
    "Game.apply": "(self, action: 'Action') -> 'Dealt | Played'",
    "Game.replay": "(setup: 'GameSetup', actions: 'Iterable[Action]') -> 'Game'",
}

FIELDS = {
    "GameSetup": "target_score first_dealer first_dealer_reason seed",
    "CompletedTrick": "hand_number trick_number leader plays winner points",
    "DealAction": "seat seed",
    "PlayAction": "seat card",
    "Dealt": "hand_number dealer shuffler cutter leader commitment",
    "HandEnded": "hand_number seed commitment next_dealer",
    "Played": "seat card hand_number trick_number trick completed hand_ended winner",
    "PrivateView": "seat hand legal_cards public",
    "PublicView": (
        "status target_score seeded first_dealer first_dealer_reason hand_number dealer leader turn trick_number "
        "trick hand_tricks last_trick scores tricks_won cards_in_hand winner commitment revealed_hands"
    ),
}

GAME_PROPERTIES = (
    "status target_score hand_number dealer shuffler cutter leader turn trick trick_number hand_tricks "
    "last_trick scores tricks_won cards_in_hand winner is_over commitment revealed_hands log"
)


def test_the_public_names_are_all_still_exported() -> None:
    assert set(engine.__all__) >= PUBLIC_NAMES
    for name in engine.__all__:
        assert hasattr(engine, name)


@pytest.mark.parametrize(("name", "signature"), SIGNATURES.items(), ids=list(SIGNATURES))
def test_signatures_are_unchanged(name: str, signature: str) -> None:
    owner, _, attribute = name.rpartition(".")
    function = getattr(getattr(engine, owner), attribute) if owner else getattr(engine, name)
    assert str(inspect.signature(function)) == signature


@pytest.mark.parametrize(("name", "fields"), FIELDS.items(), ids=list(FIELDS))
def test_record_fields_are_unchanged(name: str, fields: str) -> None:
    record = getattr(engine, name)
    assert [field.name for field in dataclasses.fields(record)] == fields.split()
    assert record.__dataclass_params__.frozen


def test_game_properties_are_still_there() -> None:
    for name in GAME_PROPERTIES.split():
        assert isinstance(getattr(engine.Game, name), property), name
    assert engine.Play._fields == ("seat", "card")
