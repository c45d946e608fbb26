"""The hub's thread: every game changed since its last read in one read, then each game's readers
woken; and each watched game looked at when it is due."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Collection, Mapping
from datetime import UTC, datetime, timedelta

from service.events.hub import CACHED_EVENTS, SERVER_MOVE_PACE, Hub, Item

WAIT_SECONDS = 10


def _event(number: int) -> Item:
    return Item(number, "card_played", None, "{}")


class Database:
    """Each game's events, and a record of every read the hub made."""

    def __init__(self, games: dict[str, int]) -> None:
        self.games = games  # game -> number of events
        self.reads: list[dict[str, int]] = []
        self.lock = threading.Lock()

    def read(self, after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        with self.lock:
            self.reads.append(dict(after))
            new = {game: [_event(n) for n in range(last + 1, self.games[game] + 1)] for game, last in after.items()}
        return {game: events[:limit] for game, events in new.items() if events}  # at most ``limit`` of each


def test_one_read_for_every_changed_game_then_one_wake_per_game() -> None:
    database = Database({f"g{n}": 1 for n in range(20)})
    read_by_hub: list[dict[str, int]] = []
    covered = threading.Condition()

    def read_kept(after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        with covered:
            read_by_hub.append(dict(after))
            covered.notify_all()
        return database.read(after, limit)

    def every_game_read() -> bool:
        return {game for after in read_by_hub for game in after} == set(database.games)

    hub = Hub(database.read, max_streams=100, read_kept=read_kept)
    with _watching(hub, list(database.games)) as watches:
        for watch in watches.values():  # each reader's first take reads for itself and fills the cache
            assert [event.id for event in watch.take(0, None)[0]] == [1]
        with covered:  # those takes asked the hub to look again: it has, at each game
            assert covered.wait_for(every_game_read, WAIT_SECONDS)
            read_by_hub.clear()
        with hub._lock:  # hold the hub back until every game is marked changed
            for game in database.games:
                database.games[game] = 3
                hub.notice(game)
        for watch in watches.values():
            assert watch.wait(1, WAIT_SECONDS) and [event.id for event in watch.take(1, None)[0]] == [2, 3]
        assert read_by_hub == [{game: 1 for game in database.games}]  # one read, each game after its last
    hub.close()


def test_an_answer_cut_at_the_limit_is_read_again_until_complete() -> None:
    database = Database({"big": 1, "small": 1})
    hub = Hub(database.read, max_streams=10)
    with _watching(hub, ["big", "small"]) as watches:
        for watch in watches.values():
            watch.take(0, None)
        database.games.update(big=CACHED_EVENTS + 5, small=4)
        hub.notice("big"), hub.notice("small")
        assert watches["small"].wait(3, WAIT_SECONDS) and watches["big"].wait(CACHED_EVENTS + 4, WAIT_SECONDS)
        events, last = watches["small"].take(1, None)
        assert [event.id for event in events] == [2, 3, 4] and last == 4
    hub.close()


def test_a_change_noticed_while_the_hub_reads_is_read_next() -> None:
    database = Database({"game": 1})
    inside, go_on = threading.Event(), threading.Event()

    def read_kept(after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        answer = database.read(after, limit)
        if database.games["game"] == 2 and not inside.is_set():
            inside.set()  # the hub's thread stays in this read until the test has noticed a change
            go_on.wait(WAIT_SECONDS)
        return answer

    hub = Hub(database.read, max_streams=10, read_kept=read_kept)
    with _watching(hub, ["game"]) as watches:
        watch = watches["game"]
        assert [event.id for event in watch.take(0, None)[0]] == [1]  # the stream's own read
        database.games["game"] = 2
        hub.notice("game")
        assert inside.wait(WAIT_SECONDS)
        database.games["game"] = 3
        hub.notice("game")  # saved while the hub reads event 2
        go_on.set()
        assert watch.wait(2, WAIT_SECONDS)  # read next, not left for a heartbeat
        assert [event.id for event in watch.take(1, None)[0]] == [2, 3]
    hub.close()


class Deadlines:
    """Each game's turn deadline, and when each game was looked at."""

    def __init__(self, **seconds_from_now: float | None) -> None:
        now = datetime.now(UTC)
        self.deadlines = {
            game: None if seconds is None else now + timedelta(seconds=seconds)
            for game, seconds in seconds_from_now.items()
        }
        self.looks: dict[str, list[float]] = {game: [] for game in seconds_from_now}

    def read_heads(self, game_ids: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        return {game: (1, self.deadlines[game]) for game in game_ids}  # one event each

    def look_at(self, game_id: str) -> None:
        self.looks[game_id].append(time.monotonic())


def test_a_game_is_looked_at_when_its_turn_runs_out_and_paced_while_the_server_owes_moves() -> None:
    database = Database({"later": 1, "owed": 1, "idle": 1})
    due = Deadlines(later=0.5, owed=-1.0, idle=None)
    hub = Hub(database.read, max_streams=10, read_heads=due.read_heads, look_at=due.look_at)
    started = time.monotonic()
    with _watching(hub, list(database.games)) as watches:
        for watch in watches.values():
            watch.take(0, None)  # the first take asks the hub, which reads the game's head: its deadline
        give_up = started + 30  # a bound for a loaded machine, not a measure: the asserts below time nothing
        while (not due.looks["later"] or len(due.looks["owed"]) < 3) and time.monotonic() < give_up:
            time.sleep(0.05)
    hub.close()
    assert due.looks["idle"] == []  # nothing due: never looked at
    assert due.looks["later"] and due.looks["later"][0] - started >= 0.45  # at its deadline, not before
    owed = due.looks["owed"]  # looked at at once, then again every pace (the server still owes it moves)
    assert len(owed) >= 3
    assert all(b - a >= SERVER_MOVE_PACE * 0.9 for a, b in itertools.pairwise(owed))


class _watching:
    """Watch each of ``games`` in one stream slot until the block ends."""

    def __init__(self, hub: Hub, games: list[str]) -> None:
        self._contexts = [hub.watch(game) for game in games]
        self._games = games

    def __enter__(self):  # type: ignore[no-untyped-def]
        return {game: context.__enter__() for game, context in zip(self._games, self._contexts, strict=True)}

    def __exit__(self, *exc: object) -> None:
        for context in self._contexts:
            context.__exit__(None, None, None)


def test_only_games_whose_head_moved_are_read() -> None:
    """Told that anything may have changed (an SQLite file moved), the hub reads every watched
    game's head in one statement, then the events of those that have new ones only."""
    database = Database({"moved": 1, "still": 1})
    reads: list[dict[str, int]] = []

    def read_kept(after: Mapping[str, int], limit: int) -> dict[str, list[Item]]:
        reads.append(dict(after))
        return database.read(after, limit)

    def read_heads(game_ids: Collection[str]) -> dict[str, tuple[int, datetime | None]]:
        return {game: (database.games[game], None) for game in game_ids}

    hub = Hub(database.read, max_streams=10, read_kept=read_kept, read_heads=read_heads)
    with _watching(hub, ["moved", "still"]) as watches:
        for watch in watches.values():
            watch.take(0, None)
        database.games["moved"] = 2
        hub.notice(None)
        assert watches["moved"].wait(1, WAIT_SECONDS)
        assert reads == [{"moved": 1}]  # "still" was not read
    hub.close()
