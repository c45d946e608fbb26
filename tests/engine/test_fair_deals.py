"""The test vectors published in docs/fair-deals.md hold for the engine."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from service.engine import FirstDealerReason, choose_first_dealer, commitment, deal_hands, deal_order, derive_hand_seed

DOC = Path(__file__).resolve().parents[2] / "docs" / "fair-deals.md"


def published_vectors() -> list[dict[str, str]]:
    """Each ``### Vector`` section's text block as key → value (continuation lines joined)."""
    vectors = []
    for block in re.findall(r"^### Vector .*?\n\n```text\n(.*?)\n```", DOC.read_text(), flags=re.M | re.S):
        fields: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            if not line.startswith(" "):
                key = line[:11].strip()
                fields[key] = ""
            fields[key] = (fields[key] + " " + line[11:].strip()).strip()
        vectors.append(fields)
    return vectors


VECTORS = published_vectors()


def test_at_least_three_vectors_are_published() -> None:
    assert len(VECTORS) >= 3
    assert {vector["dealer"] for vector in VECTORS} == {"0", "1", "2"}


@pytest.mark.parametrize("vector", VECTORS, ids=lambda vector: vector["seed"][:16])
def test_published_vector(vector: dict[str, str]) -> None:
    seed = bytes.fromhex(vector["seed"])
    assert commitment(seed) == vector["commitment"] == hashlib.sha256(seed).hexdigest()
    deck = vector["deck"].split()
    assert len(deck) == 48 == len(set(deck))
    assert [card.code for card in deal_order(seed)] == deck
    hands = deal_hands(seed, int(vector["dealer"]))
    for seat in range(3):
        assert [card.code for card in hands[seat]] == vector[f"hand {seat}"].split()


def test_published_seeded_game_derivations() -> None:
    text = DOC.read_text()
    for game_seed, hand_number in [("example", 1), ("example", 2)]:
        derived = derive_hand_seed(game_seed, hand_number).hex()
        assert derived in text
    assert VECTORS[2]["seed"] == derive_hand_seed("example", 1).hex()
    assert choose_first_dealer(seed="example") == (2, FirstDealerReason.DRAWN)
    assert choose_first_dealer(seed="table 7") == (0, FirstDealerReason.DRAWN)
    assert "For the game seed `example` the draw is seat 2; for `table 7` it is seat 0." in " ".join(text.split())
