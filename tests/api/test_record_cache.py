"""getRecord from the process's cache: a finished game's record served again byte for byte, without
reading its log; an unfinished game's never kept; a purged game's gone with its row."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from service import create_app
from service.api.record_cache import RecordCache
from service.config import Settings
from service.games import GameService
from service.store.purge import purge

from .test_record import download, play_to_end

HEADERS_COMPARED_WITHOUT = ("Date", "X-Request-ID")  # the two that differ between any two responses


def cache_of(app: Flask) -> RecordCache:
    cache: RecordCache = app.extensions["coins.record_cache"]
    return cache


@pytest.fixture
def uncached_app(settings: Settings) -> Iterator[Flask]:
    """A second process's app on the same database, with no record cache."""
    app = create_app(replace(settings, record_cache_bytes=0, auto_migrate=False))
    app.config["TESTING"] = True
    yield app
    app.extensions["coins.feed"].close()
    app.extensions["coins.db"].dispose()


def finished_game(new_table: Any) -> tuple[str, dict[str, Any]]:
    table = new_table(target_score=5, seed="cached")
    state = play_to_end(table)
    assert state["status"] == "finished"
    return table.id, state


def comparable(response: Any) -> tuple[int, bytes, list[tuple[str, str]]]:
    headers = [(name, value) for name, value in response.headers if name not in HEADERS_COMPARED_WITHOUT]
    return response.status_code, response.get_data(), headers


def test_a_finished_record_is_the_same_bytes_and_headers_with_and_without_the_cache(
    app, client, uncached_app, new_table
):
    game_id, _ = finished_game(new_table)
    uncached = comparable(download(uncached_app.test_client(), game_id))
    first = comparable(download(client, game_id))  # rendered and kept
    again = comparable(download(client, game_id))  # from the cache
    assert uncached[0] == 200 and len(cache_of(app)) == 1
    assert first == uncached and again == uncached
    assert len(cache_of(uncached_app)) == 0


def test_a_cached_record_is_served_without_building_it(app, client, new_table, monkeypatch):
    game_id, state = finished_game(new_table)
    body = download(client, game_id).get_data()

    def refuse(*_args: object) -> None:
        raise AssertionError("the record was built again")

    monkeypatch.setattr(GameService, "record", refuse)
    served = download(client, game_id)
    assert served.status_code == 200 and served.get_data() == body
    assert served.headers["ETag"] == f'"{game_id}.{state["version"]}"'
    assert cache_of(app).total_bytes == len(body)


def test_a_finished_record_answers_if_none_match_with_304_as_before(client, uncached_app, new_table):
    game_id, _ = finished_game(new_table)
    etag = download(client, game_id).headers["ETag"]
    for reader in (client, uncached_app.test_client()):
        for tags in (etag, f'"other", {etag}', "*"):
            unchanged = download(reader, game_id, **{"If-None-Match": tags})
            assert unchanged.status_code == 304 and unchanged.headers["ETag"] == etag
            assert unchanged.get_data() == b""
        assert download(reader, game_id, **{"If-None-Match": '"other"'}).status_code == 200


def test_an_unfinished_record_is_never_kept_and_shows_each_new_play(app, client, new_table):
    table = new_table(target_score=100, seed="running")
    table.deal(0)
    for plays in range(1, 4):
        turn = table.state()["turn"]
        assert table.play(turn, table.hand(turn)[0]).status_code == 201
        record = download(client, table.id).json
        (hand,) = record["hands"]
        assert len(hand["plays"]) == plays and "seed" not in hand
    assert len(cache_of(app)) == 0


def test_a_purged_games_record_is_not_found_although_it_was_cached(app, client, new_table):
    game_id, _ = finished_game(new_table)
    download(client, game_id)
    assert len(cache_of(app)) == 1
    later = datetime.now(UTC) + timedelta(days=1)
    assert purge(app.extensions["coins.db"], finished_before=later, abandoned_before=later - timedelta(days=2)).finished
    gone = download(client, game_id)
    assert gone.status_code == 404 and gone.json["code"] == "game_not_found"


def test_a_rematch_changes_the_record_served(client, new_table):
    table = new_table(target_score=5, seed="rematch-cache")
    play_to_end(table)
    before = download(client, table.id)
    assert client.post(f"/v1/games/{table.id}/rematch", headers=table.auth(0)).status_code == 201
    after = download(client, table.id)
    assert after.status_code == 200 and after.headers["ETag"] != before.headers["ETag"]
    assert after.get_data() != before.get_data()
