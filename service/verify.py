"""coins-verify: checks a Coins game record (``GET /v1/games/{id}/record``) from the document alone.

Standard library only, and nothing imported from the service: copy this one file anywhere
and run ``python3 verify.py record.json`` (``-`` reads standard input). It re-implements,
on purpose and independently of ``service.engine``, the deal algorithm of
``docs/fair-deals.md``, the trick rules, scoring, the end of the game and the dealer
rotation of the rules of Coins (a game by Mark Steere): a verifier that shared the engine's
code would share its bugs, and could not be run by someone who does not trust the server.

It checks every revealed seed against its hand's commitment, recomputes every deal, and
replays every play: from the player's dealt hand, in turn, each trick won and scored by the
rules, the scores after each hand and at the end, and the end of the game. Exit status: 0
and a one-line summary when the record holds; 1 and the first discrepancy in plain words;
2 when the file is unreadable, not JSON, or not a record of a format this verifier knows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

FORMAT = "coins-record"
FORMAT_VERSION = 1
SUITS = ("cups", "coins", "swords", "clubs")  # each beats the next; clubs beat cups
RANKS = ("ace", "king", "knight", "knave", "9", "8", "7", "6", "5", "4", "3", "2")  # high to low
DECK = tuple(f"{rank}-{suit}" for suit in SUITS for rank in RANKS)
CARDS_EACH = 16
CAUSES = ("player", "bot", "auto", "timeout")
FIRST_DEALER_CHOICES = ("named", "oldest", "drawn")


class Discrepancy(Exception):
    """The record contradicts itself, the rules or a commitment: exit status 1."""


class InvalidRecord(Exception):
    """Not a record this verifier can read: exit status 2."""


# -- the deal (docs/fair-deals.md) -------------------------------------------------------


def _stream(seed: bytes) -> Iterator[int]:
    """Step 1: SHA-256(seed || counter) read as big-endian 32-bit words, counter 0, 1, 2, …"""
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def _draw(words: Iterator[int], n: int) -> int:
    """Step 2: a uniform integer in [0, n), discarding words at or above the rejection limit."""
    limit = 2**32 - (2**32 % n)
    word = next(words)
    while word >= limit:
        word = next(words)
    return word % n


def deal(seed: bytes, dealer: int) -> list[list[str]]:
    """Steps 3 to 5: the three hands, by seat, in the order dealt."""
    words = _stream(seed)
    deck = list(DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = _draw(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    cut = 1 + _draw(words, len(deck) - 1)
    deck = deck[cut:] + deck[:cut]
    return [[card for k, card in enumerate(deck) if (dealer + 1 + k) % 3 == seat] for seat in range(3)]


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


# -- the rules ---------------------------------------------------------------------------


def left_of(seat: int) -> int:
    return (seat + 1) % 3


def right_of(seat: int) -> int:
    return (seat + 2) % 3


def _suit(card: str) -> str:
    return card.rpartition("-")[2]


def _rank(card: str) -> int:
    """0 for an ace, up to 11 for a 2: lower is higher."""
    return RANKS.index(card.rpartition("-")[0])


def trick_winner(cards: Sequence[str]) -> int:
    """The position within ``cards`` of the winning card, by the three cases of the rules."""
    suits = [_suit(card) for card in cards]
    if len(set(suits)) == 3:
        absent = next(suit for suit in SUITS if suit not in suits)
        winning_suit = SUITS[(SUITS.index(absent) + 1) % 4]  # the suit the absent one beats
        return suits.index(winning_suit)
    shared = max(suits, key=suits.count)  # the pair's suit, or the one suit of all three
    contenders = [i for i, suit in enumerate(suits) if suit == shared]
    return min(contenders, key=lambda i: _rank(cards[i]))


def trick_points(cards: Sequence[str]) -> int:
    return sum(1 for card in cards if _suit(card) == "coins")


# -- reading the document ----------------------------------------------------------------


def _get(obj: Any, key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    """``obj[key]``, which must be of ``kinds`` (a bool is not taken for an int)."""
    if not isinstance(obj, dict) or key not in obj:
        raise InvalidRecord(f"{where}: '{key}' is missing")
    value = obj[key]
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise InvalidRecord(f"{where}: '{key}' has the wrong type")
    if not isinstance(value, kinds):
        raise InvalidRecord(f"{where}: '{key}' has the wrong type")
    return value


def _seat(obj: Any, key: str, where: str) -> int:
    value = _get(obj, key, int, where)
    if value not in (0, 1, 2):
        raise InvalidRecord(f"{where}: '{key}' is not a seat (0, 1 or 2)")
    return int(value)


def _seed(hand: Any, where: str) -> bytes | None:
    if "seed" not in hand:
        return None
    try:
        seed = bytes.fromhex(_get(hand, "seed", str, where))
    except ValueError:
        raise Discrepancy(f"{where}: the seed is not hexadecimal") from None
    if not seed:
        raise Discrepancy(f"{where}: the seed is empty")
    return seed


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
    hands = _get(record, "hands", list, "record")
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
    setup = _get(record, "setup", dict, "record")
    target = _get(setup, "target_score", int, "setup")
    if not 1 <= target <= 100:
        raise Discrepancy(f"setup: the target score {target} is not from 1 to 100")
    if not record.get("hands") and setup.get("first_dealer") is None:
        return Setup(target, 0, _names(record))  # seats still open: no first dealer yet
    chosen_by = setup.get("first_dealer_chosen_by")
    if chosen_by not in FIRST_DEALER_CHOICES:
        raise Discrepancy(
            f"setup: first_dealer_chosen_by {chosen_by!r} is not one of {', '.join(FIRST_DEALER_CHOICES)}"
        )
    return Setup(target, _seat(setup, "first_dealer", "setup"), _names(record))


def _names(record: Any) -> list[str]:
    seats = _get(record, "seats", list, "record")
    if [_seat(seat, "seat", "seats") for seat in seats] != [0, 1, 2]:
        raise Discrepancy("seats: the record does not list seats 0, 1 and 2, in order")
    return [str(seat.get("name")) for seat in seats]


def _check_hand(replay: Replay, hand: Any, number: int, *, is_last: bool) -> None:
    where = f"hand {number}"
    if replay.winner is not None:
        raise Discrepancy(f"{where} was dealt after the game had ended (seat {replay.winner} had reached the target)")
    if not replay.last_hand_over:
        raise Discrepancy(f"{where} was dealt before hand {number - 1} was over")
    stated = _get(hand, "hand_number", int, where)
    if stated != number:
        raise Discrepancy(f"{where}: the record numbers it hand {stated}: hand {number} is missing or out of place")
    dealer = _check_roles(replay, hand, where)
    play = HandPlay(_dealt(hand, dealer, where), left_of(dealer))
    for index, entry in enumerate(_get(hand, "plays", list, where)):
        _check_play(replay, play, entry, f"{where}, play {index + 1}")
    _check_tricks(hand, play, where)
    _close_hand(replay, hand, play, where, is_last=is_last)


def _check_roles(replay: Replay, hand: Any, where: str) -> int:
    """The dealer follows the rotation; the shuffler, cutter and leader follow the dealer."""
    expected = replay.next_dealer
    dealer = _seat(hand, "dealer", where)
    if dealer != expected:
        reason = "the first dealer of the setup" if replay.hands == 0 else "right of the last trick's winner"
        raise Discrepancy(
            f"{where}: the record says seat {dealer} dealt, but the rules make seat {expected} the dealer ({reason})"
        )
    for role, seat in (("shuffler", right_of(dealer)), ("cutter", left_of(dealer)), ("leader", left_of(dealer))):
        if _seat(hand, role, where) != seat:
            raise Discrepancy(
                f"{where}: the {role} must be seat {seat} when seat {dealer} deals, not seat {hand[role]}"
            )
    return dealer


def _dealt(hand: Any, dealer: int, where: str) -> list[list[str]] | None:
    """The dealt hands, recomputed from the revealed seed; None while the seed is secret."""
    seed = _seed(hand, where)
    stated = _get(hand, "commitment", str, where)
    if seed is None:
        return None
    if commitment(seed) != stated:
        raise Discrepancy(f"{where}: the revealed seed does not match the commitment published at the deal")
    return deal(seed, dealer)


def _check_play(replay: Replay, hand: HandPlay, entry: Any, where: str) -> None:
    seat = _seat(entry, "seat", where)
    card = _get(entry, "card", str, where)
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
    cause = _get(entry, "cause", str, where)
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
    stated = _get(hand, "tricks", list, where)
    if len(stated) != len(play.tricks):
        raise Discrepancy(
            f"{where}: the record lists {len(stated)} completed tricks, but its plays make {len(play.tricks)}"
        )
    for number, (trick, computed) in enumerate(zip(stated, play.tricks, strict=True), 1):
        _check_trick(trick, computed, number, f"{where}, trick {number}")


def _check_trick(trick: Any, computed: Trick, number: int, where: str) -> None:
    if _get(trick, "number", int, where) != number or _seat(trick, "leader", where) != computed.leader:
        raise Discrepancy(f"{where}: the record's number or leader is wrong (seat {computed.leader} led it)")
    if _trick_plays(trick, where) != computed.plays:
        raise Discrepancy(f"{where}: the trick's cards are not the plays listed for the hand")
    if _seat(trick, "winner", where) != computed.winner:
        cards = ", ".join(card for _, card in computed.plays)
        raise Discrepancy(
            f"{where}: the record says seat {trick['winner']} won, but by the rules seat {computed.winner} did ({cards})"
        )
    if _get(trick, "points", int, where) != computed.points:
        raise Discrepancy(
            f"{where}: the record gives {trick['points']} point(s), but the trick holds {computed.points} coins card(s)"
        )


def _trick_plays(trick: Any, where: str) -> list[tuple[int, str]]:
    return [(_seat(p, "seat", where), _get(p, "card", str, where)) for p in _get(trick, "plays", list, where)]


def _close_hand(replay: Replay, hand: Any, play: HandPlay, where: str, *, is_last: bool) -> None:
    """Whether the hand is over, its seed and scores, and who deals next."""
    over = replay.winner is not None or len(play.tricks) == CARDS_EACH
    if _get(hand, "over", bool, where) != over:
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
    status = _get(record, "status", str, "record")
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
    """The statuses the game may have after its hands: seats may still be open before the first deal."""
    if replay.winner is not None:
        return ("finished",)
    if not replay.last_hand_over:
        return ("playing",)
    return ("waiting_for_deal",) if replay.hands else ("waiting_for_players", "waiting_for_deal")


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


# -- the command -------------------------------------------------------------------------


def _read(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        return json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise InvalidRecord(f"cannot read {path}: {error}") from None


def _fail(message: str, status: int) -> NoReturn:
    print(message, file=sys.stderr)
    raise SystemExit(status)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="coins-verify", description="Check a Coins game record from the record alone."
    )
    parser.add_argument("file", help="the record (JSON); - reads standard input")
    args = parser.parse_args(argv)
    try:
        print(verify(_read(args.file)))
    except InvalidRecord as error:
        _fail(f"invalid record: {error}", 2)
    except Discrepancy as error:
        _fail(f"FAILED: {error}", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
