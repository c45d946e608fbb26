"""A finished game's finishing order: the place of each seat, from the winner, the scores and who left."""

from __future__ import annotations

from collections.abc import Collection, Sequence

SEATS = 3


def finishing_order(winner: int, scores: Sequence[int], left: Collection[int] = ()) -> tuple[int, ...]:
    """The place of each seat (1 is first; equal finishes share the better place, as in 1, 2, 2).

    The winner is first; the other seats follow by score, higher is better, equal scores tie; a
    seat whose player left the game finishes last, whatever their seat scored after (two leavers tie
    for last, three tie with each other). The engine makes the winner's score the highest of all (only a
    trick's winner scores, and the game ends the moment one total reaches the target), but the
    order does not rely on it. If the bot playing on for a leaver wins, the leaver is still last:
    then the winner's place goes to the better of the others, and two others on equal scores tie
    for first.
    """
    if len(scores) != SEATS:
        raise ValueError(f"a game of Coins has {SEATS} scores, not {len(scores)}")
    if not 0 <= winner < SEATS:
        raise ValueError(f"the winner must be a seat from 0 to {SEATS - 1}, not {winner}")
    leavers = set(left)
    if not leavers <= set(range(SEATS)):
        raise ValueError(f"the seats that left must be seats from 0 to {SEATS - 1}, not {sorted(leavers)}")

    def standing(seat: int) -> tuple[bool, bool, int]:
        """What places a seat, best first when sorted: whether its player left, whether it lost, its score negated."""
        if seat in leavers:
            return (True, False, 0)  # all leavers alike: neither the win nor the score of their seat counts
        return (False, seat != winner, -scores[seat])

    standings = [standing(seat) for seat in range(SEATS)]
    return tuple(1 + sum(other < mine for other in standings) for mine in standings)
