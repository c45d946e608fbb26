"""Players: take an open seat, or leave one to a bot."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....games import NewPlayer
from ....work import UnitOfWork
from ...common import Blueprint, bearer_token, if_match, with_etag
from ...context import GAME_ID, NO_STORE, SEAT, bot_games, client_address_hash, games
from ...idempotency import idempotent
from ...openapi import JOINED_GAME_LINKS, KEY_SECURITY, OPTIONAL_KEY_SECURITY, SEAT_SECURITY
from ...schemas import GameSchema
from .schemas import JoinedGameSchema, JoinGameSchema, LeaveSchema

blp = Blueprint(
    "players", __name__, url_prefix="/v1/games", description="Take the open seats of a game, or leave one to a bot."
)


@blp.route("/<game_id>/players", parameters=[GAME_ID, "IfMatch"])
class PlayerViews(MethodView):
    @idempotent
    @blp.doc(
        operationId="joinGame",
        summary="Take an open seat",
        security=OPTIONAL_KEY_SECURITY,
        responses={201: {"links": JOINED_GAME_LINKS}},
    )
    @blp.arguments(JoinGameSchema(), example={"name": "Cy", "age": 30, "seat": 2})
    @blp.response(201, JoinedGameSchema, headers={"ETag": "ETag"})
    @blp.problems(
        "malformed_json",
        "missing_token",
        "invalid_key",
        "game_not_found",
        "seats_full",
        "seat_taken",
        "seat_reserved",
        "game_cancelled",
        "already_seated",
        "player_required",
        "rated_play_barred",
        "precondition_failed",
        "validation_error",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], game_id: str, uow: UnitOfWork) -> Any:
        """Take `seat` (or the seat reserved for you, else the first open seat). The seat's token is returned once.
        A seat reserved for another player is `409 seat_reserved` (with no `seat`, when no open seat
        is left but reserved ones), and so is another seat than the one reserved for you; a
        cancelled game is `409 game_cancelled`. Accept a challenge so:
        `{"player": "me"}` takes the seat reserved for you. When the
        third seat is taken the game starts and its first dealer is chosen: the one named at
        creation, else the oldest player by age, else a random draw (reported in the game).
        With `{"player": "me"}` and your player key, the seat is your player's: named as your
        profile, no token (your key acts for it); a rated game is joined only so."""
        player = NewPlayer(me=True) if body.get("player") else NewPlayer(body["name"], body.get("age"))
        joined = games().join(
            game_id,
            player,
            seat=body.get("seat"),
            if_match=if_match(),
            key=bearer_token(),
            address=client_address_hash(),
            uow=uow,
        )
        return joined, 201, with_etag(joined.game.etag, NO_STORE)  # the seat's token


@blp.route("/<game_id>/players/me", parameters=[GAME_ID])
class ChallengeViews(MethodView):
    @blp.doc(operationId="declineChallenge", summary="Decline a challenge", security=KEY_SECURITY)
    @blp.response(204)
    @blp.problems(
        "missing_token",
        "invalid_key",
        "not_your_seat",
        "game_not_found",
        "validation_error",
        "database_unavailable",
    )
    def delete(self, game_id: str) -> Any:
        """Decline the seat of this game reserved for you (a challenge, contract 1.3): the game is
        `cancelled` (reason `declined`), and its players are told (`game_cancelled`). Repeatable: a
        game already cancelled answers `204` too. A seat you took already is left with `leaveGame`
        (`403 not_your_seat` here)."""
        games().decline(game_id, bearer_token())
        return None


# Seats 0 to 2: any other number is no such resource (404), as -1 and 1.5 are.
@blp.route("/<game_id>/players/<int(max=2):seat>/leave", parameters=[GAME_ID, SEAT, "IfMatch"])
class LeaveViews(MethodView):
    @idempotent
    @blp.doc(operationId="leaveGame", summary="Leave: hand your seat to a bot", security=SEAT_SECURITY)
    @blp.arguments(LeaveSchema(), example={"bot": "basic"}, required=False)
    @blp.response(200, GameSchema, headers={"ETag": "ETag"})
    @blp.problems(
        "malformed_json",
        "missing_token",
        "invalid_token",
        "invalid_key",
        "not_your_seat",
        "game_not_found",
        "game_finished",
        "game_cancelled",
        "precondition_failed",
        "validation_error",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], game_id: str, seat: int, uow: UnitOfWork) -> Any:
        """Leave the game for good. Once the game has started a bot of strength `bot` (default
        `basic`) takes the seat over and plays on at once if it is the seat's turn; before the
        game starts the seat simply opens again. Your token stops working (a player's key no
        longer acts for the seat, which still names the player who left it).

        When the other two seats are bots, leaving starts a game that the server plays alone, to the
        target: it counts as a game of bots alone against the caller's address (the limit of
        createGame with three bots), and once that is used up it is refused with `429
        too_many_requests` (and `Retry-After`), and the seat stays yours."""
        token, count = bearer_token(), bot_games()
        game = games().leave(
            game_id,
            seat,
            token,
            bot=body.get("bot", "basic"),
            if_match=if_match(),
            bots_alone_wait=count.wait() if token else None,
            uow=uow,
        )
        if game.status != "finished" and all(other.bot is not None for other in game.seats):
            count.started()
        return game, 200, with_etag(game.etag)
