"""Players: create one (with their key), read profiles, replace your key, list a player's games."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView

from ....players import NewKey
from ....work import UnitOfWork
from ...common import Blueprint, bearer_token, next_link
from ...context import (
    NO_STORE,
    PLAYER_ID,
    PLAYER_ID_NOT_ME,
    accounts,
    client_address_hash,
    player_id_of,
    players,
    private_if_me,
)
from ...idempotency import idempotent
from ...openapi import KEY_SECURITY, OPTIONAL_KEY_SECURITY, PUBLIC
from ..games.schemas import ListGamesQuerySchema  # status, limit and cursor: as listGames
from .schemas import (
    NewPlayerProfileSchema,
    PlayerGamePageSchema,
    PlayerSchema,
    PlayerSettingsSchema,
    PlayerWithKeySchema,
)

# Not named "players": that blueprint is joinGame's and leaveGame's (its name is their tag in the spec).
blp = Blueprint(
    "profiles",
    __name__,
    url_prefix="/v1/players",
    description="Players: one identity across games, with a key that acts for it in each; profiles and games.",
)


@blp.route("")
class PlayerViews(MethodView):
    @idempotent
    @blp.doc(operationId="createPlayer", summary="Create a player, with their key", security=PUBLIC)
    @blp.arguments(NewPlayerProfileSchema(), example={"name": "Ana"})
    @blp.response(201, PlayerWithKeySchema, headers={"Location": "Location"})
    @blp.problems(
        "malformed_json",
        "validation_error",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, body: dict[str, Any], uow: UnitOfWork) -> Any:
        """A new player, and their key: shown once, in this answer only (a retry with the same
        `Idempotency-Key` gets it again). Send it as `Authorization: Bearer <key>` to take seats
        as this player (`{"player": "me"}`) and to act for them in every game."""
        created: NewKey = players().create(body["name"], address=client_address_hash(), uow=uow)
        return created, 201, {"Location": url_for("profiles.PlayerByIdViews", player_id=created.player.id), **NO_STORE}


@blp.route("/me")
class MeViews(MethodView):
    @blp.doc(operationId="getMyPlayer", summary="Read your own profile", security=KEY_SECURITY)
    @blp.response(200, PlayerSchema)
    @blp.problems("missing_token", "invalid_key", "database_unavailable")
    def get(self) -> Any:
        """The profile of the player whose key the request carries: `getPlayer` with `me` as the
        player id (this path is that value of `getPlayer`'s path, named as 1.2 released it)."""
        return players().me(bearer_token()), 200, private_if_me("me", {})

    @blp.doc(operationId="updateMyPlayer", summary="Change your settings", security=KEY_SECURITY)
    @blp.arguments(PlayerSettingsSchema(), example={"challenges": "nobody"})
    @blp.response(200, PlayerSchema)
    @blp.problems(
        "malformed_json",
        "missing_token",
        "invalid_key",
        "validation_error",
        "database_unavailable",
    )
    def patch(self, body: dict[str, Any]) -> Any:
        """Change your settings: `challenges`, who may challenge you to a game (`everyone`, the
        default, or `nobody`: a challenge to you is then `403 challenges_refused`; challenges made
        before stay as they are). Answers your profile."""
        return players().settle_challenges(bearer_token(), body["challenges"]), 200, private_if_me("me", {})

    @blp.doc(operationId="deleteMyPlayer", summary="Delete your account", security=KEY_SECURITY)
    @blp.response(204)
    @blp.problems("missing_token", "invalid_key", "database_unavailable")
    def delete(self) -> Any:
        """Delete your account, at once and for good. Your key stops working everywhere (streams it
        opened end); your name becomes "Deleted player"; you leave the leaderboard; your waiting
        quick-play tickets are cancelled; and you leave every game in progress, as `leaveGame` would
        (a started game's seat goes to a bot: in a rated game you finish last, or the game is void
        if you had not played a card yet; a game not started opens the seat again). Your rating
        history stays, as the other players' histories need it."""
        accounts().delete(bearer_token())
        return None


@blp.route("/me/key")
class KeyViews(MethodView):
    @idempotent
    @blp.doc(operationId="replacePlayerKey", summary="Replace your key", security=KEY_SECURITY)
    @blp.response(200, PlayerWithKeySchema)
    @blp.problems(
        "missing_token",
        "invalid_key",
        "too_many_requests",
        "database_unavailable",
    )
    def post(self, uow: UnitOfWork) -> Any:
        """A new key for your player, shown once; the key you sent stops working at once, in every
        game and request (every check reads the stored key). What it set up goes with it: your
        webhooks and push subscriptions are removed and a waiting quick-play ticket is cancelled
        (whoever held a leaked key may have made them); make them again with the new key."""
        return players().replace_key(bearer_token(), uow=uow), 200, NO_STORE


@blp.route("/<player_id>", parameters=[PLAYER_ID_NOT_ME])
class PlayerByIdViews(MethodView):
    @blp.doc(operationId="getPlayer", summary="Read a player's public profile", security=OPTIONAL_KEY_SECURITY)
    @blp.response(200, PlayerSchema)
    @blp.problems("player_not_found", "missing_token", "invalid_key", "database_unavailable")
    def get(self, player_id: str) -> Any:
        """Name, rating and record: what anyone may see of a player (never their key). `me` reads
        your own (with your key)."""
        return players().get(player_id_of(player_id)), 200, private_if_me(player_id, {})


@blp.route("/<player_id>/games", parameters=[PLAYER_ID])
class PlayerGamesViews(MethodView):
    @blp.doc(
        operationId="listPlayerGames", summary="List a player's games, newest first", security=OPTIONAL_KEY_SECURITY
    )
    @blp.arguments(ListGamesQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, PlayerGamePageSchema, headers={"Link": "Link"})
    @blp.problems(
        "player_not_found",
        "missing_token",
        "invalid_key",
        "invalid_cursor",
        "validation_error",
        "database_unavailable",
    )
    def get(self, player_id: str, limit: int, status: str | None = None, cursor: str | None = None) -> Any:
        """The games the player sat in, newest first, a page at a time: each with the player's
        seat and whether that seat is the one to act now (`your_turn`). Filter by `status`;
        follow `next_cursor` (or `Link: rel="next"`) for the next page. `me` lists your own
        (with your key)."""
        page = players().games(player_id_of(player_id), status=status, cursor=cursor, limit=limit)
        filters = {"status": status} if status else {}
        link = next_link("profiles.PlayerGamesViews", page.next_cursor, player_id=player_id, limit=limit, **filters)
        return page, 200, private_if_me(player_id, link)
