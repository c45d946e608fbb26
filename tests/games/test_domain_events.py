"""The domain events' stored form: every event reads back as it was logged, in plain values, nothing of the API's."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from service import jsonio
from service.games import DomainEvent, GameService, decode_event, domain_events
from service.store import StoredEvent
from tests.support.every_event import CAUSES, STORED_TYPES, Clock, play_every_kind_of_event


@pytest.fixture
def logged(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[DomainEvent, str]]:
    """Each domain event the use cases store, with its stored form."""
    seen: list[tuple[DomainEvent, str]] = []
    encode = domain_events.encode_event

    def recording(event: DomainEvent) -> str:
        seen.append((event, encode(event)))
        return seen[-1][1]

    monkeypatch.setattr(domain_events, "encode_event", recording)
    return seen


@pytest.fixture
def played(app: Any, client: Any, logged: list[tuple[DomainEvent, str]]) -> list[tuple[DomainEvent, str]]:
    service: GameService = app.extensions["coins.games"]
    service.clock = Clock()
    play_every_kind_of_event(client, service.clock)
    return logged


def test_every_type_of_event_reads_back_as_it_was_logged(played):
    assert {event.TYPE for event, _ in played} == STORED_TYPES
    assert {event.cause for event, _ in played if hasattr(event, "cause")} == CAUSES
    for event, data in played:
        stored = StoredEvent(event.id, event.TYPE, event.version, None, data, datetime.now(UTC))
        assert decode_event(stored) == event


def test_the_stored_form_is_the_events_fields_in_plain_values(played):
    won = next(jsonio.loads(data) for event, data in played if event.TYPE == "trick_won")
    assert list(won) == ["id", "version", "game", "trick"]  # the type is the row's column
    assert set(won["trick"]) == {"leader", "plays", "hand_number", "trick_number", "winner", "points"}  # no "complete"
    assert all(isinstance(seat, int) and isinstance(card, str) for seat, card in won["trick"]["plays"])
    dealt = next(jsonio.loads(data) for event, data in played if event.TYPE == "hand")
    assert all(isinstance(card, str) for card in dealt["cards"])
    created = next(event for event, _ in played if event.TYPE == "seat_taken").game.created_at
    assert jsonio.loads(played[0][1])["game"]["created_at"] == created.isoformat()


def test_what_is_stored_is_what_the_store_reads_back(app, played):
    """The rows the feed reads hold exactly the stored forms logged (none rendered on the way in)."""
    store = app.extensions["coins.games"].store
    game_ids = {event.game.id for event, _ in played}
    with store.session() as session:
        rows = session.new_events(dict.fromkeys(game_ids, 0), limit=10_000)
    stored = {(game_id, event.id): event.data for game_id, events in rows.items() for event in events}
    assert stored == {(event.game.id, event.id): data for event, data in played}
