"""The coins-client TypeScript package (clients/typescript), built, for the tests that run its examples:
``node clients/typescript/examples/bot_player.mjs`` imports ``coins-client`` by name, which Node resolves
to the package's own ``dist/`` (a package may import itself by the name its package.json gives)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT_CLIENT = ROOT / "clients" / "typescript"
BOT_PLAYER = TYPESCRIPT_CLIENT / "examples" / "bot_player.mjs"


@functools.cache
def _build() -> str | None:
    """None once built (npm ci when its node_modules are missing, then npm run build); else why not."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node or npm is missing"
    steps = [] if (TYPESCRIPT_CLIENT / "node_modules").exists() else [["npm", "ci", "--no-audit", "--no-fund"]]
    for step in [*steps, ["npm", "run", "-s", "build"]]:
        done = subprocess.run(step, cwd=TYPESCRIPT_CLIENT, capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0:
            return f"{' '.join(step)} failed in clients/typescript:\n{done.stdout}{done.stderr}"
    return None


def built_typescript_client() -> Path:
    """clients/typescript, built; the test is skipped when it cannot be (failed with COINS_REQUIRE_NODE)."""
    problem = _build()
    if problem is not None:
        if os.environ.get("COINS_REQUIRE_NODE"):
            pytest.fail(f"COINS_REQUIRE_NODE is set but {problem}")
        pytest.skip(problem)
    return TYPESCRIPT_CLIENT
