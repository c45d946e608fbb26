"""A feed's answer that depends on the caller's credential (a seat's events, a player's feed) says so
as getHand's does (``Cache-Control: private``, ``Vary: Authorization``): a page at once from the web
role, and a held long poll or a stream from the real-time role (its headers are the web app's)."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from service.api.context import PRIVATE
from tests.support.realtime import Realtime

PLAYER_FEED = "/v1/players/me/events"


def _seat(client: FlaskClient) -> tuple[str, str]:
    response = client.post("/v1/games", json={"seats": [{"name": "Ana"}, None, None]})
    assert response.status_code == 201, response.json
    return response.json["id"], response.json["credentials"][0]["token"]


def _key(client: FlaskClient) -> str:
    response = client.post("/v1/players", json={"name": "Ana"})
    assert response.status_code == 201, response.json
    return str(response.json["key"])


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _private(headers: Any) -> bool:
    named = {name.lower(): value for name, value in headers.items()}
    varies = [name.strip().lower() for name in named.get("vary", "").split(",")]
    return named.get("cache-control") == PRIVATE["Cache-Control"] and "authorization" in varies


def test_a_page_read_with_a_credential_is_private(client: FlaskClient) -> None:
    game_id, token = _seat(client)
    seat = client.get(f"/v1/games/{game_id}/events", headers=_bearer(token))
    assert seat.status_code == 200 and _private(seat.headers), dict(seat.headers)
    spectator = client.get(f"/v1/games/{game_id}/events")
    assert spectator.status_code == 200 and "Authorization" in spectator.headers.get("Vary", "")
    assert "private" not in spectator.headers.get("Cache-Control", "")  # public: the same for every spectator
    player = client.get(PLAYER_FEED, headers=_bearer(_key(client)))
    assert player.status_code == 200 and _private(player.headers), dict(player.headers)


def test_a_held_long_poll_and_a_stream_are_private_under_the_real_time_role(
    client: FlaskClient, realtime: Realtime
) -> None:
    game_id, token = _seat(client)
    feed = f"/v1/games/{game_id}/events"
    last = client.get(feed, headers=_bearer(token)).json["last_id"]
    status, headers, _ = realtime.get(f"{feed}?after={last}&wait=1", _bearer(token))  # nothing comes: held
    assert status == 200 and _private(headers), headers
    with realtime.stream(feed, token=token) as stream:
        assert stream.status == 200 and _private(stream.headers), stream.headers
    key = _key(client)
    last = client.get(PLAYER_FEED, headers=_bearer(key)).json["last_id"]
    status, headers, _ = realtime.get(f"{PLAYER_FEED}?after={last}&wait=1", _bearer(key))
    assert status == 200 and _private(headers), headers
    with realtime.stream(PLAYER_FEED, token=key) as stream:
        assert stream.status == 200 and _private(stream.headers), stream.headers
