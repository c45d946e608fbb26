"""What a quick-play test checks once every player has queued and been matched: read from the tables."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, text


def check_every_ticket_matched_once(engine: Engine, players: set[str], *, expected_games: int) -> None:
    """Each player's one ticket is matched, its game made; each game holds three tickets, at seats 0,
    1, 2, and is stored with those players in those seats (and no bot); no player sits in two games."""
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT player_id, status, game_id, seat, game_started FROM queue_tickets")
        ).all()
        seats = connection.execute(text("SELECT game_id, seat, player_id, bot FROM seats")).all()
        game_count = connection.execute(text("SELECT count(*) FROM games")).scalar_one()
    assert sorted(row.player_id for row in rows) == sorted(players)  # one ticket each
    assert {row.status for row in rows} == {"matched"}  # none left waiting
    assert all(row.game_started for row in rows)
    by_game: dict[str, list[Any]] = {}
    for row in rows:
        by_game.setdefault(row.game_id, []).append(row)
    assert len(by_game) == expected_games == game_count
    for game_id, matched in by_game.items():
        assert sorted(row.seat for row in matched) == [0, 1, 2]
        stored = {row.seat: row.player_id for row in seats if row.game_id == game_id}
        assert stored == {row.seat: row.player_id for row in matched}
    assert all(row.bot is None for row in seats)
    assert Counter(row.player_id for row in seats).most_common(1)[0][1] == 1  # nobody in two games


def spread_ratings(engine: Engine, player_ids: list[str], seed: int) -> None:
    """Give the players ratings far apart (a mu from 0 to 50): only the waiting window matches them all."""
    rng = random.Random(seed)
    with engine.begin() as connection:
        for player_id in player_ids:
            connection.execute(
                text("UPDATE players SET mu = :mu WHERE id = :id"), {"mu": rng.uniform(0, 50), "id": player_id}
            )


def run_at_once(calls: list[Callable[[], None]], *, seconds: float = 120) -> None:
    """Each call on a thread of its own, all let go at once (a barrier); fails with what any raised,
    or if one has not returned within ``seconds``."""
    start = threading.Barrier(len(calls))
    failures: list[BaseException] = []

    def run(call: Callable[[], None]) -> None:
        try:
            start.wait(timeout=30)
            call()
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds)
    assert not failures, failures
    assert not any(thread.is_alive() for thread in threads)


def wait_until_started(engine: Engine, seconds: float = 15.0) -> None:
    """Wait (bounded) until every matched ticket's game is made: a reader sees its ticket matched as
    the wave commits, before the wave makes its game (a later wave makes it if that one stopped)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with engine.connect() as connection:
            left = connection.execute(text("SELECT count(*) FROM queue_tickets WHERE NOT game_started")).scalar_one()
        if left == 0:
            return
        time.sleep(0.2)
