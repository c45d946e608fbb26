"""Players' feeds in the store: appends racing on one player number its events 1, 2, 3, … with none
lost or repeated, each player's own; reads after an id and heads, on both databases."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from flask import Flask

from service.store import Database, GameStore, StoredPlayerEvent
from service.store.webhooks import owed_deliveries

NOW = datetime(2026, 12, 2, tzinfo=UTC)


@pytest.fixture
def store(app: Flask) -> GameStore:
    db: Database = app.extensions["coins.db"]
    return GameStore(db)


def event(player: str, data: str = "{}") -> StoredPlayerEvent:
    return StoredPlayerEvent(player, 0, "your_turn", data, NOW)


def test_racing_appends_number_each_players_events_without_gaps_or_repeats(store: GameStore) -> None:
    threads, rounds = 6, 15

    def append(thread: int) -> None:
        for number in range(rounds):
            store.append_player_events([event("ana", f'{{"t":{thread},"n":{number}}}'), event("bo"), event("ana")])

    workers = [threading.Thread(target=append, args=(thread,)) for thread in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    with store.session() as session:
        assert session.player_heads(["ana", "bo", "cy"]) == {"ana": 2 * threads * rounds, "bo": threads * rounds}
        ana = session.new_player_events({"ana": 0}, limit=1000)["ana"]
    assert [e.id for e in ana] == list(range(1, 2 * threads * rounds + 1))
    for thread in range(threads):  # each append's events in their order
        mine = [e.data for e in ana if f'"t":{thread},' in e.data]
        assert mine == [f'{{"t":{thread},"n":{number}}}' for number in range(rounds)]


def test_reads_after_an_id_and_heads(store: GameStore) -> None:
    appended = store.append_player_events([event("ana", '{"n":1}'), event("ana", '{"n":2}'), event("bo")])
    assert [(e.player_id, e.id) for e in appended] == [("ana", 1), ("ana", 2), ("bo", 1)]
    with store.session() as session:
        assert session.new_player_events({"ana": 1, "bo": 1, "cy": 0}, limit=10) == {"ana": [appended[1]]}
        assert session.new_player_events({"ana": 0}, limit=1) == {"ana": [appended[0]]}
        assert session.player_heads([]) == {}


def test_events_owe_a_delivery_to_each_endpoint_of_their_player_that_takes_their_type() -> None:
    events = [
        StoredPlayerEvent("p1", 7, "your_turn", "{}", NOW),
        StoredPlayerEvent("p2", 3, "game_result", "{}", NOW),
        StoredPlayerEvent("p1", 8, "game_result", "{}", NOW),
    ]
    endpoints = [
        ("h1", "p1", ["your_turn"]),
        ("h2", "p1", ["your_turn", "game_result"]),
        ("h3", "p2", ["your_turn"]),
        ("h4", "p3", ["your_turn", "game_result"]),
    ]

    rows = owed_deliveries(events, endpoints, "webhook_id")

    assert [(row["webhook_id"], row["player_id"], row["event_id"]) for row in rows] == [
        ("h1", "p1", 7),
        ("h2", "p1", 7),
        ("h2", "p1", 8),
    ]
    assert all(row["attempts"] == 0 and row["next_attempt_at"] == NOW for row in rows)
