"""The web client in a real browser: node runs each tests/web/<scenario>.mjs (playwright-core, headless chromium).

Each scenario starts from the lobby of a live server (the Procfile's roles under honcho on a free port, as the README
serves: coins-realtime answers, coins-worker makes the moves a clock makes due) and fails on
any console error. They skip when chromium or node_modules/playwright-core is missing,
unless ``COINS_REQUIRE_BROWSER=1`` (CI) turns that into a failure. Screenshots go to
``COINS_WEB_ARTIFACTS`` (default: a temporary folder). ``COINS_BASE_URL`` runs them against
a server that is already up instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import serve_roles

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
PLAYWRIGHT = ROOT / "node_modules" / "playwright-core"
SCENARIO_SECONDS = 300

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    if not PLAYWRIGHT.is_dir():
        return "no node_modules/playwright-core (npm ci)"
    if shutil.which("node") is None:
        return "no node on PATH"
    return None


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    missing = _missing()
    if missing:
        if os.environ.get("COINS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"COINS_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    if os.environ.get("COINS_BASE_URL"):
        yield os.environ["COINS_BASE_URL"]
        return
    # Loopback is allowed as a push endpoint (tests only): notify.mjs's stand-in subscription.
    with serve_roles(tmp_path_factory.mktemp("web-server"), cwd=ROOT, WEBHOOK_ALLOW_NETWORKS="127.0.0.0/8") as server:
        yield server.url


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    configured = os.environ.get("COINS_WEB_ARTIFACTS")
    return Path(configured) if configured else tmp_path_factory.mktemp("web-artifacts")


@pytest.mark.parametrize(
    "scenario",
    [
        "solo_game",
        "three_players",
        "reload",
        "mobile",
        "languages",
        "leave",
        "lapse",
        "last_trick",
        "one_play",
        "look",
        "turn",
        "not_found",
        "players",
        "leaderboard",
        "steady",
        "connection",
        "result",
        "challenge",
        "home",
        "your_games",
        "notify",
        "rematch_offers",
        "rematch_players",
        "keyboard",
    ],
)
def test_scenario(scenario: str, base_url: str, artifacts: Path) -> None:
    env = {**os.environ, "COINS_BASE_URL": base_url, "COINS_WEB_ARTIFACTS": str(artifacts)}
    result = subprocess.run(
        ["node", str(ROOT / "tests" / "web" / f"{scenario}.mjs")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=SCENARIO_SECONDS,
    )
    assert result.returncode == 0, f"{scenario}.mjs failed:\n{result.stdout}\n{result.stderr}"
