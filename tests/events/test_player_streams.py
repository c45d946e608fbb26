"""A player's stream from the real-time role as deployed: events written by another process reach it (PostgreSQL's
NOTIFY, or an SQLite file's data version), and a key replaced by another process ends it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from service import create_app
from service.config import Settings
from tests.events.test_streams import call, realtime_process
from tests.support.sse import Event, EventStream
from tests.support.working_client import NO_PACE

pytestmark = pytest.mark.slow

FEED = "/v1/players/me/events"


def test_a_players_stream_hears_changes_made_in_another_process_until_its_key_is_replaced(
    database_url: str, tmp_path: Path
) -> None:
    with realtime_process(database_url, tmp_path) as server:
        other = create_app(Settings(database_url=database_url, rate_limits="off", **NO_PACE)).test_client()

        def act(method: str, path: str, key: str, body: Any = None) -> Any:
            response = other.open(path, method=method, json=body, headers={"Authorization": f"Bearer {key}"})
            assert response.status_code < 300, response.json
            return response.json

        keys = [call(server.port, "POST", "/v1/players", {"name": name})["key"] for name in ("Ana", "Bo", "Cy")]
        seen: list[Event] = []
        with EventStream(server.port, "", token=keys[1], timeout=30, path=FEED) as stream:
            assert stream.status == 200

            def read() -> None:
                for event in stream.events():  # ends when the key is replaced (or the socket times out)
                    seen.append(event)

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            game_id = act("POST", "/v1/games", keys[0], {"seats": [{"player": "me"}, None, None]})["id"]
            for key in keys[1:]:
                act("POST", f"/v1/games/{game_id}/players", key, {"player": "me"})
            state = act("GET", f"/v1/games/{game_id}", keys[0])
            act("POST", f"/v1/games/{game_id}/hands", keys[state["turn"]])
            for _ in range(100):  # bounded: until the stream has the game's start, then replace the key
                reader.join(0.1)
                if any(event.type == "game_started" for event in seen):
                    break
            act("POST", "/v1/players/me/key", keys[1])
            reader.join(30)
            assert not reader.is_alive(), "the stream ended when its key was replaced"
        types = [event.type for event in seen]
        assert types[0] == "player" and "game_started" in types
        ids = [event.id for event in seen]
        assert ids == sorted(set(ids))
