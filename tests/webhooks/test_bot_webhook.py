"""The bot examples' --webhook mode against the service's roles: each plays a game from signed deliveries alone
(examples/bot_player.py; clients/typescript/examples/bot_player.mjs on the built coins-client package)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import trustme

from tests.contract.live import ROOT, START_SECONDS
from tests.support.client_package import environment
from tests.support.server import free_port, serve_roles
from tests.support.typescript_client import BOT_PLAYER, built_typescript_client

EXAMPLES = ROOT / "examples"
GAME_SECONDS = 120

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("language", ["python", "typescript"])
def test_a_bot_plays_a_game_from_verified_deliveries(tmp_path: Path, language: str) -> None:
    bot = [sys.executable, str(EXAMPLES / "bot_player.py")]
    if language == "typescript":
        built_typescript_client()
        bot = ["node", str(BOT_PLAYER)]
    ca = trustme.CA()
    ca_file, cert_file, key_file = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    issued = ca.issue_cert("127.0.0.1")  # the receiver's certificate, for the address the URL names
    issued.cert_chain_pems[0].write_to_path(str(cert_file))
    issued.private_key_pem.write_to_path(str(key_file))
    settings = {
        "LOG_LEVEL": "WARNING",
        "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8",  # tests only: the receiver is on loopback
        "WEBHOOK_CA_BUNDLE": str(ca_file),
    }
    port = free_port()
    with serve_roles(tmp_path, cwd=ROOT, start_seconds=START_SECONDS, **settings) as server:
        command = [
            *bot, "--base-url", server.url, "--name", "Hooky",
            "--key-file", str(tmp_path / "bot.key"), "--games", "1", "--target-score", "3", "--unrated",
            "--bots-after", "0", "--timeout", str(GAME_SECONDS), "--webhook", f"https://127.0.0.1:{port}/hook",
            "--listen", f"127.0.0.1:{port}", "--tls-cert", str(cert_file), "--tls-key", str(key_file),
        ]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=GAME_SECONDS + 30, check=False, env=environment()
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "webhook " in done.stdout and "game 1/1 " in done.stdout, done.stdout
    assert done.stdout.rstrip().splitlines()[-1].startswith("1 games played"), done.stdout
