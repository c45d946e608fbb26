"""The players' feeds joined to quick play: heartbeats keep tickets alive (a match's ``match_found`` is its
game's outbox: tests/api/test_queue.py)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime

from flask import Flask

from service.players import PlayerFeeds, connect_quick_play


@dataclass
class FakeQueue:
    touched: list[str] = field(default_factory=list)

    def touch_tickets(self, player_ids: Collection[str], now: datetime | None = None) -> int:
        self.touched.extend(player_ids)
        return len(player_ids)


def test_a_heartbeat_keeps_tickets_alive_and_runs_no_wave(app: Flask) -> None:
    feeds: PlayerFeeds = app.extensions["coins.player_feeds"]
    queue = FakeQueue()
    connect_quick_play(queue, feeds)
    feeds.on_heartbeat(["ana", "bo"])
    assert queue.touched == ["ana", "bo"]  # and no wave of matching: those are the worker's
