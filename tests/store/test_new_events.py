"""``StoreSession.new_events``: several games' new events in one statement, each after its own id."""

from __future__ import annotations

from typing import Any

from flask import Flask

from service.store import GameStore, new_events
from service.store.driver import Prepared


def _store(app: Flask) -> GameStore:
    return GameStore(app.extensions["coins.db"])


def _all_events(store: GameStore, game_id: str) -> list[int]:
    with store.session() as session:
        return [event.id for event in session.new_events({game_id: 0}, limit=1000).get(game_id, [])]


def test_each_game_gets_its_events_after_its_own_id(app: Flask, new_table) -> None:
    dealt, caught_up, quiet = new_table(seed="a"), new_table(seed="b"), new_table(seed="c")
    for table in (dealt, caught_up):  # a deal: a public event and one private event per seat
        assert table.deal().status_code == 201
    store = _store(app)
    dealt_ids, caught_up_ids = _all_events(store, dealt.id), _all_events(store, caught_up.id)
    assert dealt_ids == list(range(1, len(dealt_ids) + 1)) and len(dealt_ids) >= 4
    assert _all_events(store, quiet.id) == []  # a new game has saved no event yet

    with store.session() as session:
        new = session.new_events({dealt.id: 1, caught_up.id: caught_up_ids[-1], quiet.id: 0}, limit=1000)
    assert [event.id for event in new[dealt.id]] == dealt_ids[1:]  # after 1, oldest first
    assert caught_up.id not in new and quiet.id not in new  # nothing after their ids
    private = [event for event in new[dealt.id] if event.seat is not None]
    assert sorted(event.seat for event in private) == [0, 1, 2]  # every seat's: the feed filters them


def test_the_limit_holds_for_each_game_and_keeps_its_oldest(app: Flask, new_table) -> None:
    first, second = new_table(seed="d"), new_table(seed="e")
    first.deal(), second.deal()
    store = _store(app)
    assert len(_all_events(store, first.id)) > 2 and len(_all_events(store, second.id)) > 2
    with store.session() as session:
        cut = session.new_events({first.id: 0, second.id: 1}, limit=2)
        assert session.new_events({}, limit=10) == {}
    assert {game: [event.id for event in events] for game, events in cut.items()} == {
        first.id: [1, 2],
        second.id: [2, 3],
    }


def test_sqlite_reads_in_batches_and_postgresql_in_one_statement(app: Flask, new_table, monkeypatch) -> None:
    """On SQLite batches are padded to a few statement sizes and split past the largest: shrink
    them to see it. PostgreSQL reads any number of games in one statement. Same answer either way."""
    monkeypatch.setattr(new_events, "SQLITE_GAMES", 2)
    monkeypatch.setattr(new_events, "SQLITE_SIZES", (1, 2))
    statements: list[int] = []
    run = Prepared.run

    def counted(prepared: Prepared, connection: Any, values: Any) -> Any:
        statements.append(len(values))
        return run(prepared, connection, values)

    tables = [new_table(seed=f"s{number}") for number in range(5)]
    for table in tables:
        table.deal()
    store = _store(app)
    every = {table.id: _all_events(store, table.id) for table in tables}
    monkeypatch.setattr(Prepared, "run", counted)
    with store.session() as session:
        new = session.new_events({table.id: 1 for table in tables}, limit=1000)
    assert {game: [event.id for event in events] for game, events in new.items()} == {
        game: ids[1:] for game, ids in every.items()
    }
    if app.extensions["coins.db"].is_sqlite:
        assert statements == [5, 5, 3]  # two games (game_N, after_N) and the limit, then one game
    else:
        assert statements == [3]  # the two arrays and the limit


def test_heads_are_each_games_last_event_and_turn_deadline(app: Flask, new_table) -> None:
    timed, untimed = new_table(seed="f", turn_timeout_seconds=60), new_table(seed="g")
    assert timed.deal().status_code == 201
    store = _store(app)
    with store.session() as session:
        heads = session.heads([timed.id, untimed.id, "nosuchgame"])
    assert set(heads) == {timed.id, untimed.id}  # a game that is not stored has no head
    assert heads[timed.id][0] == _all_events(store, timed.id)[-1] and heads[timed.id][1] is not None
    assert heads[untimed.id] == (0, None)  # no event yet, and nothing due
