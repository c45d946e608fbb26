#!/usr/bin/env python3
"""Download a game's record from a Coins server and check it, as ``coins-verify`` does.

Standard library only. Usage:

    python examples/verify_record.py --base-url http://127.0.0.1:8000 GAME_ID [--output record.json]

It reads ``GET /v1/games/{id}/record`` (docs/records.md) and checks it with the verifier, the
folder ``service/verify/``: installed with the service, or in a clone of the repository on the
path (``PYTHONPATH=<clone>``), or copied alone as ``verify/`` beside this script. The folder is
loaded by itself (it needs only the standard library; the service's ``__init__.py`` needs Flask).
Where there is none, it saves the record and says how to check it with ``coins-verify``. Exit
status as coins-verify's: 0 the record holds (a one-line summary), 1 the first discrepancy in
plain words, 2 the record could not be read or checked.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import ModuleType


def download(base_url: str, game_id: str) -> bytes:
    url = f"{base_url.rstrip('/')}/v1/games/{urllib.parse.quote(game_id, safe='')}/record"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()  # type: ignore[no-any-return]


def verifier_folder() -> Path | None:
    """``service/verify/`` of the service found on the path (installed, or a clone), else a ``verify/``
    folder on the path (this script's own folder first), found without importing either package."""
    for package, inside in (("service", "verify"), ("verify", "")):
        spec = importlib.util.find_spec(package)  # a top-level name: finds it, runs none of its code
        for location in (spec.submodule_search_locations or []) if spec else []:
            folder = Path(location, inside)
            if all((folder / name).is_file() for name in ("__init__.py", "check.py", "rules.py", "document.py")):
                return folder
    return None


def load_verifier(folder: Path) -> ModuleType:
    """The verifier package in ``folder``, loaded alone as ``coins_verify`` (its modules import only
    each other and the standard library)."""
    spec = importlib.util.spec_from_file_location(
        "coins_verify", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # before it runs: its relative imports look it up there
    spec.loader.exec_module(module)
    return module


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
    folder = verifier_folder()
    if folder is None:
        saved = args.output or Path(f"coins-{args.game_id}.json")
        saved.write_bytes(body)
        print(f"no verifier (service/verify/) found: the record is in {saved}; check it with: coins-verify {saved}")
        return 2
    verifier = load_verifier(folder)
    try:
        record = json.loads(body)
    except ValueError as error:
        print(f"invalid record: not JSON: {error}", file=sys.stderr)
        return 2
    try:
        print(verifier.verify(record))
    except verifier.InvalidRecord as error:
        print(f"invalid record: {error}", file=sys.stderr)
        return 2
    except verifier.Discrepancy as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
