"""The readers know exactly the event types the spec lists, each as the model of its schema."""

from __future__ import annotations

from pathlib import Path

import yaml
from coins_client.events import FEED_EVENT_TYPES, PLAYER_EVENT_TYPES

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())


def listed(union: str) -> dict[str, str]:
    mapping = SPEC["components"]["schemas"][union]["discriminator"]["mapping"]
    return {kind: reference.rsplit("/", 1)[1] for kind, reference in mapping.items()}


def test_the_game_feed_reader_knows_every_listed_type_as_its_schema() -> None:
    assert {kind: model.__name__ for kind, model in FEED_EVENT_TYPES.items()} == listed("FeedEvent")


def test_the_player_feed_reader_knows_every_listed_type_as_its_schema() -> None:
    assert {kind: model.__name__ for kind, model in PLAYER_EVENT_TYPES.items()} == listed("PlayerEvent")
