"""Every benchmark script of bench/ still runs, at its smallest, and ends with its ``<name>=<json>``
line (docs/benchmarks.md): a script nobody runs between two measurements rots without a sound (one
read a game until its bots finished, after reads stopped making moves; another gave up on its games
before the worker, at a person's pace, had dealt them). What is checked is that each runs and says
what it measured, and for two that rotted so, what they counted; never how fast: the figures are
docs/benchmarks.md's, from full runs.

Left out: the scripts that need PostgreSQL of their own (``notify_cost``, ``rating_apply``), py-spy
(``http_profile``), HAProxy or Pushpin (``slow_clients --target proxy``, the proxied and Pushpin runs
of ``realtime``), and the long ones whose subject the suite tests already (``role_faults``:
tests/deploy/test_faults.py; ``unread_game``: tests/worker/), and ``stream_memory`` (its snapshots
take close to a minute even for ten streams).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.slow_twins import TWINS

ROOT = Path(__file__).resolve().parents[1]
SECONDS = 300  # a script still running after this has hung: its own loops are bounded far below
# Scripts whose exit status says whether their goals were met (1: a MISS): a run that missed one, as a
# second's run on a busy machine may, still ran and said what it measured.
EXITS_1_ON_A_MISS = {"http_load"}


def _rematches_went_on(figures: dict[str, Any]) -> None:
    assert figures["rematches"]["games"] > 1, figures["rematches"]  # past the first game: the worker dealt
    assert figures["unauthenticated"]["rows_added"]["idempotency_keys"] == 0, figures["unauthenticated"]


def _every_turn_delivered(figures: dict[str, Any]) -> None:
    hooks = figures["rounds"][0]
    assert hooks["owed"] > 0 and hooks["delivered"] == hooks["owed"], hooks


def _each_deal_from_every_seat(figures: dict[str, Any]) -> None:
    match = figures["matches"]["expert-vs-random"]
    assert figures["duplicate"] and match["games"] == 6 and match["by_deal"]["deals"] == 2, match


# (script, its arguments, extra environment, a check of its figures, slow)
SCRIPTS: list[tuple[str, str, dict[str, str], Callable[[Any], None] | None, bool]] = [
    ("engine", "--games 2 --repeats 1", {}, None, False),
    ("bots", "--games 1 --workers 1 --matches expert-vs-pimc", {}, None, False),
    ("bots", "--games 6 --workers 1 --matches expert-vs-random --duplicate", {}, _each_deal_from_every_seat, False),
    ("reviews", "--games 1 --master-moves 1", {}, None, False),
    ("record_cache", "--target 3 --reads 2", {}, None, False),
    (
        "request_cpu",
        "--games 0 --plays 1 --people-plays 2 --player-keys --idempotency-keys --worker-passes 1 --feed-reads 1",
        {},
        None,
        False,
    ),
    ("request_cpu", f"--games 0 --plays 0 --people-plays 4 --rounds 1 --compare {','.join(TWINS)}", {}, None, False),
    ("game_length", "--games 1 --plays 60 --block 30 --seconds 60", {}, None, False),
    ("trace_play", "", {}, None, False),
    ("http_load", "--db sqlite --levels 1 --seconds 1 --repeats 1", {}, None, True),
    ("stream_shares", "--streams 5 --others 2 --streams-per-process 10", {"STREAMS_PER_ADDRESS": "3"}, None, False),
    ("webhooks", "--players 1 --rounds 1 --timeout 60", {}, None, False),
    (
        "webhook_games",
        "--db sqlite --players 3 --games 1 --plays 1 --order hooks,none --timeout 60",
        {},
        _every_turn_delivered,
        True,
    ),
    ("attacks", "--seconds 3", {}, _rematches_went_on, True),
    ("players", "--db sqlite --players 3 --queuers 3 --seconds 2 --concurrency 1", {}, None, True),
    (
        "realtime",
        "--db sqlite --direct --games 1 --spectators 1 --feeds 3 --plays-per-second 2 --seconds 2 --settle 3 "
        "--idle 1 --workers 1 --core -1",
        {},
        None,
        True,
    ),
    ("slow_clients", "--connections 1 --seconds 1 --ramp 1", {}, None, False),
]


def _case(script: str, args: str, env: dict[str, str], check: Any, slow: bool) -> Any:
    marks = [pytest.mark.slow] if slow else []
    return pytest.param(script, args.split(), env, check, id=f"{script} {args}".strip()[:90], marks=marks)


@pytest.mark.parametrize(("script", "args", "env", "check"), [_case(*case) for case in SCRIPTS])
def test_runs_and_says_what_it_measured(
    script: str, args: list[str], env: dict[str, str], check: Callable[[Any], None] | None
) -> None:
    environment = {**os.environ, **env}
    for name in ("DATABASE_URL", "TEST_DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR", "REDIS_URL"):
        environment.pop(name, None)  # the scripts make their own databases
    done = subprocess.run(
        [sys.executable, "-m", f"bench.{script}", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=SECONDS,
        check=False,
    )
    missed = script in EXITS_1_ON_A_MISS and done.returncode == 1 and "Traceback" not in done.stderr
    assert done.returncode == 0 or missed, done.stderr[-3000:]
    last = done.stdout.rstrip("\n").rpartition("\n")[2]
    name, equals, text = last.partition("=")
    assert (name, equals) == (script, "="), f"the last line is not {script}=<json>: {last[:300]!r}"
    figures = json.loads(text)
    if check is not None:
        check(figures)
