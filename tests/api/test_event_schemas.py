"""Every event is rendered exactly as its schema dumps it (through the dumper built from the schema)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.api.resources.events import schemas as event_schemas
from service.games.feed import EVENT_TYPES, FeedEvent


@pytest.fixture
def rendered(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[FeedEvent, str]]:
    """Each event the use cases render, with its text."""
    seen: list[tuple[FeedEvent, str]] = []
    service = app.extensions["coins.games"]
    render = service._games.render

    def recording(event: FeedEvent) -> str:
        text = render(event)
        seen.append((event, text))
        return text

    monkeypatch.setattr(service._games, "render", recording)
    return seen


def test_each_type_of_event_renders_as_its_schema_dumps_it(client, rendered):
    game = client.post("/v1/games", json={"seats": [None, {"bot": "basic"}, {"bot": "random"}], "seed": "shapes"}).json
    joined = client.post(f"/v1/games/{game['id']}/players", json={"name": "Ana", "age": 30}).json
    token = {"Authorization": f"Bearer {joined['token']}"}
    for _ in range(200):  # to the end: every type of event on the way (bounded)
        state = client.get(f"/v1/games/{game['id']}").json
        if state["status"] == "finished":
            break
        if state["status"] == "waiting_for_deal":
            client.post(f"/v1/games/{game['id']}/hands", headers=token)
        else:
            card = client.get(f"/v1/games/{game['id']}/hand", headers=token).json["cards"][0]
            client.post(f"/v1/games/{game['id']}/plays", json={"card": card}, headers=token)
    assert client.post(f"/v1/games/{game['id']}/rematch", headers=token).status_code == 201  # rematch_created
    client.get(f"/v1/games/{game['id']}/events", headers=token)  # the game event, made when read
    assert {event.TYPE for event, _ in rendered} == set(EVENT_TYPES) - {"seat_left"}
    for event, text in rendered:
        schema = event_schemas.EVENT_SCHEMAS[event.TYPE]()
        assert json.loads(text) == json.loads(json.dumps(schema.dump(event), default=str)), event.TYPE
