"""Projections: what a stored game, action or trick shows the public, as use-case results (a rated game's seats with their rating changes once applied)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from .. import engine
from ..engine import FirstDealerReason, Game, Play, Status
from ..ratings import display
from ..store import StoredAction, StoredGame, StoredHistory, StoredSeat, StoredTrick
from .results import WAITING_FOR_PLAYERS, ActionState, PublicGame, SeatRating, SeatState, ShownRatingChange, TrickState
from .seats import is_open, owes_server_move

__all__ = [
    "action_state",
    "awaits_rating_changes",
    "hands_over",
    "public_game",
    "rated_seats",
    "trick_state",
    "with_rating_changes",
]


def public_game(stored: StoredGame, game: Game | None) -> PublicGame:
    """The game as anyone may see it (``game`` is None until all three seats are taken)."""
    if game is None:
        seats = tuple(
            SeatState(
                s.seat, s.name, is_open(s), s.bot, 0, 0, 0, s.player_id, _rating(stored, s), reserved_for=s.reserved_for
            )
            for s in stored.seats
        )  # a game not started is waiting for players, or cancelled: its status is the stored one
        waiting = stored.status == WAITING_FOR_PLAYERS  # with seats reserved, its turn_deadline is their wait's end
        named = stored.requested_first_dealer
        return PublicGame(
            stored.id, stored.status, stored.target_score, stored.seed is not None, stored.auto_deal,
            stored.turn_timeout_seconds, None, stored.version, stored.created_at, stored.updated_at, seats,
            0, None, None, None, None, None, named, None if named is None else FirstDealerReason.NAMED.value, None,
            stored.rematch_of, stored.rematch, stored.rated, stored.void,
            expires_at=stored.turn_deadline if waiting else None,
        )  # fmt: skip
    view = engine.public_view(game)
    seats = tuple(
        SeatState(
            s.seat,
            s.name,
            False,
            s.bot,
            view.scores[s.seat],
            view.cards_in_hand[s.seat],
            view.tricks_won[s.seat],
            s.player_id,
            _rating(stored, s),
            reserved_for=s.reserved_for,
        )
        for s in stored.seats
    )
    trick = None
    if view.status is Status.PLAYING:
        assert view.leader is not None
        trick = TrickState(view.leader, view.trick, view.hand_number, view.trick_number)
    return PublicGame(
        id=stored.id,
        status=view.status.value,
        target_score=view.target_score,
        seeded=view.seeded,
        auto_deal=stored.auto_deal,
        turn_timeout_seconds=stored.turn_timeout_seconds,
        turn_deadline=None if owes_server_move(stored, game) else stored.turn_deadline,  # a bot's: owed
        version=stored.version,
        created_at=stored.created_at,
        updated_at=stored.updated_at,
        seats=seats,
        hand_number=view.hand_number,
        dealer=view.dealer,
        turn=view.turn,
        trick=trick,
        last_trick=TrickState.of(view.last_trick) if view.last_trick else None,
        winner=view.winner,
        first_dealer=view.first_dealer,
        first_dealer_chosen_by=view.first_dealer_reason.value,
        commitment=view.commitment,
        rematch_of=stored.rematch_of,
        rematch=stored.rematch,
        rated=stored.rated,
        void=stored.void,
    )


def _rating(stored: StoredGame, seat: StoredSeat) -> SeatRating | None:
    """A rated game's seat's player's rating as the game began (None before it began, and in an unrated game)."""
    if not stored.rated or seat.rating is None or seat.rating_provisional is None:
        return None
    return SeatRating(seat.rating, seat.rating_provisional)


def trick_state(trick: StoredTrick) -> TrickState:
    plays = tuple(Play(seat, engine.parse_card(code)) for seat, code in trick.plays)
    return TrickState(trick.leader, plays, trick.hand_number, trick.trick_number, trick.winner, trick.points)


def hands_over(game: Game | None) -> int:
    """The highest hand number whose seed may be shown: every hand but one being played."""
    if game is None:
        return 0
    return game.hand_number - 1 if game.status is Status.PLAYING else game.hand_number


def action_state(action: StoredAction, hands_over: int) -> ActionState:
    """An entry of the public history: a deal's seed only once its hand is over."""
    seed = bytes.fromhex(action.seed) if action.seed else None
    return ActionState(
        seq=action.seq,
        kind=action.kind,
        seat=action.seat,
        hand_number=action.hand_number,
        cause=action.cause,
        created_at=action.created_at,
        card=engine.parse_card(action.card) if action.card else None,
        commitment=engine.commitment(seed) if seed else None,
        seed=seed.hex() if seed and action.hand_number <= hands_over else None,
    )


def awaits_rating_changes(game: PublicGame) -> bool:
    """A finished rated game that is not void: its seats' players are rated (or will be, within a second)."""
    return game.rated and not game.void and game.status == Status.FINISHED.value


def rated_seats(games: Iterable[PublicGame]) -> list[tuple[str, str]]:
    """The (player, game) pairs whose applied changes these games show: their rated seats' players."""
    return [
        (seat.player, game.id)
        for game in games
        if awaits_rating_changes(game)
        for seat in game.seats
        if seat.player is not None
    ]


def with_rating_changes(game: PublicGame, history: Sequence[StoredHistory]) -> PublicGame:
    """``game`` with each seat's ``rating_change`` from the players' applied history rows of it."""
    rows = {row.player_id: row for row in history if row.game_id == game.id and row.mu_after is not None}
    if not awaits_rating_changes(game) or not rows:
        return game
    seats = tuple(
        replace(seat, rating_change=_change(rows[seat.player])) if seat.player in rows else seat for seat in game.seats
    )
    return replace(game, seats=seats)


def _change(row: StoredHistory) -> ShownRatingChange:
    """The rating as shown before the game and after it (as the player's ``game_result`` says)."""
    assert row.mu_after is not None and row.sigma_after is not None
    before = display(row.mu_before, row.sigma_before, row.games_before).value
    after = display(row.mu_after, row.sigma_after, row.games_before + 1).value
    return ShownRatingChange(before, after)
