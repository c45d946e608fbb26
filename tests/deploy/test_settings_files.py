"""gunicorn.conf.py and docker-compose.yml: the values they produce from the environment."""

from __future__ import annotations

import gc
import runpy
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gunicorn.config import Config

from tests.support.sse import EventStream

from .conftest import ROOT, running_server


def web_database(tmp_path: Path) -> str:
    """The SQLite file the web role of ``tmp_path / "web"`` serves (running_server's default)."""
    return f"sqlite:///{tmp_path / 'web' / 'coins.sqlite3'}"


GUNICORN_VARIABLES = (
    "BIND",
    "PORT",
    "WEB_CONCURRENCY",
    "WORKER_CONNECTIONS",
    "GUNICORN_TIMEOUT",
    "GUNICORN_GRACEFUL_TIMEOUT",
    "GUNICORN_KEEPALIVE",
    "GUNICORN_MAX_REQUESTS",
    "ACCESS_LOG",
)


def gunicorn_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> dict[str, Any]:
    """gunicorn.conf.py's settings, checked by gunicorn's own validators."""
    for name in GUNICORN_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))  # or it makes one
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    namespace = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    config = Config()
    for name, value in namespace.items():
        if name in config.settings and not callable(value):
            config.set(name, value)
    return {name: config.settings[name].get() for name in config.settings}


def test_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    settings = gunicorn_settings(monkeypatch, tmp_path)
    assert settings["bind"] == ["0.0.0.0:8000"]
    assert 3 <= settings["workers"] <= 12
    assert settings["timeout"] == 30 and settings["graceful_timeout"] == 30
    assert settings["preload_app"] is False
    assert settings["worker_class"] == "service.api.worker.Worker"  # gthread, answering unreadable requests
    assert settings["threads"] == 1000  # the web role holds no stream: every thread answers requests
    assert settings["worker_connections"] == 2 * settings["threads"]  # as many idle keep-alive connections
    if "control_socket_disable" in settings:  # gunicorn 27 on: no control socket at a path shared per user
        assert settings["control_socket_disable"] is True


def test_a_worker_freezes_what_it_loaded_out_of_the_collectors_scans(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Once a worker has loaded the app, its objects are moved out of the collector's generations
    (gc.freeze): full collections then scan only what requests leave behind."""
    for name in GUNICORN_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))
    hook = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["post_worker_init"]
    assert Config().settings["post_worker_init"].validator(hook) is hook  # a hook gunicorn takes
    before = gc.get_freeze_count()
    try:
        hook(object())
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


@pytest.mark.parametrize(
    ("env", "setting", "value"),
    [
        ({"PORT": "9000"}, "bind", ["0.0.0.0:9000"]),
        ({"PORT": "9000", "BIND": "127.0.0.1:7000"}, "bind", ["127.0.0.1:7000"]),
        ({"WEB_CONCURRENCY": "3"}, "workers", 3),
        ({"WORKER_CONNECTIONS": "200"}, "threads", 200),
        ({"GUNICORN_TIMEOUT": "60"}, "timeout", 60),
        ({"GUNICORN_MAX_REQUESTS": "1000"}, "max_requests_jitter", 100),
        ({"ACCESS_LOG": "-"}, "accesslog", "-"),
    ],
)
def test_environment_overrides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str], setting: str, value: object
) -> None:
    assert gunicorn_settings(monkeypatch, tmp_path, **env)[setting] == value


def test_a_bad_number_stops_start_up_with_its_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="WEB_CONCURRENCY"):
        gunicorn_settings(monkeypatch, tmp_path, WEB_CONCURRENCY="many")


def test_compose_runs_the_image_against_a_healthy_postgres() -> None:
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service, db = compose["services"]["web"], compose["services"]["db"]
    assert service["build"] == "."
    assert service["environment"]["DATABASE_URL"].startswith("postgresql://")
    assert "@db:5432/" in service["environment"]["DATABASE_URL"]
    assert service["depends_on"]["db"]["condition"] == "service_healthy"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])


def test_compose_checks_the_health_of_the_roles_that_serve_http_only() -> None:
    """The image's HEALTHCHECK asks /healthz on PORT: the worker serves no HTTP, so its check is off
    (it would always be unhealthy); the web and real-time roles keep the image's."""
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert services["worker"]["healthcheck"] == {"disable": True} and services["worker"]["expose"] == []
    assert "healthcheck" not in services["web"] and "healthcheck" not in services["realtime"]


@pytest.mark.slow
def test_compose_runs_every_role_from_the_image(tmp_path: Path) -> None:
    """Each role's command as docker-compose.yml gives it (the image's own CMD for the web role), run
    in a replica of the image's /app on SQLite: the web role answers, the real-time role holds a stream."""
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert "command" not in services["web"]  # the image's CMD: bin/start, migrate then gunicorn
    (tmp_path / "web").mkdir()
    (tmp_path / "realtime").mkdir()
    with running_server(tmp_path / "web", env={"TRUSTED_PROXY_HOPS": "1"}) as web:
        status, _, game = web.request("POST", "/v1/games", {})
        assert status == 201, game
        command, database = services["realtime"]["command"], web_database(tmp_path)
        with (
            running_server(tmp_path / "realtime", command, database_url=database) as feeds,
            EventStream(feeds.port, game["id"], timeout=10) as stream,
        ):
            assert stream.status == 200 and next(stream.events()).type == "game"


def test_an_empty_value_is_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``FOO=`` (docker-compose's ``FOO:`` or a shell's ``export FOO=``) means unset, as in service/config.py."""
    empty = {name: "" for name in GUNICORN_VARIABLES if name not in ("BIND", "PORT")}
    settings = gunicorn_settings(monkeypatch, tmp_path, **empty, BIND=" ", PORT="", LOG_LEVEL="")
    defaults = gunicorn_settings(monkeypatch, tmp_path)
    assert settings == defaults


def _start_stand_ins(tmp_path: Path, more: str = "") -> Path:
    """A folder of stand-ins for what bin/start runs, coins-migrate and gunicorn: each prints its name and
    arguments, then ``more`` (shell words)."""
    stand_ins = tmp_path / "bin"
    stand_ins.mkdir()
    for name in ("coins-migrate", "gunicorn"):
        script = stand_ins / name
        script.write_text(f'#!/bin/sh\necho "{name} $*{more}"\n')
        script.chmod(0o755)
    return stand_ins


def test_the_start_script_takes_an_empty_value_for_the_default(tmp_path: Path) -> None:
    """bin/start runs coins-migrate and gunicorn (stand-ins here, which say what they were given)."""
    stand_ins = _start_stand_ins(tmp_path, " WEB_CONCURRENCY=${WEB_CONCURRENCY-unset}")
    env = {"PATH": f"{stand_ins}:/usr/bin:/bin", "AUTO_MIGRATE": "", "MIGRATE_WAIT_SECONDS": "", "WEB_CONCURRENCY": ""}
    result = subprocess.run(
        [str(ROOT / "bin" / "start")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30, check=True
    )
    assert result.stdout.splitlines() == [
        "coins-migrate --wait 30 WEB_CONCURRENCY=unset",
        "gunicorn -c gunicorn.conf.py wsgi:app WEB_CONCURRENCY=unset",  # gunicorn.conf.py's default
    ]


def test_the_metrics_directory_it_made_is_removed_at_the_exit_after_a_reload(monkeypatch: pytest.MonkeyPatch) -> None:
    """gunicorn runs gunicorn.conf.py again on SIGHUP, in the master: the directory the first run made is in
    PROMETHEUS_MULTIPROC_DIR by then, and was left behind in /dev/shm at the exit (one a reloaded master)."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")  # unset (an empty value is), and restored after the test
    monkeypatch.setenv("COINS_METRICS_DIR_MADE", "")
    first = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    made = Path(first["os"].environ["PROMETHEUS_MULTIPROC_DIR"])
    assert made.is_dir()
    reloaded = runpy.run_path(str(ROOT / "gunicorn.conf.py"))  # SIGHUP
    assert reloaded["os"].environ["PROMETHEUS_MULTIPROC_DIR"] == str(made)  # the workers' files stay where they were
    reloaded["on_exit"](None)
    assert not made.exists()


def test_the_start_script_reads_auto_migrate_and_the_wait_as_the_service_does(tmp_path: Path) -> None:
    """Spaces around a value are dropped (service/config.py drops them): " false " left coins-migrate to run."""
    stand_ins = _start_stand_ins(tmp_path)

    def start(**env: str) -> list[str]:
        env = {"PATH": f"{stand_ins}:/usr/bin:/bin", **env}
        result = subprocess.run(
            [str(ROOT / "bin" / "start")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30, check=True
        )
        return result.stdout.splitlines()

    assert start(AUTO_MIGRATE=" False ") == ["gunicorn -c gunicorn.conf.py wsgi:app"]
    assert start(AUTO_MIGRATE=" yes", MIGRATE_WAIT_SECONDS=" 5 ")[0] == "coins-migrate --wait 5"
