"""Stored games of every shape (Hypothesis strategies), and their rows as SQLAlchemy reads them:
for the tests that hold the store's fast paths to their slow twins."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st
from sqlalchemy import select

from service.store import StoredEntry, StoredGame, StoredResult, StoredSeat
from service.store.repository import ACTIONS, EVENTS, GAMES, RESULTS, SEATS, TRICKS
from service.store.stored import (
    ACTION_COLUMNS,
    EVENT_COLUMNS,
    GAME_COLUMNS,
    SEAT_COLUMNS,
    TRICK_COLUMNS,
    StoredAction,
    StoredEvent,
    StoredTrick,
)

__all__ = ["changes", "games", "through_sqlalchemy"]

texts = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=12)
moments = st.datetimes(datetime(2000, 1, 1), datetime(2100, 1, 1), timezones=st.just(UTC))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=12,
)
small = st.integers(0, 120)
states = st.none() | st.dictionaries(texts, json_values, max_size=4)  # the engine's snapshot, or none yet


@st.composite
def seats(draw: st.DrawFn) -> list[StoredSeat]:
    def seat(number: int) -> StoredSeat:
        token = draw(st.none() | st.text("0123456789abcdef", min_size=64, max_size=64))
        bot = draw(st.none() | st.sampled_from(["random", "basic", "expert"]))
        return StoredSeat(
            number, draw(st.none() | texts), draw(st.none() | small), token, bot, draw(st.none() | moments)
        )

    return [seat(number) for number in range(3)]


@st.composite
def games(draw: st.DrawFn, game_id: str) -> StoredGame:
    return StoredGame(
        id=game_id, version=draw(st.integers(1, 10**6)), status=draw(st.sampled_from(["waiting_for_players", "playing"])),
        target_score=draw(st.integers(1, 1000)), auto_deal=draw(st.booleans()), seed=draw(st.none() | texts),
        requested_first_dealer=draw(st.none() | st.integers(0, 2)), turn_timeout_seconds=draw(st.none() | small),
        turn_deadline=draw(st.none() | moments), open_seats=draw(st.integers(0, 3)), trick_count=0, action_count=0,
        event_count=0, state=draw(states),
        created_at=draw(moments), updated_at=draw(moments), rematch_of=draw(st.none() | texts), seats=draw(seats()),
    )  # fmt: skip


@st.composite
def changes(draw: st.DrawFn, game: StoredGame) -> None:
    """A change as a use case makes one: new values, some seats changed, rows queued."""
    game.version += 1
    game.status = draw(st.sampled_from(["playing", "waiting_for_deal", "finished"]))
    game.turn_deadline, game.state, game.updated_at = draw(st.none() | moments), draw(states), draw(moments)
    game.open_seats, game.rematch = draw(st.integers(0, 3)), draw(st.none() | texts)
    for number in draw(st.sets(st.integers(0, 2))):
        game.seats[number] = draw(seats())[number]
        game.changed_seats.add(number)
    kinds = st.sampled_from(["deal", "play"])
    causes = st.sampled_from(["player", "bot", "auto", "timeout"])
    for _ in range(draw(st.integers(0, 3))):
        game.action_count += 1
        card, seed = draw(st.none() | texts), draw(st.none() | texts)
        action = StoredAction(
            game.action_count, draw(kinds), draw(st.integers(0, 2)), 1, draw(causes), draw(moments), card, seed
        )
        game.new_actions.append(action)
    for _ in range(draw(st.integers(0, 2))):
        game.trick_count += 1
        plays = [[seat, draw(texts)] for seat in range(3)]
        game.new_tricks.append(
            StoredTrick(game.trick_count, 1, game.trick_count, 0, plays, 1, draw(small), draw(moments))
        )
    for _ in range(draw(st.integers(0, 2))):
        game.event_count += 1
        event = StoredEvent(
            game.event_count, draw(texts), game.version, draw(st.none() | st.integers(0, 2)), draw(texts), draw(moments)
        )
        game.new_events.append(event)  # fmt: skip
    if draw(st.booleans()):  # the change that finishes a rated game: its result too
        entries = tuple(
            StoredEntry(
                seat, draw(texts), draw(st.booleans()), draw(st.integers(1, 3)), draw(small), draw(st.booleans())
            )
            for seat in range(3)
        )
        game.new_result = StoredResult(game.id, draw(moments), entries)


def through_sqlalchemy(connection: Any, game_id: str) -> dict[str, Any]:
    """The game's rows as SQLAlchemy reads them (the slow twin of the driver's statements)."""

    def rows(table: Any, names: tuple[str, ...], order: Any) -> list[tuple[Any, ...]]:
        query = select(*(table.c[name] for name in names)).where(table.c.game_id == game_id).order_by(order)
        return [tuple(row) for row in connection.execute(query)]

    game = connection.execute(select(*(GAMES.c[name] for name in GAME_COLUMNS)).where(GAMES.c.id == game_id)).one()
    return {
        "game": tuple(game),
        "seats": rows(SEATS, SEAT_COLUMNS, SEATS.c.seat),
        "actions": rows(ACTIONS, ACTION_COLUMNS, ACTIONS.c.seq),
        "tricks": rows(TRICKS, TRICK_COLUMNS, TRICKS.c.number),
        "events": rows(EVENTS, EVENT_COLUMNS, EVENTS.c.id),
        "results": rows(RESULTS, ("finished_at", "entries", "applied_at"), RESULTS.c.game_id),
    }
