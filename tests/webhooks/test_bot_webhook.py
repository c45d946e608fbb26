"""The bot examples' --webhook mode against the service's roles: each plays a game from signed deliveries alone
(examples/bot_player.py; clients/typescript/examples/bot_player.mjs on the built coins-client package)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
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


def _bot(language: str) -> list[str]:
    if language == "typescript":
        built_typescript_client()
        return ["node", str(BOT_PLAYER)]
    return [sys.executable, str(EXAMPLES / "bot_player.py")]


def _receiver_certificate(folder: Path) -> tuple[Path, Path, Path]:
    """A CA's file, and the certificate and key it issued for 127.0.0.1 (the address the URL names)."""
    ca = trustme.CA()
    ca_file, cert_file, key_file = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    issued = ca.issue_cert("127.0.0.1")
    issued.cert_chain_pems[0].write_to_path(str(cert_file))
    issued.private_key_pem.write_to_path(str(key_file))
    return ca_file, cert_file, key_file


def _bot_command(
    bot: list[str], base_url: str, player_key: Path, port: int, cert_file: Path, key_file: Path, *options: str
) -> list[str]:
    """The bot in ``--webhook`` mode, its receiver on ``port`` of 127.0.0.1 (HTTPS with the issued
    certificate), queueing for unrated games to 3 points, with ``options`` besides."""
    return [
        *bot, "--base-url", base_url, "--key-file", str(player_key), "--target-score", "3", "--unrated",
        "--webhook", f"https://127.0.0.1:{port}/hook", "--listen", f"127.0.0.1:{port}",
        "--tls-cert", str(cert_file), "--tls-key", str(key_file), *options,
    ]  # fmt: skip


def _post(url: str, body: object, key: str | None = None) -> dict[str, object]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)  # type: ignore[no-any-return]


def _play_by_webhook(tmp_path: Path, language: str, earlier_ticket: bool = False) -> str:
    """The output of a bot that played one game from deliveries; with ``earlier_ticket``, its player
    already holds a waiting ticket nobody will match, as after a run interrupted a moment ago."""
    bot = _bot(language)
    ca_file, cert_file, key_file = _receiver_certificate(tmp_path)
    settings = {
        "LOG_LEVEL": "WARNING",
        "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8",  # tests only: the receiver is on loopback
        "WEBHOOK_CA_BUNDLE": str(ca_file),
    }
    port = free_port()
    player_key = tmp_path / "bot.key"
    with serve_roles(tmp_path, cwd=ROOT, start_seconds=START_SECONDS, **settings) as server:
        if earlier_ticket:
            key = str(_post(f"{server.url}/v1/players", {"name": "Hooky"})["key"])
            player_key.write_text(key + "\n")
            player_key.chmod(0o600)
            _post(f"{server.url}/v1/queue", {"target_score": 3, "rated": False, "bots_after": None}, key)
        command = _bot_command(
            bot, server.url, player_key, port, cert_file, key_file,
            "--name", "Hooky", "--games", "1", "--bots-after", "0", "--timeout", str(GAME_SECONDS),
        )  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=GAME_SECONDS + 30, check=False, env=environment()
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "webhook " in done.stdout and "game 1/1 " in done.stdout, done.stdout
    assert done.stdout.rstrip().splitlines()[-1].startswith("1 games played"), done.stdout
    return done.stdout


@pytest.mark.parametrize("language", ["python", "typescript"])
def test_a_bot_plays_a_game_from_verified_deliveries(tmp_path: Path, language: str) -> None:
    _play_by_webhook(tmp_path, language)


@pytest.mark.parametrize("language", ["python", "typescript"])
def test_a_bot_run_again_while_its_earlier_ticket_waits_replaces_that_ticket_with_its_own(
    tmp_path: Path, language: str
) -> None:
    """409 already_queued names the earlier ticket (``ticket``), which nobody would match: the bot
    cancels it and queues on its own terms at once (it waited for it to expire, 30 s unread, before)."""
    out = _play_by_webhook(tmp_path, language, earlier_ticket=True)
    assert "already queued: 409 already_queued" in out, out
    replaced = out.split("already queued", 1)[1]
    assert " of an earlier run cancelled" in replaced and "queued: ticket " in replaced, out


def _get(url: str, key: str) -> dict[str, object]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("language", "signum"), [(lang, sig) for lang in ("python", "typescript") for sig in (2, 15)])
def test_a_bot_stopped_by_a_signal_deletes_its_webhook_cancels_its_ticket_and_exits_quietly(
    tmp_path: Path, language: str, signum: int
) -> None:
    """Ctrl-C (SIGINT) or SIGTERM while its ticket waits: exit 130 or 143, no traceback, nothing left."""
    bot = _bot(language)
    ca_file, cert_file, key_file = _receiver_certificate(tmp_path)
    settings = {"LOG_LEVEL": "WARNING", "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8", "WEBHOOK_CA_BUNDLE": str(ca_file)}
    port, player_key, out = free_port(), tmp_path / "bot.key", tmp_path / "bot.out"
    with serve_roles(tmp_path, cwd=ROOT, start_seconds=START_SECONDS, **settings) as server:
        command = _bot_command(bot, server.url, player_key, port, cert_file, key_file, "--timeout", "60")
        with out.open("w") as output:
            process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=environment())
        try:
            deadline = time.monotonic() + 30
            while "queued: ticket " not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert "queued: ticket " in out.read_text(), out.read_text()
            ticket = out.read_text().split("queued: ticket ", 1)[1].split()[0]
            process.send_signal(signum)
            assert process.wait(timeout=20) == 128 + signum, out.read_text()
        finally:
            process.kill()
        key = player_key.read_text().strip()
        assert _get(f"{server.url}/v1/players/me/webhooks", key)["items"] == []
        assert _get(f"{server.url}/v1/queue/{ticket}", key)["status"] == "cancelled"
    text = out.read_text()
    assert "Traceback" not in text and text.rstrip().endswith(("stopped by SIGINT", "stopped by SIGTERM")), text


@pytest.mark.parametrize("language", ["python", "typescript"])
def test_a_bot_killed_outright_leaves_what_its_next_run_clears_up(tmp_path: Path, language: str) -> None:
    """``kill -9`` leaves the webhook and the waiting ticket behind; the next run to the same URL
    deletes that webhook before making its own, replaces the ticket with its own, plays, and
    leaves nothing behind."""
    bot = _bot(language)
    ca_file, cert_file, key_file = _receiver_certificate(tmp_path)
    settings = {"LOG_LEVEL": "WARNING", "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8", "WEBHOOK_CA_BUNDLE": str(ca_file)}
    port, player_key, out = free_port(), tmp_path / "bot.key", tmp_path / "killed.out"
    with serve_roles(tmp_path, cwd=ROOT, start_seconds=START_SECONDS, **settings) as server:
        command = _bot_command(
            bot, server.url, player_key, port, cert_file, key_file, "--games", "1", "--timeout", str(GAME_SECONDS)
        )
        with out.open("w") as output:  # no --bots-after: the server's, so its ticket waits
            process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=environment())
        try:
            deadline = time.monotonic() + 30
            while "queued: ticket " not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert "queued: ticket " in out.read_text(), out.read_text()
        finally:
            process.kill()
            process.wait(timeout=20)
        key = player_key.read_text().strip()
        left = _get(f"{server.url}/v1/players/me/webhooks", key)["items"]
        ticket = out.read_text().split("queued: ticket ", 1)[1].split()[0]
        assert len(left) == 1 and _get(f"{server.url}/v1/queue/{ticket}", key)["status"] == "waiting"
        again = subprocess.run(
            [*command, "--bots-after", "0"], capture_output=True, text=True, timeout=GAME_SECONDS + 30, check=False,
            env=environment(),
        )  # fmt: skip
        assert again.returncode == 0, again.stdout + again.stderr
        assert f"webhook {left[0]['id']} of an earlier run to " in again.stdout, again.stdout
        assert f"ticket {ticket} of an earlier run cancelled" in again.stdout and "game 1/1 " in again.stdout
        assert _get(f"{server.url}/v1/players/me/webhooks", key)["items"] == []
        assert _get(f"{server.url}/v1/queue/{ticket}", key)["status"] == "cancelled"
