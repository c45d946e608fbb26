"""`me` as a value of the player-id path parameter (contract 1.3, "me everywhere"): with the key it is
the caller, in every operation that takes a player id; without it 401; the spec documents it as
one parameter, not as paths of its own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.api.context import PLAYER_ID
from tests.support.players import new_player
from tests.support.rated_games import rated_game_played

ME_PATHS = ["/v1/players/me", "/v1/players/me/games", "/v1/players/me/ratings"]


@pytest.mark.parametrize("path", ME_PATHS)
def test_me_is_the_callers_id(client: Any, path: str) -> None:
    _, ana, bo, _ = rated_game_played(client)  # each with a game, a rated one, in a seat of their own
    mine = client.get(path, headers=ana.auth)
    by_id = client.get(path.replace("/me", f"/{ana.id}"))
    assert mine.status_code == by_id.status_code == 200, mine.json
    assert mine.json == by_id.json
    assert mine.json != client.get(path, headers=bo.auth).json
    assert mine.headers["Cache-Control"] == "private, no-cache" and "Authorization" in mine.headers["Vary"]
    assert "Cache-Control" not in by_id.headers


def test_me_pages_link_on_with_me(client: Any) -> None:
    ana = new_player(client)
    for _ in range(2):
        client.post("/v1/games", json={"seats": [{"player": "me"}, None, None]}, headers=ana.auth)
    first = client.get("/v1/players/me/games", query_string={"limit": 1}, headers=ana.auth)
    [link] = re.findall(r"<([^>]+)>", first.headers["Link"])
    assert link.startswith("/v1/players/me/games?")
    rest = client.get(link, headers=ana.auth)
    assert rest.status_code == 200 and len(rest.json["items"]) == 1
    assert rest.json["items"][0]["id"] != first.json["items"][0]["id"]


@pytest.mark.parametrize("path", ME_PATHS)
@pytest.mark.parametrize(
    ("headers", "code"),
    [({}, "missing_token"), ({"Authorization": "Bearer cpk_nobody"}, "invalid_key")],
)
def test_me_without_a_valid_key_is_401(client: Any, path: str, headers: dict[str, str], code: str) -> None:
    response = client.get(path, headers=headers)
    assert response.status_code == 401 and response.json["code"] == code
    assert response.mimetype == "application/problem+json"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_the_spec_takes_me_as_a_value_of_the_one_player_id_parameter(client: Any) -> None:
    spec = client.get("/openapi.json").json
    pattern = re.compile(PLAYER_ID["schema"]["pattern"])  # type: ignore[index]
    assert pattern.match("me") and pattern.match("01jf3v9k2m8q4r6t0w5x7y9z1b")
    assert not pattern.match("ME") and not pattern.match("mine")
    assert "`me`" in PLAYER_ID["description"]  # type: ignore[operator]
    # getPlayer's template takes an id only: /v1/players/me is a path of its own (1.2's getMe), served first
    [own] = spec["paths"]["/v1/players/{player_id}"]["parameters"]
    assert not re.match(own["schema"]["pattern"], "me") and "get" in spec["paths"]["/v1/players/me"]
    for path in ("/v1/players/{player_id}/games", "/v1/players/{player_id}/ratings"):
        [parameter] = spec["paths"][path]["parameters"]  # the one path parameter, as the route's
        assert parameter["name"] == "player_id" and parameter["schema"]["pattern"] == PLAYER_ID["schema"]["pattern"]  # type: ignore[index]
        operation = spec["paths"][path]["get"]
        assert {} in operation["security"] and {"playerKey": []} in operation["security"], path
        described = operation["responses"]["401"]["description"]
        assert "`missing_token`" in described and "`invalid_key`" in described, path
    assert not [path for path in spec["paths"] if path.startswith(("/v1/players/me/games", "/v1/players/me/ratings"))]
