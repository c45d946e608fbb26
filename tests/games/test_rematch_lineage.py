"""A line of rematches makes at most so many games a minute, read back from its own games only as far
as the minute goes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from service.games.errors import TooManyRematches
from service.games.rematch import check_lineage

NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)


def lineage(*ages_in_seconds: float) -> tuple[Any, list[str], Any]:
    """The newest game of a line whose games were created that many seconds ago (newest first), the
    ids the check loads (as it loads them), and its loader."""
    games = {
        f"g{index}": SimpleNamespace(
            created_at=NOW - timedelta(seconds=age),
            rematch_of=f"g{index + 1}" if index + 1 < len(ages_in_seconds) else None,
        )
        for index, age in enumerate(ages_in_seconds)
    }
    loaded: list[str] = []

    def earlier(game_id: str) -> Any:
        loaded.append(game_id)
        return games.get(game_id)

    return games["g0"], loaded, earlier


def test_a_rematch_after_a_long_game_reads_nothing_more():
    newest, loaded, earlier = lineage(300, 600, 900)
    check_lineage(newest, earlier, NOW, per_minute=3)
    assert loaded == []


def test_a_fast_line_is_refused_until_its_oldest_game_of_the_minute_is_a_minute_old():
    newest, loaded, earlier = lineage(1, 10, 45, 400)
    with pytest.raises(TooManyRematches) as refused:
        check_lineage(newest, earlier, NOW, per_minute=3)
    assert refused.value.retry_after == 15
    assert loaded == ["g1", "g2"]  # no further than the limit
    check_lineage(newest, earlier, NOW, per_minute=4)  # a higher limit lets it on
    check_lineage(newest, earlier, NOW, per_minute=0)  # no limit


def test_a_purged_game_ends_the_line():
    newest, _, earlier = lineage(1, 2)
    newest.rematch_of = "gone"
    check_lineage(newest, earlier, NOW, per_minute=2)
