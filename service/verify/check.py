"""The checks: the record replayed hand by hand, play by play, against the rules and its commitments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .document import Discrepancy, InvalidRecord, read_seat, read_seed, read_value
from .rules import (
    CARDS_EACH,
    CAUSES,
    DECK,
    FIRST_DEALER_CHOICES,
    FORMAT,
    FORMAT_VERSION,
    commitment,
    deal,
    left_of,
    right_of,
    trick_points,
    trick_winner,
)

# -- the game as replayed ----------------------------------------------------------------


@dataclass
class Setup:
    target: int
    first_dealer: int
    names: list[str]


@dataclass
class Replay:
    """What the rules say the game is after the hands checked so far."""

    setup: Setup
    scores: list[int] = field(default_factory=lambda: [0, 0, 0])
    next_dealer: int = 0
    winner: int | None = None
    hands: int = 0
    plays: int = 0
    last_hand_over: bool = True
    last_hand_tricks: int = 0


@dataclass
class Trick:
    """A completed trick as the rules settle it."""

    leader: int
    plays: list[tuple[int, str]]
    winner: int
    points: int


@dataclass
class HandPlay:
    """One hand being replayed: the dealt hands (when the seed is known), the cards played, the trick on the table."""

    dealt: list[list[str]] | None
    turn: int
    played: set[str] = field(default_factory=set)
    table: list[tuple[int, str]] = field(default_factory=list)
    tricks: list[Trick] = field(default_factory=list)


def verify(record: Any) -> str:
    """Check ``record``; return the one-line summary, or raise the first problem found."""
    _check_format(record)
    replay = Replay(_setup(record))
    replay.next_dealer = replay.setup.first_dealer
    hands = read_value(record, "hands", list, "record")
    for index, hand in enumerate(hands):
        _check_hand(replay, hand, index + 1, is_last=index == len(hands) - 1)
    _check_outcome(record, replay)
    return _summary(record, replay)


def _check_format(record: Any) -> None:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise InvalidRecord(f'not a Coins game record (no "format": "{FORMAT}")')
    if record.get("format_version") != FORMAT_VERSION:
        raise InvalidRecord(
            f"format_version {record.get('format_version')!r} is not {FORMAT_VERSION}, the one known here"
        )


def _setup(record: Any) -> Setup:
    setup = read_value(record, "setup", dict, "record")
    target = read_value(setup, "target_score", int, "setup")
    if not 1 <= target <= 100:
        raise Discrepancy(f"setup: the target score {target} is not from 1 to 100")
    if not record.get("hands") and setup.get("first_dealer") is None:
        return Setup(target, 0, _names(record))  # seats still open: no first dealer yet
    chosen_by = setup.get("first_dealer_chosen_by")
    if chosen_by not in FIRST_DEALER_CHOICES:
        raise Discrepancy(
            f"setup: first_dealer_chosen_by {chosen_by!r} is not one of {', '.join(FIRST_DEALER_CHOICES)}"
        )
    return Setup(target, read_seat(setup, "first_dealer", "setup"), _names(record))


def _names(record: Any) -> list[str]:
    seats = read_value(record, "seats", list, "record")
    if [read_seat(seat, "seat", "seats") for seat in seats] != [0, 1, 2]:
        raise Discrepancy("seats: the record does not list seats 0, 1 and 2, in order")
    return [str(seat.get("name")) for seat in seats]


def _check_hand(replay: Replay, hand: Any, number: int, *, is_last: bool) -> None:
    where = f"hand {number}"
    if replay.winner is not None:
        raise Discrepancy(f"{where} was dealt after the game had ended (seat {replay.winner} had reached the target)")
    if not replay.last_hand_over:
        raise Discrepancy(f"{where} was dealt before hand {number - 1} was over")
    stated = read_value(hand, "hand_number", int, where)
    if stated != number:
        raise Discrepancy(f"{where}: the record numbers it hand {stated}: hand {number} is missing or out of place")
    dealer = _check_roles(replay, hand, where)
    play = HandPlay(_dealt(hand, dealer, where), left_of(dealer))
    for index, entry in enumerate(read_value(hand, "plays", list, where)):
        _check_play(replay, play, entry, f"{where}, play {index + 1}")
    _check_tricks(hand, play, where)
    _close_hand(replay, hand, play, where, is_last=is_last)


def _check_roles(replay: Replay, hand: Any, where: str) -> int:
    """The dealer follows the rotation; the shuffler, cutter and leader follow the dealer."""
    expected = replay.next_dealer
    dealer = read_seat(hand, "dealer", where)
    if dealer != expected:
        reason = "the first dealer of the setup" if replay.hands == 0 else "right of the last trick's winner"
        raise Discrepancy(
            f"{where}: the record says seat {dealer} dealt, but the rules make seat {expected} the dealer ({reason})"
        )
    for role, seat in (("shuffler", right_of(dealer)), ("cutter", left_of(dealer)), ("leader", left_of(dealer))):
        if read_seat(hand, role, where) != seat:
            raise Discrepancy(
                f"{where}: the {role} must be seat {seat} when seat {dealer} deals, not seat {hand[role]}"
            )
    return dealer


def _dealt(hand: Any, dealer: int, where: str) -> list[list[str]] | None:
    """The dealt hands, recomputed from the revealed seed; None while the seed is secret."""
    seed = read_seed(hand, where)
    stated = read_value(hand, "commitment", str, where)
    if seed is None:
        return None
    if commitment(seed) != stated:
        raise Discrepancy(f"{where}: the revealed seed does not match the commitment published at the deal")
    return deal(seed, dealer)


def _check_play(replay: Replay, hand: HandPlay, entry: Any, where: str) -> None:
    seat = read_seat(entry, "seat", where)
    card = read_value(entry, "card", str, where)
    _check_cause(entry, where)
    if replay.winner is not None:
        raise Discrepancy(f"{where}: seat {seat} played {card} after the game had ended (seat {replay.winner} had won)")
    if seat != hand.turn:
        raise Discrepancy(f"{where}: seat {seat} played {card} out of turn: it was seat {hand.turn}'s turn")
    _check_card(hand, seat, card, where)
    hand.played.add(card)
    hand.table.append((seat, card))
    hand.turn = left_of(seat)
    replay.plays += 1
    if len(hand.table) == 3:
        _settle_trick(replay, hand)


def _check_cause(entry: Any, where: str) -> None:
    cause = read_value(entry, "cause", str, where)
    if cause not in CAUSES:
        raise Discrepancy(f"{where}: the cause {cause!r} is not one of {', '.join(CAUSES)}")


def _check_card(hand: HandPlay, seat: int, card: str, where: str) -> None:
    if card not in DECK:
        raise Discrepancy(f"{where}: seat {seat} played {card!r}, which is not a card of the deck")
    if card in hand.played:
        raise Discrepancy(f"{where}: seat {seat} played {card}, which had already been played in this hand")
    if hand.dealt is not None and card not in hand.dealt[seat]:
        raise Discrepancy(f"{where}: seat {seat} played {card}, which was not dealt to seat {seat}")


def _settle_trick(replay: Replay, hand: HandPlay) -> None:
    """Three cards are down: the rules name the winner, who scores the coins and leads next."""
    cards = [card for _, card in hand.table]
    winner = hand.table[trick_winner(cards)][0]
    points = trick_points(cards)
    hand.tricks.append(Trick(hand.table[0][0], hand.table, winner, points))
    hand.table = []
    hand.turn = winner
    replay.scores[winner] += points
    if replay.scores[winner] >= replay.setup.target:
        replay.winner = winner


def _check_tricks(hand: Any, play: HandPlay, where: str) -> None:
    stated = read_value(hand, "tricks", list, where)
    if len(stated) != len(play.tricks):
        raise Discrepancy(
            f"{where}: the record lists {len(stated)} completed tricks, but its plays make {len(play.tricks)}"
        )
    for number, (trick, computed) in enumerate(zip(stated, play.tricks, strict=True), 1):
        _check_trick(trick, computed, number, f"{where}, trick {number}")


def _check_trick(trick: Any, computed: Trick, number: int, where: str) -> None:
    if read_value(trick, "number", int, where) != number or read_seat(trick, "leader", where) != computed.leader:
        raise Discrepancy(f"{where}: the record's number or leader is wrong (seat {computed.leader} led it)")
    if _trick_plays(trick, where) != computed.plays:
        raise Discrepancy(f"{where}: the trick's cards are not the plays listed for the hand")
    if read_seat(trick, "winner", where) != computed.winner:
        cards = ", ".join(card for _, card in computed.plays)
        raise Discrepancy(
            f"{where}: the record says seat {trick['winner']} won, but by the rules seat {computed.winner} did ({cards})"
        )
    if read_value(trick, "points", int, where) != computed.points:
        raise Discrepancy(
            f"{where}: the record gives {trick['points']} point(s), but the trick holds {computed.points} coins card(s)"
        )


def _trick_plays(trick: Any, where: str) -> list[tuple[int, str]]:
    return [
        (read_seat(p, "seat", where), read_value(p, "card", str, where))
        for p in read_value(trick, "plays", list, where)
    ]


def _close_hand(replay: Replay, hand: Any, play: HandPlay, where: str, *, is_last: bool) -> None:
    """Whether the hand is over, its seed and scores, and who deals next."""
    over = replay.winner is not None or len(play.tricks) == CARDS_EACH
    if read_value(hand, "over", bool, where) != over:
        said, truth = ("over", "not over") if hand["over"] else ("not over", "over")
        raise Discrepancy(f"{where}: the record says the hand is {said}, but by its plays it is {truth}")
    if over and play.dealt is None:
        raise Discrepancy(f"{where}: the hand is over but its seed is not revealed, so its deal cannot be checked")
    if not over and "seed" in hand:
        raise Discrepancy(f"{where}: the hand is not over, yet its seed is revealed (it shows every player's cards)")
    if not over and not is_last:
        raise Discrepancy(f"{where} is not over, yet another hand follows it")
    if over:
        _check_scores(hand.get("scores_after"), replay.scores, f"{where}: the scores after the hand")
    replay.hands += 1
    replay.last_hand_over = over
    replay.last_hand_tricks = len(play.tricks)
    if play.tricks:
        replay.next_dealer = right_of(play.tricks[-1].winner)


def _check_scores(stated: Any, scores: list[int], what: str) -> None:
    if stated != scores:
        raise Discrepancy(f"{what} are {stated}, but the tricks make them {scores}")


def _check_outcome(record: Any, replay: Replay) -> None:
    """The status, winner, scores and the end of the game agree with the replay."""
    status = read_value(record, "status", str, "record")
    if status not in _statuses(replay):
        raise Discrepancy(
            f"the record says the game is {status}, but by its hands it is {' or '.join(_statuses(replay))}"
        )
    stated = record.get("winner")
    if stated != replay.winner:
        raise Discrepancy(
            f"the record names {_who(stated)} as the winner, but by the tricks the winner is {_who(replay.winner)}"
        )
    _check_scores(record.get("scores"), replay.scores, "the game's scores")
    mid_hand = replay.winner is not None and replay.last_hand_tricks < CARDS_EACH
    if record.get("ended_mid_hand") is not mid_hand:
        raise Discrepancy(f"the record says ended_mid_hand is {record.get('ended_mid_hand')}, but it is {mid_hand}")


def _statuses(replay: Replay) -> tuple[str, ...]:
    """The statuses the game may have after its hands: seats may still be open before the first deal,
    and a game may be cancelled before it (contract 1.3)."""
    if replay.winner is not None:
        return ("finished",)
    if not replay.last_hand_over:
        return ("playing",)
    return ("waiting_for_deal",) if replay.hands else ("waiting_for_players", "waiting_for_deal", "cancelled")


def _who(seat: Any) -> str:
    return "no one" if seat is None else f"seat {seat}"


def _summary(record: Any, replay: Replay) -> str:
    head = f"game {record.get('id')}, {_count(replay.hands, 'hand')}, {_count(replay.plays, 'play')}"
    if replay.winner is not None:
        seat = replay.winner
        when = " mid-hand" if replay.last_hand_tricks < CARDS_EACH else ""
        winner = f"seat {seat} ({replay.setup.names[seat]}) with {replay.scores[seat]}"
        return f"OK: {head}, finished{when}, winner {winner}"
    pending = "" if replay.last_hand_over else f"; hand {replay.hands}'s deal is checked once its seed is revealed"
    scores = "-".join(str(score) for score in replay.scores)
    return f"OK so far: {head}, in progress, scores {scores}{pending}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
