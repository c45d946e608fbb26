"""The players' feeds joined to quick play: a match tells its ticket holders, heartbeats run the queue's upkeep."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask import Flask

from service.players import PlayerFeeds, connect_quick_play
from service.store import GameStore


@dataclass
class Seat:
    player: str | None


@dataclass
class Match:
    game_id: str
    lineup: tuple[Seat, Seat, Seat]
    tickets: tuple[tuple[str, int], ...]


@dataclass
class FakeQueue:
    on_match: list[Any] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)

    def touch_tickets(self, player_id: str, now: datetime | None = None) -> int:
        self.touched.append(player_id)
        return 1


def test_a_match_tells_each_ticket_holder_and_a_heartbeat_keeps_tickets_alive(app: Flask) -> None:
    feeds: PlayerFeeds = app.extensions["coins.player_feeds"]
    store: GameStore = app.extensions["coins.games"].store
    queue = FakeQueue()
    connect_quick_play(queue, feeds)
    for callback in queue.on_match:
        callback(Match("g1", (Seat("ana"), Seat("bot"), Seat("bo")), (("t-ana", 0), ("t-bo", 2))))
    with store.session() as session:
        told = session.new_player_events({"ana": 0, "bo": 0, "bot": 0}, limit=10)
    assert {player: [(e.id, e.type) for e in events] for player, events in told.items()} == {
        "ana": [(1, "match_found")],
        "bo": [(1, "match_found")],
    }
    assert '"ticket":"t-bo"' in told["bo"][0].data and '"game":"g1"' in told["bo"][0].data
    feeds.on_heartbeat("ana")
    assert queue.touched == ["ana"]  # and no wave of matching: those are the worker's
