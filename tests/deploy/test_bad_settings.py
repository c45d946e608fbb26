"""A malformed setting stops the web role's start with one line naming it, and a non-zero status:
never a traceback (the worker and real-time roles' commands: tests/worker, tests/realtime)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.server import free_port

from .conftest import ROOT, SERVER_VARIABLES

START_SECONDS = 60


def run(command: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``command`` from the repository root, on a database of its own, with ``env`` added."""
    venv_bin = str(Path(sys.executable).parent)
    settings = {key: value for key, value in os.environ.items() if key not in SERVER_VARIABLES}
    (tmp_path / "metrics").mkdir(exist_ok=True)
    settings.update(
        PATH=f"{venv_bin}{os.pathsep}{settings.get('PATH', '/usr/bin:/bin')}",
        DATABASE_URL=f"sqlite:///{tmp_path / 'coins.sqlite3'}",
        BIND=f"127.0.0.1:{free_port()}",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
        WEB_CONCURRENCY="2",
    )
    settings.update(env)
    return subprocess.run(
        command, cwd=ROOT, env=settings, capture_output=True, text=True, timeout=START_SECONDS, check=False
    )


def assert_one_line(result: subprocess.CompletedProcess[str], line: str) -> None:
    assert result.returncode != 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert line in result.stderr.splitlines(), result.stderr


def test_the_start_script_names_a_web_concurrency_that_is_no_number(tmp_path: Path) -> None:
    """gunicorn reads WEB_CONCURRENCY as it is imported, before gunicorn.conf.py: bin/start checks it."""
    result = run(["bin/start"], tmp_path, WEB_CONCURRENCY="abc", AUTO_MIGRATE="false")
    assert_one_line(result, "bin/start: WEB_CONCURRENCY must be a whole number, not 'abc'")


def test_the_start_script_names_a_migrate_wait_that_is_no_number(tmp_path: Path) -> None:
    """coins-migrate's own refusal named its option (--wait) in an argparse usage, not the setting."""
    result = run(["bin/start"], tmp_path, MIGRATE_WAIT_SECONDS="abc")
    assert_one_line(result, "bin/start: MIGRATE_WAIT_SECONDS must be a whole number of seconds, not 'abc'")
    assert "usage" not in result.stderr


def test_gunicorn_names_a_bad_service_setting_once_before_any_worker_boots(tmp_path: Path) -> None:
    result = run(["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"], tmp_path, DB_POOL_SIZE="abc", AUTO_MIGRATE="false")
    assert_one_line(result, "gunicorn.conf.py: DB_POOL_SIZE must be a whole number, not 'abc'")
    assert "Booting worker" not in result.stderr


def test_gunicorn_names_a_bind_without_a_port(tmp_path: Path) -> None:
    """As coins-realtime does; gunicorn itself took it for a host name and tried its port 8000 for 5 s."""
    result = run(["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"], tmp_path, BIND="nonsense", AUTO_MIGRATE="false")
    assert_one_line(result, "gunicorn.conf.py: BIND must be host:port or unix:/path, not 'nonsense'")
    assert "Booting worker" not in result.stderr


def test_gunicorn_names_an_access_log_it_cannot_make(tmp_path: Path) -> None:
    result = run(
        ["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
        tmp_path,
        ACCESS_LOG="/nonexistent/a.log",
        AUTO_MIGRATE="false",
    )
    assert_one_line(
        result,
        "gunicorn.conf.py: ACCESS_LOG must be '-' or a file in a directory that exists, not '/nonexistent/a.log'",
    )


def test_gunicorn_names_a_port_past_65535(tmp_path: Path) -> None:
    """gunicorn's bind() stopped with an OverflowError's traceback."""
    result = run(
        ["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"], tmp_path, BIND="", PORT="83966", AUTO_MIGRATE="false"
    )
    assert_one_line(result, "gunicorn.conf.py: PORT must be between 0 and 65535, not 83966")
    result = run(
        ["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"], tmp_path, BIND="127.0.0.1:83966", AUTO_MIGRATE="false"
    )
    assert_one_line(result, "gunicorn.conf.py: BIND must be host:port or unix:/path, not '127.0.0.1:83966'")


def test_the_wsgi_module_names_a_bad_service_setting(tmp_path: Path) -> None:
    """Served by anything else (``flask --app wsgi``): one line, and gunicorn's "App failed to load" status."""
    result = run([sys.executable, "-c", "import wsgi"], tmp_path, MAX_REQUEST_BYTES="16k")
    assert_one_line(result, "wsgi.py: MAX_REQUEST_BYTES must be a whole number, not '16k'")
    assert result.returncode == 4
