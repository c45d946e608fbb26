"""Players' feeds in the store: appends racing on one player number its events 1, 2, 3, … with none
lost or repeated, each player's own; reads after an id and heads, on both databases."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from flask import Flask

from service.store import Database, GameStore, StoredPlayerEvent

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
