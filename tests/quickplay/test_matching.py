"""The rules of matchmaking (service.quickplay.matching): groups, closest ratings first, the widening gap, bots, expiry."""

from __future__ import annotations

import itertools
import math
import random
from datetime import UTC, datetime, timedelta

import pytest

from service.quickplay.matching import GAP_AT_START, GAP_PER_SECOND, Plan, allowed_gap, plan_wave
from service.store import StoredPlayer, StoredTicket

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
_ids = itertools.count(1)


def ticket(
    mu: float = 25.0,
    *,
    waited: float = 0.0,
    seen: float = 0.0,
    target: int = 15,
    rated: bool = True,
    bots_after: int | None = None,
) -> StoredTicket:
    number = next(_ids)
    return StoredTicket(
        id=f"t{number:03}",
        player_id=f"p{number:03}",
        name=f"P{number}",
        target_score=target,
        rated=rated,
        bots_after=bots_after,
        status="waiting",
        mu=mu,
        sigma=25 / 3,
        created_at=NOW - timedelta(seconds=waited),
        seen_at=NOW - timedelta(seconds=seen),
    )


def bot(strength: str, mu: float) -> StoredPlayer:
    return StoredPlayer(
        id=f"bot-{strength}", name=f"{strength.title()} bot", bot=strength, key_hash=None, mu=mu, sigma=25 / 3,
        rated_games=0, rated_at=None, created_at=NOW,
    )  # fmt: skip


BOTS = [bot("random", 10.0), bot("basic", 22.0), bot("expert", 30.0)]


def plan(tickets: list[StoredTicket], **options: float) -> Plan:
    return plan_wave(tickets, BOTS, NOW, rng=random.Random(1), **options)


def matched_sets(result: Plan) -> list[set[str]]:
    return [{ticket_id for ticket_id, _ in match.tickets} for match in result.matches]


@pytest.mark.parametrize(
    ("waited", "gap"),
    [(0, GAP_AT_START), (10, GAP_AT_START + 10 * GAP_PER_SECOND), (59.9, GAP_AT_START + 59.9 * GAP_PER_SECOND)],
)
def test_the_gap_grows_linearly_with_waiting_time(waited: float, gap: float) -> None:
    assert allowed_gap(waited) == pytest.approx(gap)


@pytest.mark.parametrize("waited", [60, 61, 3600])
def test_the_gap_is_unbounded_from_the_window_on(waited: float) -> None:
    assert allowed_gap(waited) == math.inf
    assert allowed_gap(5, window_seconds=5) == math.inf


def test_three_close_tickets_match_at_once_into_one_game_of_their_kind() -> None:
    three = [ticket(25), ticket(25.5), ticket(26)]
    result = plan(three)
    assert matched_sets(result) == [{t.id for t in three}]
    match = result.matches[0]
    assert (match.target_score, match.rated) == (15, True)
    assert sorted(seat.player for seat in match.lineup) == sorted(t.player_id for t in three)
    assert all(seat.bot is None for seat in match.lineup)
    assert sorted(seat for _, seat in match.tickets) == [0, 1, 2]
    for ticket_id, seat in match.tickets:
        assert match.lineup[seat].player == next(t.player_id for t in three if t.id == ticket_id)


def test_tickets_of_another_target_or_rating_kind_are_never_matched_together() -> None:
    mixed = [ticket(25), ticket(25, target=30), ticket(25, rated=False), ticket(25), ticket(25, target=30)]
    assert plan([*mixed]).matches == ()
    assert plan(mixed, window_seconds=0.0).matches == ()  # however long they wait


def test_far_ratings_wait_until_the_gap_has_widened_enough() -> None:
    spread = GAP_AT_START + 10 * GAP_PER_SECOND  # allowed once the oldest has waited 10 s
    assert plan([ticket(20, waited=9), ticket(22), ticket(20 + spread)]).matches == ()
    assert len(plan([ticket(20, waited=10.5), ticket(22), ticket(20 + spread)]).matches) == 1


def test_any_three_of_a_kind_match_once_one_has_waited_the_window() -> None:
    far = [ticket(0, waited=60), ticket(25), ticket(50)]
    assert matched_sets(plan(far)) == [{t.id for t in far}]
    assert plan([ticket(0, waited=59), ticket(25), ticket(50)]).matches == ()


def test_the_closest_three_are_matched_first() -> None:
    low = [ticket(20), ticket(20.2), ticket(20.4)]
    high = [ticket(21.0), ticket(21.1), ticket(21.15)]  # the closest three
    result = plan([*low, *high, ticket(40)])
    assert matched_sets(result) == [{t.id for t in high}, {t.id for t in low}]


def test_sixty_tickets_that_waited_the_window_all_match_each_once() -> None:
    rng = random.Random(7)
    tickets = [ticket(rng.uniform(0, 50), waited=61) for _ in range(60)]
    result = plan(tickets)
    ids = [ticket_id for match in result.matches for ticket_id, _ in match.tickets]
    assert len(ids) == len(set(ids)) == 60
    assert len({match.game_id for match in result.matches}) == 20


def test_a_ticket_past_bots_after_is_completed_by_two_bots_of_different_strengths_closest_in_rating() -> None:
    alone = ticket(24, waited=5, bots_after=5)
    result = plan([alone])
    assert matched_sets(result) == [{alone.id}]
    bots = sorted(seat.bot for seat in result.matches[0].lineup if seat.bot is not None)
    assert bots == ["basic", "expert"]  # 22 and 30 are closest to 24; random (10) is not


def test_two_tickets_past_bots_after_share_a_table_with_one_bot() -> None:
    pair = [ticket(25, waited=8, bots_after=5), ticket(26, waited=6, bots_after=0)]
    result = plan(pair)
    assert matched_sets(result) == [{t.id for t in pair}]
    assert [seat.bot for seat in result.matches[0].lineup if seat.bot] == ["basic"]  # 22 is closest to 25.5


def test_a_ticket_due_for_bots_waits_for_a_neighbour_about_to_be_due_and_shares_its_table() -> None:
    first, second = ticket(25, waited=30, bots_after=30), ticket(25.5, waited=28.5, bots_after=30)
    assert plan([first, second]).matches == ()  # the second may not have bots yet: the first waits for it
    later = plan_wave([first, second], BOTS, NOW + timedelta(seconds=1.5), rng=random.Random(1))
    assert matched_sets(later) == [{first.id, second.id}]
    assert len([seat for seat in later.matches[0].lineup if seat.bot]) == 1


@pytest.mark.parametrize(
    ("neighbour", "why"),
    [
        (ticket(25.5, waited=28.5, bots_after=60), "due in 31.5 s: past the grace"),
        (ticket(25.5, waited=28.5, bots_after=None), "never takes bots"),
        (ticket(50.0, waited=28.5, bots_after=30), "beyond the gap (17 in mu at 30 s)"),
    ],
)
def test_a_ticket_due_for_bots_does_not_wait_for_a_neighbour_it_could_not_soon_share_with(
    neighbour: StoredTicket, why: str
) -> None:
    first = ticket(25, waited=30, bots_after=30)
    assert matched_sets(plan([first, neighbour])) == [{first.id}], why


@pytest.mark.parametrize("bots_after", [None, 30])
def test_no_bots_before_bots_after_nor_ever_with_null(bots_after: int | None) -> None:
    assert plan([ticket(25, waited=29, bots_after=bots_after)]).matches == ()


def test_no_bot_table_without_enough_bot_players() -> None:
    alone = ticket(25, waited=10, bots_after=0, rated=False)
    assert plan_wave([alone], BOTS[:1], NOW).matches == ()
    assert len(plan_wave([alone], BOTS[:2], NOW).matches) == 1


@pytest.mark.parametrize("rated", [True, False])
def test_the_random_bot_completes_casual_tables_only(rated: bool) -> None:
    # Near the random bot's rating, it would be the closest; a rated table takes the next ones instead.
    alone = ticket(11, waited=10, bots_after=0, rated=rated)
    bots = sorted(seat.bot for seat in plan([alone]).matches[0].lineup if seat.bot is not None)
    assert bots == (["basic", "expert"] if rated else ["basic", "random"])
    assert plan_wave([ticket(11, waited=10, bots_after=0, rated=True)], BOTS[:2], NOW).matches == ()


def test_a_ticket_not_seen_for_the_expiry_expires_and_is_matched_with_nobody() -> None:
    stale = ticket(25, seen=31)
    fresh = [ticket(25), ticket(25)]
    result = plan([stale, *fresh])
    assert result.expired == (stale.id,)
    assert result.matches == ()
    assert plan([ticket(25, seen=29), *fresh]).expired == ()


def test_an_empty_plan_is_false() -> None:
    assert not plan([ticket(25), ticket(40)])
    assert plan([ticket(25, seen=40)])
