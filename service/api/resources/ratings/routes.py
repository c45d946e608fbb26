"""Ratings: a player's rated games with the rating before and after each, and the leaderboard."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...common import Blueprint, next_link
from ...context import PLAYER_ID, player_id_of, private_if_me, ratings
from ...openapi import OPTIONAL_KEY_SECURITY, PUBLIC
from .schemas import LeaderboardQuerySchema, LeaderboardSchema, PageQuerySchema, RatingHistorySchema

blp = Blueprint(
    "ratings",
    __name__,
    url_prefix="/v1",
    description="Ratings: how each rated game changed a player's rating, and the players ranked by theirs.",
)


@blp.route("/players/<player_id>/ratings", parameters=[PLAYER_ID])
class RatingHistoryViews(MethodView):
    @blp.doc(
        operationId="listPlayerRatings",
        summary="List a player's rated games, newest first",
        security=OPTIONAL_KEY_SECURITY,
    )
    @blp.arguments(PageQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, RatingHistorySchema, headers={"Link": "Link"})
    @blp.problems(
        "player_not_found",
        "missing_token",
        "invalid_key",
        "invalid_cursor",
        "validation_error",
        "database_unavailable",
    )
    def get(self, player_id: str, limit: int, cursor: str | None = None) -> Any:
        """Each rated game of the player, newest first, a page at a time: their place and score
        and their rating before and after it. Follow `next_cursor` (or `Link: rel="next"`). `me`
        lists your own (with your key)."""
        page = ratings().history(player_id_of(player_id), cursor=cursor, limit=limit)
        link = next_link("ratings.RatingHistoryViews", page.next_cursor, player_id=player_id, limit=limit)
        return page, 200, private_if_me(player_id, link)


@blp.route("/leaderboard")
class LeaderboardViews(MethodView):
    @blp.doc(
        operationId="getLeaderboard",
        summary="The players with a settled rating, best first (or the rising ones)",
        security=PUBLIC,
    )
    @blp.arguments(LeaderboardQuerySchema(), location="query", as_kwargs=True)
    @blp.response(200, LeaderboardSchema, headers={"Link": "Link"})
    @blp.problems("invalid_cursor", "validation_error", "database_unavailable")
    def get(self, limit: int, provisional: bool, cursor: str | None = None) -> Any:
        """Every player whose rating is not provisional, highest first, a page at a time; `rank`
        numbers them on across pages. A rating that turns provisional (too few rated games, or
        too long away) is not listed until its player's next rated game settles it again.
        With `provisional=true`, the rising players instead: those whose rating is still
        provisional, ranked apart. Either list shows only players who have met at least three
        distinct opponents who share no address with them (a bot once it has played a rated game), and never a
        player barred from rated play or a deleted account (docs/ratings.md, "The leaderboard")."""
        page = ratings().leaderboard(cursor=cursor, limit=limit, provisional=provisional)
        query = {"provisional": "true"} if provisional else {}
        return page, 200, next_link("ratings.LeaderboardViews", page.next_cursor, limit=limit, **query)
