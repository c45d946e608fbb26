"""Game ids sort by creation: strictly within one process, even within one millisecond."""

from __future__ import annotations

from service.games.ids import is_game_id, new_game_id


def test_ids_made_in_one_process_sort_in_the_order_they_were_made() -> None:
    ids = [new_game_id() for _ in range(2000)]  # many share a millisecond
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(is_game_id(game_id) for game_id in ids)
