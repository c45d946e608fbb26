"""Players made through the API, for tests: a player's id, name and key, and their Authorization header."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask.testing import FlaskClient


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    key: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def new_player(client: FlaskClient, name: str = "Ana", **environ: Any) -> Player:
    response = client.post("/v1/players", json={"name": name}, **({"environ_base": environ} if environ else {}))
    assert response.status_code == 201, response.json
    return Player(response.json["id"], response.json["name"], response.json["key"])
