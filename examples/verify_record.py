#!/usr/bin/env python3
"""Download a game's record from a Coins server and check it, as ``coins-verify`` does.

Standard library only. Usage:

    python examples/verify_record.py --base-url http://127.0.0.1:8000 GAME_ID [--output record.json]

It reads ``GET /v1/games/{id}/record`` (docs/records.md) and checks it with ``service.verify``,
the verifier installed with the service (or the folder ``service/verify/`` on the path). Where
it is not installed, it saves the record and says how to check it with ``coins-verify``. Exit
status as coins-verify's: 0 the record holds (a one-line summary), 1 the first discrepancy in
plain words, 2 the record could not be read or checked.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path


def download(base_url: str, game_id: str) -> bytes:
    url = f"{base_url.rstrip('/')}/v1/games/{urllib.parse.quote(game_id, safe='')}/record"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--base-url", "--base", default="http://127.0.0.1:8000", help="the server (default %(default)s)"
    )
    parser.add_argument("game_id", help="the game's id")
    parser.add_argument("--output", type=Path, help="also save the record to this file")
    args = parser.parse_args(argv)
    try:
        body = download(args.base_url, args.game_id)
    except urllib.error.HTTPError as error:
        print(f"cannot download the record: {error.code} {error.read().decode(errors='replace')}", file=sys.stderr)
        return 2
    except (urllib.error.URLError, OSError) as error:
        print(f"cannot download the record: {error}", file=sys.stderr)
        return 2
    if args.output:
        args.output.write_bytes(body)
    try:
        from service.verify import Discrepancy, InvalidRecord, verify
    except ImportError:
        saved = args.output or Path(f"coins-{args.game_id}.json")
        saved.write_bytes(body)
        print(f"service.verify is not installed: the record is in {saved}; check it with: coins-verify {saved}")
        return 2
    try:
        record = json.loads(body)
    except ValueError as error:
        print(f"invalid record: not JSON: {error}", file=sys.stderr)
        return 2
    try:
        print(verify(record))
    except InvalidRecord as error:
        print(f"invalid record: {error}", file=sys.stderr)
        return 2
    except Discrepancy as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
