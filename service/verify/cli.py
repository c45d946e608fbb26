"""The command: ``coins-verify FILE`` (``-`` for standard input); exit 0, 1 (a discrepancy) or 2 (unreadable)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from .check import verify
from .document import Discrepancy, InvalidRecord

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
