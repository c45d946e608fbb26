"""README.md stays true: its curl walkthrough plays a game on a live server, its tables name every setting."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from service.config import Settings
from tests.support.sse import EventStream

from .conftest import ROOT, Server, running_server

README = (ROOT / "README.md").read_text()
WALKTHROUGH_SECONDS = 180


def block(marker: str) -> str:
    """The fenced code between ``<!-- marker -->`` and ``<!-- /marker -->``."""
    section = README.split(f"<!-- {marker} -->", 1)[1].split(f"<!-- /{marker} -->", 1)[0]
    match = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert match, f"no sh block between the {marker} markers"
    return match.group(1)


@pytest.mark.slow
def test_the_curl_walkthrough_plays_a_whole_game(server: Server, tmp_path: Path) -> None:
    env = {**os.environ, "BASE": f"http://127.0.0.1:{server.port}"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"  # a python3
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block("walkthrough")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=WALKTHROUGH_SECONDS,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    scores, tricks = json.loads(lines[-2]), json.loads(lines[-1])
    assert scores["winner"] in (0, 1, 2)
    assert max(entry["score"] for entry in scores["scores"]) >= scores["target_score"]
    assert len(tricks["items"]) == 3 and tricks["items"][0]["trick_number"] == 1
    assert "ETag: " in result.stdout


def test_the_quick_start_has_one_serve_and_one_test_command() -> None:
    serve, test = block("serve-command").strip(), block("test-command").strip()
    assert "\n" not in serve and "\n" not in test
    assert serve.startswith("python3.11 -m venv .venv && ") and serve.endswith("honcho start -p 8000")
    assert test.startswith("python3.11 -m venv .venv && ") and "pytest" in test
    ci = (ROOT / ".ci" / "run").read_text()
    assert "readme_block serve-command" in ci and "readme_block test-command" in ci, ".ci/run must run both"
    assert ci.index("readme_block serve-command") < ci.index("readme_block test-command"), "serve first, then test"


PROCFILE = ROOT / "Procfile"


def procfile() -> dict[str, str]:
    """The Procfile's process types and their commands (comments left out)."""
    lines = [line for line in PROCFILE.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return dict((name.strip(), command.strip()) for name, _, command in (line.partition(":") for line in lines))


def test_the_procfile_runs_every_role_on_one_port() -> None:
    """The real-time role's process on the one port (it serves the web role's app too), and the worker."""
    assert procfile() == {"web": "coins-realtime", "worker": "coins-worker"}


@pytest.mark.slow
def test_the_quick_start_server_starts_on_a_new_database(tmp_path: Path) -> None:
    """The serve command's process manager and roles, on a new database: games are created, and a
    stream is held by the real-time role on the same port."""
    command = block("serve-command").split("&&")[-1].split()
    assert command[:2] == ["honcho", "start"]
    command[0] = str(Path(sys.executable).parent / "honcho")
    with running_server(tmp_path, command, cwd=ROOT) as server:  # the venv's bin first on PATH, as activate does
        for _ in range(4):
            status, _, game = server.request("POST", "/v1/games", {"seats": [{"name": "Ana"}, None, None]})
            assert status == 201, game
        with EventStream(server.port, game["id"], timeout=10) as stream:
            assert stream.status == 200 and next(stream.events()).type == "game"


def configuration_table() -> set[str]:
    section = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Z_]+)` \|", section, re.MULTILINE))


def test_every_setting_is_in_the_configuration_table() -> None:
    documented = configuration_table()
    settings = {name.upper() for name in Settings.__dataclass_fields__}
    gunicorn = set(
        re.findall(r"""(?:_int\(|environ\.get\()["']([A-Z_]+)["']""", (ROOT / "gunicorn.conf.py").read_text())
    )
    realtime = set(
        re.findall(r"""_int\(["']([A-Z_]+)["']""", (ROOT / "service" / "realtime" / "server.py").read_text())
    )
    start = set(re.findall(r"\$\{([A-Z_]+):-", (ROOT / "bin" / "start").read_text()))
    assert settings and gunicorn and realtime and start
    every = settings | gunicorn | realtime | start
    assert every <= documented, sorted(every - documented)


def tracked_files() -> list[str]:
    """The paths git tracks in this checkout (what a clone holds, whatever a build or a run left beside it)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [path for path in listed.decode().split("\0") if path]


def test_the_layout_names_every_folder_and_package() -> None:
    """The README's layout lists each top-level folder and each package and module of service/ that git tracks."""
    section = README.split("## Layout", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^ *([\w.-]+/?)", section.split("```")[1], re.MULTILINE))
    paths = [path.split("/") for path in tracked_files()]
    folders = {f"{parts[0]}/" for parts in paths if len(parts) > 1 and not parts[0].startswith(".")}
    service = {parts[1] + ("/" if len(parts) > 2 else "") for parts in paths if parts[0] == "service"}
    service -= {"__init__.py", "py.typed"}
    assert folders and service
    assert folders <= named, sorted(folders - named)
    assert service <= named, sorted(service - named)
