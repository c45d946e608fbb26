"""Games: create, list, read, and read the scores."""

from __future__ import annotations

from typing import Any

from flask import Response, url_for
from flask.views import MethodView

from ....games import RATED_TURN_TIMEOUT_SECONDS, NewGame, NewPlayer
from ....games.results import Created, PublicGame
from ....work import UnitOfWork
from ...common import Blueprint, bearer_token, next_link, not_modified, with_etag
from ...context import GAME_ID, NO_STORE, client_address_hash, games
from ...idempotency import idempotent
from ...openapi import CREATED_GAME_LINKS, OPTIONAL_KEY_SECURITY, PUBLIC
from ...schemas import GameSchema
from .schemas import ME, CreatedGameSchema, CreateGameSchema, GamePageSchema, ListGamesQuerySchema, ScoresSchema

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Create, find and read games.")

CREATE_EXAMPLE = {
    "target_score": 15,
    "seats": [{"name": "Ana", "age": 41}, {"name": "Bo", "age": 35}, None],
    "first_dealer": None,
    "auto_deal": False,
}


@blp.route("")
class GameViews(MethodView):
    @blp.doc(operationId="listGames", summary="List games, newest first", security=PUBLIC)
    @blp.arguments(ListGamesQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, GamePageSchema, headers={"Link": "Link"})
    @blp.problems("invalid_cursor", "validation_error", "database_unavailable")
    def get(self, limit: int, status: str | None = None, cursor: str | None = None) -> Any:
        """Games newest first, a page at a time (keyset: stable while games are being created).

        Filter by `status`: `waiting_for_players` finds games with open seats. Follow
        `next_cursor` (or the `Link: rel="next"` header) for the next page.
        """
        page = games().list_games(status=status, cursor=cursor, limit=limit)
        filters = {"status": status} if status else {}
        return page, 200, next_link("games.GameViews", page.next_cursor, limit=limit, **filters)

    @idempotent
    @blp.doc(
        operationId="createGame",
        summary="Create a game",
        security=OPTIONAL_KEY_SECURITY,
        responses={201: {"links": CREATED_GAME_LINKS}},
    )
    @blp.arguments(CreateGameSchema(), example=CREATE_EXAMPLE, required=False)  # every field has a default
    @blp.response(201, CreatedGameSchema, headers={"Location": "Location", "ETag": "ETag"})
    @blp.problems(
        "malformed_json",
        "missing_token",
        "invalid_key",
        "already_seated",
        "player_required",
        "validation_error",
        "seeded_game_unrated",
        "bot_seated_twice",
        "rated_needs_clock",
        "rated_play_barred",
        "challenged_player_not_found",
        "challenged_self",
        "challenged_bot",
        "challenges_refused",
        "too_many_requests",
        "too_many_challenges",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], uow: UnitOfWork) -> Any:
        """Create a game of three seats. Each seat given a player is taken now and its token
        returned once in `credentials`; a `bot` seat gets a computer player; `null` seats stay
        open for `joinGame`. With all three seats taken the game starts at once
        (`waiting_for_deal`). Bots act on the server, at a pace people can follow (about a
        second apart, longer after a trick), never inside a request: their moves come as events.
        A seat `{"player": "me"}` is taken for the player whose key the request carries (their
        key acts for it); `rated` games seat players and bots only. A game of three bots moves
        only while someone follows its events (a stream of `getEvents`), until it is `finished`.

        A seat `{"player": "<id>"}` challenges another player (contract 1.3, "Challenges"): the seat
        is reserved for them (`reserved_for`) and they are told (`challenge_received`); the game
        starts once every reserved seat is taken (accepted with `joinGame` as `me`), and is
        `cancelled` if one is declined (`declineChallenge`) or not taken within `challenge_seconds`.

        A rated game always has a turn clock: without `turn_timeout_seconds` it gets 60 seconds, and
        `"turn_timeout_seconds": null` is `422 rated_needs_clock`.
        """
        seats = tuple(_new_player(seat) if seat is not None else None for seat in body["seats"])
        rated = body["rated"]
        default_clock = RATED_TURN_TIMEOUT_SECONDS if rated else None  # left out; null stays null
        clock = body.get("turn_timeout_seconds", default_clock)
        request = NewGame(
            target_score=body["target_score"],
            seats=(seats[0], seats[1], seats[2]),
            first_dealer=body.get("first_dealer"),
            auto_deal=body["auto_deal"],
            seed=body.get("seed"),
            turn_timeout_seconds=clock,
            rated=rated,
            challenge_seconds=body["challenge_seconds"],
        )
        created: Created = games().create(request, key=bearer_token(), address=client_address_hash(), uow=uow)
        location = url_for("games.GameByIdViews", game_id=created.game.id)
        return created, 201, with_etag(created.game.etag, {"Location": location, **NO_STORE})  # credentials


@blp.route("/<game_id>", parameters=[GAME_ID, "IfNoneMatch"])
class GameByIdViews(MethodView):
    @blp.doc(operationId="getGame", summary="Read a game's public state", security=PUBLIC)
    @blp.response(200, GameSchema, headers={"ETag": "ETag"})
    @blp.alt_response(
        304, description="Not modified: the game is still at the version of `If-None-Match`.", headers={"ETag": "ETag"}
    )
    @blp.problems("game_not_found", "validation_error", "database_unavailable")
    def get(self, game_id: str) -> Any:
        """The public state: seats, scores, dealer, whose turn, the trick in progress and the last one.
        Never a card that is still in someone's hand."""
        game = games().get(game_id)
        return _conditional(game, game)


@blp.route("/<game_id>/scores", parameters=[GAME_ID, "IfNoneMatch"])
class ScoresViews(MethodView):
    @blp.doc(operationId="getScores", summary="Read the scores", security=PUBLIC)
    @blp.response(200, ScoresSchema, headers={"ETag": "ETag"})
    @blp.alt_response(304, description="Not modified.", headers={"ETag": "ETag"})
    @blp.problems("game_not_found", "validation_error", "database_unavailable")
    def get(self, game_id: str) -> Any:
        """Each seat's score, the target, and the winner once there is one."""
        game = games().get(game_id)
        return _conditional(game, game)


def _new_player(seat: dict[str, Any]) -> NewPlayer:
    if seat.get("player") == ME:
        return NewPlayer(me=True)
    if seat.get("player") is not None:  # a challenge: the seat is reserved for that player
        return NewPlayer(player_id=seat["player"], reserved=True)
    return NewPlayer(name=seat.get("name"), age=seat.get("age"), bot=seat.get("bot"))


def _conditional(game: PublicGame, body: Any) -> Any:
    unchanged: Response | None = not_modified(game.etag)
    if unchanged is not None:
        return unchanged
    return body, 200, with_etag(game.etag)
