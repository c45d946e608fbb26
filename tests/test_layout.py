"""The code's layout: short modules, one job each (docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[1] / "service"
MOST_LINES = 400
MODULES = sorted(path for path in SERVICE.rglob("*.py") if "migrations" not in path.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(SERVICE)))
def test_no_module_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MOST_LINES, f"{path.relative_to(SERVICE)} has {lines} lines: split it by job"
