"""Players: take an open seat."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from .common import Blueprint, if_match, with_etag
from .context import GAME_ID, games
from .openapi import JOINED_GAME_LINKS
from .schemas import JoinedGameSchema, JoinGameSchema

blp = Blueprint("players", __name__, url_prefix="/v1/games", description="Take the open seats of a game.")


@blp.route("/<game_id>/players", parameters=[GAME_ID, "IfMatch"])
class PlayerViews(MethodView):
    @blp.doc(operationId="joinGame", summary="Take an open seat", responses={201: {"links": JOINED_GAME_LINKS}})
    @blp.arguments(JoinGameSchema, example={"name": "Cy", "age": 30, "seat": 2})
    @blp.response(201, JoinedGameSchema, headers={"ETag": "ETag"})
    @blp.problems(
        "malformed_json",
        "game_not_found",
        "seats_full",
        "seat_taken",
        "precondition_failed",
        "payload_too_large",
        "unsupported_media_type",
        "validation_error",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Take `seat` (or the first open seat). The seat's token is returned once. When the
        third seat is taken the game starts and its first dealer is chosen: the one named at
        creation, else the oldest player by age, else a random draw (reported in the game)."""
        from ..games import NewPlayer

        joined = games().join(
            game_id, NewPlayer(body["name"], body.get("age")), seat=body.get("seat"), if_match=if_match()
        )
        return joined, 201, with_etag(joined.game.etag)
