"""coins-verify: genuine records verify; every kind of tampering fails with the right words; it stands alone."""

from __future__ import annotations

import ast
import copy
import hashlib
import io
import itertools
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from service import verify
from service.engine import DECK, FirstDealerReason, trick_points, trick_winner
from tests.engine.test_fair_deals import VECTORS
from tests.support.records import Table, play

Record = dict[str, Any]
VERIFY_DIR = Path(verify.__file__).parent

GENUINE = {
    "target 15, seat 0 named": (Table(), r"^OK: game \w+, 3 hands, 135 plays, finished mid-hand, winner seat 2"),
    "target 30, seat 1 oldest": (
        Table(target=30, first_dealer=1, chosen_by=FirstDealerReason.OLDEST),
        r"^OK: game \w+, \d+ hands, \d+ plays, finished( mid-hand)?, winner seat \d \(\w+( bot)?\) with 3\d$",
    ),
    "target 10, seeded, seat 2 drawn": (
        Table(target=10, first_dealer=2, chosen_by=FirstDealerReason.DRAWN, seed="verify"),
        r"^OK: .*, finished",
    ),
    "target 1": (Table(target=1), r"^OK: game \w+, 1 hand, \d plays, finished mid-hand, winner seat \d"),
    "in progress, mid-trick": (
        Table(stop_after=60),
        r"^OK so far: .*, 2 hands, 58 plays, in progress, scores \d+-\d+-\d+; hand 2's deal is checked once",
    ),
    "in progress, between hands": (
        Table(stop_after=49),
        r"^OK so far: .*, 1 hand, 48 plays, in progress, scores [\d-]+$",
    ),
    "not started": (Table(stop_after=0), r"^OK so far: .*, 0 hands, 0 plays, in progress, scores 0-0-0$"),
}


@cache
def _finished_text() -> str:
    return json.dumps(play(Table(), "tampered").record())


def finished() -> Record:
    """A complete game of three hands that ended mid-hand, fresh for each tampering."""
    record: Record = json.loads(_finished_text())
    return record


def _write(tmp_path: Path, record: Record) -> Path:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return path


@pytest.mark.parametrize(("table", "summary"), GENUINE.values(), ids=GENUINE.keys())
def test_a_genuine_record_verifies(
    table: Table, summary: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert verify.main([str(_write(tmp_path, play(table).record()))]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n") and out.count("\n") == 1
    assert re.search(summary, out.rstrip("\n")), out


# -- the rules, re-implemented ------------------------------------------------------------------


@pytest.mark.parametrize("vector", VECTORS, ids=lambda vector: vector["seed"][:16])
def test_the_verifier_deals_the_published_vectors(vector: dict[str, str]) -> None:
    seed = bytes.fromhex(vector["seed"])
    assert verify.commitment(seed) == vector["commitment"]
    hands = verify.deal(seed, int(vector["dealer"]))
    assert hands == [vector[f"hand {seat}"].split() for seat in range(3)]


@pytest.mark.parametrize(
    ("cards", "winner"),
    [
        (("2-cups", "ace-coins", "ace-swords"), 0),
        (("2-cups", "ace-coins", "3-clubs"), 2),
        (("ace-clubs", "king-cups", "knight-cups"), 1),
        (("9-coins", "knave-coins", "2-coins"), 1),
    ],
    ids=["clubs absent", "swords absent", "a pair", "one suit"],
)
def test_the_verifier_settles_the_worked_examples_of_the_rules(cards: tuple[str, str, str], winner: int) -> None:
    assert verify.trick_winner(cards) == winner


def test_the_verifier_and_the_engine_agree_on_every_trick() -> None:
    for cards in itertools.permutations(DECK, 3):
        codes = [card.code for card in cards]
        assert verify.trick_winner(codes) == trick_winner(cards), codes
        assert verify.trick_points(codes) == trick_points(cards), codes


# -- tampering ------------------------------------------------------------------------------


def _swap_card(record: Record) -> None:
    """Seat 1's first play becomes a card that another seat played later in the hand."""
    plays = record["hands"][0]["plays"]
    own = plays[3]
    other = next(p for p in plays[4:] if p["seat"] != own["seat"])
    own["card"] = other["card"]


def _alter_seed(record: Record) -> None:
    seed = record["hands"][1]["seed"]
    record["hands"][1]["seed"] = seed[:-1] + ("0" if seed[-1] != "0" else "1")


def _replace_seed_and_commitment(record: Record) -> None:
    seed = bytes(range(100, 132))
    record["hands"][1]["seed"] = seed.hex()
    record["hands"][1]["commitment"] = hashlib.sha256(seed).hexdigest()


def _set(path: str, change: Callable[[Any], Any]) -> Callable[[Record], None]:
    """A tampering that replaces the value at ``path`` (keys and indexes, dotted) by ``change(value)``."""
    *parents, last = [int(part) if part.lstrip("-").isdigit() else part for part in path.split(".")]

    def tamper(record: Record) -> None:
        target: Any = record
        for part in parents:
            target = target[part]
        target[last] = change(target[last])

    return tamper


def _reorder_plays(record: Record) -> None:
    plays = record["hands"][0]["plays"]
    plays[6], plays[7] = plays[7], plays[6]


def _extra_play(record: Record) -> None:
    hand = record["hands"][-1]
    played = {p["card"] for p in hand["plays"]}
    last_winner = hand["tricks"][-1]["winner"]
    card = next(code for code in verify.DECK if code not in played)
    hand["plays"].append({"seq": 999, "seat": last_winner, "card": card, "cause": "player", "at": None})


def _extra_hand(record: Record) -> None:
    hand = copy.deepcopy(record["hands"][0])
    hand["hand_number"] = len(record["hands"]) + 1
    record["hands"].append(hand)


def _drop_hand(record: Record) -> None:
    del record["hands"][1]


def _other(seat: int) -> int:
    return (seat + 1) % 3


TAMPERINGS: dict[str, tuple[Callable[[Record], None], str]] = {
    "a card swapped in a play": (
        _swap_card,
        r"^hand 1, play 4: seat \d played [\w-]+, which was not dealt to seat \d$",
    ),
    "a seed altered": (_alter_seed, r"^hand 2: the revealed seed does not match the commitment published at the deal$"),
    "seed and commitment replaced together": (
        _replace_seed_and_commitment,
        r"^hand 2, play \d+: seat \d played [\w-]+, which was not dealt to seat \d$",
    ),
    "a trick given to another seat": (
        _set("hands.0.tricks.3.winner", _other),
        r"^hand 1, trick 4: the record says seat \d won, but by the rules seat \d did \([\w, -]+\)$",
    ),
    "points changed": (
        _set("hands.0.tricks.5.points", lambda points: points + 1),
        r"^hand 1, trick 6: the record gives \d point\(s\), but the trick holds \d coins card\(s\)$",
    ),
    "a play out of turn": (
        _reorder_plays,
        r"^hand 1, play 7: seat \d played [\w-]+ out of turn: it was seat \d's turn$",
    ),
    "a score after a hand changed": (
        _set("hands.0.scores_after.1", lambda score: score + 1),
        r"^hand 1: the scores after the hand are \[.*\], but the tricks make them \[.*\]$",
    ),
    "a final score changed": (
        _set("scores.0", lambda score: score + 2),
        r"^the game's scores are \[.*\], but the tricks make them \[.*\]$",
    ),
    "a hand's dealer changed": (
        _set("hands.1.dealer", _other),
        r"^hand 2: the record says seat \d dealt, but the rules make seat \d the dealer \(right of the last trick's winner\)$",
    ),
    "the first dealer changed": (
        _set("setup.first_dealer", _other),
        r"^hand 1: the record says seat 0 dealt, but the rules make seat 1 the dealer \(the first dealer of the setup\)$",
    ),
    "the cutter changed": (_set("hands.2.cutter", _other), r"^hand 3: the cutter must be seat \d when seat \d deals"),
    "the winner changed": (
        _set("winner", _other),
        r"^the record names seat \d as the winner, but by the tricks the winner is seat \d$",
    ),
    "an extra play after the game ended": (
        _extra_play,
        r"^hand 3, play \d+: seat \d played [\w-]+ after the game had ended \(seat \d had won\)$",
    ),
    "an extra hand after the game ended": (_extra_hand, r"^hand 4 was dealt after the game had ended"),
    "a missing hand": (_drop_hand, r"^hand 2: the record numbers it hand 3: hand 2 is missing or out of place$"),
    "a trick dropped": (
        _set("hands.0.tricks", lambda tricks: tricks[:-1]),
        r"^hand 1: the record lists 15 completed tricks, but its plays make 16$",
    ),
    "a finished game called in progress": (
        _set("status", lambda _: "playing"),
        r"^the record says the game is playing, but by its hands it is finished$",
    ),
    "ended mid-hand denied": (_set("ended_mid_hand", lambda _: False), r"ended_mid_hand is False, but it is True$"),
    "a finished hand's seed withheld": (
        lambda record: record["hands"][0].pop("seed"),
        r"^hand 1: the hand is over but its seed is not revealed",
    ),
    "a card that does not exist": (
        _set("hands.0.plays.0.card", lambda _: "10-cups"),
        r"'10-cups', which is not a card",
    ),
}


@pytest.mark.parametrize(("tamper", "message"), TAMPERINGS.values(), ids=TAMPERINGS.keys())
def test_a_tampered_record_fails_with_the_first_discrepancy(tamper: Callable[[Record], None], message: str) -> None:
    record = finished()
    tamper(record)
    with pytest.raises(verify.Discrepancy, match=message):
        verify.verify(record)


def _replay_a_card(record: Record) -> None:
    """The hand in progress: a seat plays again a card played earlier in the hand."""
    plays = record["hands"][-1]["plays"]
    plays[-1]["card"] = next(p["card"] for p in plays if p["seat"] != plays[-1]["seat"])


IN_PROGRESS_TAMPERINGS: dict[str, tuple[Callable[[Record], None], str]] = {
    "a play out of turn in the hand in progress": (
        _set("hands.1.plays.2.seat", _other),
        r"^hand 2, play 3: seat \d played [\w-]+ out of turn",
    ),
    "a card played twice in the hand in progress": (
        _replay_a_card,
        r"^hand 2, play 10: seat \d played [\w-]+, which had already been played in this hand$",
    ),
    "a trick of the hand in progress given away": (
        _set("hands.1.tricks.1.winner", _other),
        r"^hand 2, trick 2: the record says seat \d won",
    ),
    "a winner named too early": (
        _set("winner", lambda _: 0),
        r"^the record names seat 0 as the winner, but .* is no one$",
    ),
}


@pytest.mark.parametrize(("tamper", "message"), IN_PROGRESS_TAMPERINGS.values(), ids=IN_PROGRESS_TAMPERINGS.keys())
def test_a_tampered_game_in_progress_fails(tamper: Callable[[Record], None], message: str) -> None:
    record = play(Table(stop_after=60)).record()
    tamper(record)
    with pytest.raises(verify.Discrepancy, match=message):
        verify.verify(record)


def test_a_hand_in_progress_whose_seed_is_shown_fails() -> None:
    played = play(Table(stop_after=20))
    record = played.record()
    record["hands"][0]["seed"] = played.actions[0].seed
    with pytest.raises(verify.Discrepancy, match=r"^hand 1: the hand is not over, yet its seed is revealed"):
        verify.verify(record)


def test_a_discrepancy_exits_1_with_the_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = finished()
    _alter_seed(record)
    assert _exit_status([str(_write(tmp_path, record))]) == 1
    assert (
        capsys.readouterr().err
        == "FAILED: hand 2: the revealed seed does not match the commitment published at the deal\n"
    )


# -- unreadable input ---------------------------------------------------------------------------


def _exit_status(argv: list[str]) -> int:
    try:
        return verify.main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "invalid record: cannot read"),
        (
            '{"format": "chess-record", "format_version": 1}',
            'invalid record: not a Coins game record (no "format": "coins-record")',
        ),
        ('{"format": "coins-record", "format_version": 2}', "invalid record: format_version 2 is not 1"),
        ('{"format": "coins-record", "format_version": 1}', "invalid record: record: 'setup' is missing"),
        ("[1, 2]", "invalid record: not a Coins game record"),
    ],
    ids=["not JSON", "another format", "a later version", "no setup", "not an object"],
)
def test_an_unreadable_record_exits_2(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "record.json"
    path.write_text(text)
    assert _exit_status([str(path)]) == 2
    assert capsys.readouterr().err.startswith(message)


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_status([str(tmp_path / "none.json")]) == 2
    assert "invalid record: cannot read" in capsys.readouterr().err


def test_a_dash_reads_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(_finished_text()))
    assert verify.main(["-"]) == 0
    assert capsys.readouterr().out.startswith("OK: game 01TESTTAMPERED, 3 hands")


# -- standing alone -----------------------------------------------------------------------------


def _imported_modules(source: str) -> set[str]:
    """The top-level modules ``source`` imports; a relative import must stay inside the verifier's folder."""
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                assert node.level == 1, "a relative import reaches out of the verifier into the service"
                continue
            modules.add((node.module or "").split(".")[0])
    return modules


@pytest.mark.parametrize("path", sorted(VERIFY_DIR.glob("*.py")), ids=lambda path: path.name)
def test_verify_imports_only_the_standard_library(path: Path) -> None:
    modules = _imported_modules(path.read_text())
    assert modules <= sys.stdlib_module_names | {"__future__"}, modules - sys.stdlib_module_names


@pytest.mark.parametrize("name", ["verify", "coins-check"])
def test_verify_runs_as_a_folder_copied_alone(tmp_path: Path, name: str) -> None:
    alone = tmp_path / "alone"
    shutil.copytree(VERIFY_DIR, alone / name, ignore=shutil.ignore_patterns("__pycache__"))
    record = _write(tmp_path, finished())
    done = subprocess.run(
        [sys.executable, "-I", name, str(record)],
        capture_output=True,
        text=True,
        cwd=alone,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("OK: game 01TESTTAMPERED, 3 hands, ")
