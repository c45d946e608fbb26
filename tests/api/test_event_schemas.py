"""Every event is rendered exactly as its schema dumps it (through the dumper built from the schema)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.api.resources.events import schemas as event_schemas
from service.games import EVENT_TYPES, DomainEvent, GameService, domain_events
from tests.support.every_event import Clock, play_every_kind_of_event


@pytest.fixture
def logged(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[DomainEvent]:
    """Each domain event the use cases store."""
    seen: list[DomainEvent] = []
    encode = domain_events.encode_event

    def recording(event: DomainEvent) -> str:
        seen.append(event)
        return encode(event)

    monkeypatch.setattr(domain_events, "encode_event", recording)
    return seen


def test_each_type_of_event_renders_as_its_schema_dumps_it(app, client, logged):
    service: GameService = app.extensions["coins.games"]
    service.clock = Clock()
    game_ids = play_every_kind_of_event(client, service.clock)
    game = service.feed_start(game_ids[0], None).state  # the game event, made when read
    assert {event.TYPE for event in logged} | {game.TYPE} == set(EVENT_TYPES)
    for event in [*logged, game]:
        schema = event_schemas.EVENT_SCHEMAS[event.TYPE]()
        text = event_schemas.render_event(event)
        assert json.loads(text) == json.loads(json.dumps(schema.dump(event), default=str)), event.TYPE
