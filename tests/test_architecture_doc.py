"""docs/architecture.md is true to the tree: every file and folder it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
# A path as the page writes one: in backticks, with a folder or a file's extension
# (`games/domain_events.py`, `service/api/worker.py`, `gunicorn.conf.py`, `deploy/`).
PATH = re.compile(r"`([\w./-]+(?:/|\.(?:py|md|yml|yaml|cfg|toml|ini|mjs|js|json)))`")
SEARCHED = ("service", "tests", "bench", "deploy", "docs", "bin", ".ci")  # and the root's own files


def cited_paths() -> list[str]:
    return sorted(set(PATH.findall(DOC.read_text())))


def test_the_page_cites_paths() -> None:
    assert len(cited_paths()) >= 20  # the pattern finds what the page names


def tracked() -> set[str]:
    """Every file and folder of the tree, as a path from the root and as each of its tails (the page
    writes `games/seating.py` in the games' paragraph and `seating.py` in a list of that package)."""
    paths = {
        path.relative_to(ROOT)
        for top in SEARCHED
        for path in (ROOT / top).rglob("*")
        if "__pycache__" not in path.parts
    }
    paths |= {path.relative_to(ROOT) for path in ROOT.iterdir() if path.is_file()}
    tails: set[str] = set()
    for path in paths:
        parts = path.parts
        suffix = "/" if (ROOT / path).is_dir() else ""
        tails |= {"/".join(parts[start:]) + suffix for start in range(len(parts))}
    return tails


def test_every_path_the_architecture_page_cites_exists() -> None:
    known = tracked()
    assert [path for path in cited_paths() if path not in known] == []
