"""docs/architecture.md (and docs/internals.md, its long form) are true to the tree: every file and
folder they name exists, every class, method, function and setting they name is defined, every
page they link to is there, and the architecture page stays one page."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ("architecture.md", "internals.md")
ONE_PAGE = 115  # lines
# A path as the pages write one: in backticks, with a folder or a file's extension
# (`games/domain_events.py`, `service/api/worker.py`, `gunicorn.conf.py`, `deploy/`).
PATH = re.compile(r"`([\w./-]+(?:/|\.(?:py|md|yml|yaml|cfg|toml|ini|mjs|js|json)))`")
SEARCHED = ("service", "tests", "bench", "deploy", "docs", "bin", ".ci")  # and the root's own files
# A name of the code as the pages write one: `UnitOfWork`, `UnitOfWork.commit`, `player_feed_id`,
# `WORKER_POLL_MS` (each alone in its backticks).
CLASS = re.compile(r"`([A-Z][a-z]\w*)(?:\.(\w+))?`")
FUNCTION = re.compile(r"`([a-z]+_[a-z_]+)`")
SETTING = re.compile(r"`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`")
LINK = re.compile(r"\]\(([\w.-]+\.md)?(?:#([\w-]+))?\)")


def text(page: str) -> str:
    return (DOCS / page).read_text()


def cited_paths(page: str = "architecture.md") -> list[str]:
    return sorted(set(PATH.findall(text(page))))


@cache
def code() -> str:
    return "\n".join(sources().values())


@cache
def sources() -> dict[Path, str]:
    """Every Python file of the service and the root's configuration files, by path."""
    files = [*(ROOT / "service").rglob("*.py"), ROOT / "gunicorn.conf.py"]
    return {path: path.read_text() for path in files}


def test_the_page_cites_paths() -> None:
    assert len(cited_paths()) >= 20  # the pattern finds what the page names


def test_the_architecture_page_is_one_page() -> None:
    assert len(text("architecture.md").splitlines()) <= ONE_PAGE


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


@pytest.mark.parametrize("page", PAGES)
def test_every_path_the_architecture_page_cites_exists(page: str) -> None:
    known = tracked()
    assert [path for path in cited_paths(page) if path not in known] == []


def _defined(name: str) -> list[Path]:
    """The files that define class ``name``."""
    pattern = re.compile(rf"^\s*class {name}\b", re.M)
    return [path for path, source in sources().items() if pattern.search(source)]


def _bases(name: str, source: str) -> list[str]:
    match = re.search(rf"^\s*class {name}\(([^)]*)\)", source, re.M)
    return re.findall(r"\b([A-Z]\w*)\b", match.group(1)) if match else []


def _has_member(name: str, member: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether class ``name`` (or a class it derives from) defines ``member``: a method, a property
    or an attribute, in the file that defines it."""
    pattern = re.compile(rf"^\s+(?:async def {member}\b|def {member}\b|{member}\s*[:=]|self\.{member}\s*[:=])", re.M)
    for path in _defined(name):
        source = sources()[path]
        if pattern.search(source):
            return True
        if any(_has_member(base, member, seen | {name}) for base in _bases(name, source) if base not in seen):
            return True
    return False


def _in_code(name: str) -> bool:
    """Whether ``name`` is a word of the service's code (defined, imported, a table, a header...)."""
    return re.search(rf"\b{name}\b", code()) is not None


@pytest.mark.parametrize("page", PAGES)
def test_every_class_and_method_the_pages_name_is_defined(page: str) -> None:
    """A class is the service's (or one it imports, as Flask's `MethodView`); a method or an attribute
    named on it (`UnitOfWork.commit`) is defined on that class or a class it derives from."""
    root_files = {path.name for path in ROOT.iterdir()}
    missing = []
    for name, member in set(CLASS.findall(text(page))):
        if name in root_files:  # `Procfile`
            continue
        if member and not _has_member(name, member):
            missing.append(f"{name}.{member}")
        elif not member and not _defined(name) and not _in_code(name):
            missing.append(name)
    assert sorted(missing) == []


@pytest.mark.parametrize("page", PAGES)
def test_every_function_and_setting_the_pages_name_is_in_the_code(page: str) -> None:
    """A snake_case name (a function, a variable, a table, a column, SQLite's ``data_version``) and an
    upper-case one (a setting, a constant) are words of the service's code."""
    names = set(FUNCTION.findall(text(page))) | set(SETTING.findall(text(page)))
    assert sorted(name for name in names if not _in_code(name)) == []


def anchors(page: str) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", text(page), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES)
def test_every_page_and_heading_linked_exists(page: str) -> None:
    broken = [
        f"{target}#{anchor}"
        for target, anchor in LINK.findall(text(page))
        if not (DOCS / (target or page)).is_file() or (anchor and anchor not in anchors(target or page))
    ]
    assert broken == []


def test_the_checks_find_what_is_not_there() -> None:
    """The patterns would catch a name or a method that does not exist."""
    assert not _defined("NoSuchClassAnywhere") and not _in_code("no_such_function_anywhere")
    assert _defined("UnitOfWork") and _has_member("UnitOfWork", "commit")
    assert not _has_member("UnitOfWork", "announce")
    assert _has_member("GameService", "join")  # from a base class of its (SeatingUseCases)
    assert "the-three-roles" in anchors("architecture.md") and "no-such-heading" not in anchors("architecture.md")
    assert "operators-coins-admin" in anchors("players.md")  # a heading with code in it
