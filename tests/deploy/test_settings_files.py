"""gunicorn.conf.py and docker-compose.yml: the values they produce from the environment."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest
from gunicorn.config import Config

from .conftest import ROOT

GUNICORN_VARIABLES = (
    "BIND",
    "PORT",
    "WEB_CONCURRENCY",
    "WORKER_CONNECTIONS",
    "STREAMS_PER_WORKER",
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
    assert settings["worker_class"] == "gthread" and settings["threads"] == 500 + 1000  # streams + others
    assert settings["worker_connections"] == 2 * settings["threads"]  # as many idle keep-alive connections


@pytest.mark.parametrize(
    ("env", "setting", "value"),
    [
        ({"PORT": "9000"}, "bind", ["0.0.0.0:9000"]),
        ({"PORT": "9000", "BIND": "127.0.0.1:7000"}, "bind", ["127.0.0.1:7000"]),
        ({"WEB_CONCURRENCY": "3"}, "workers", 3),
        ({"WORKER_CONNECTIONS": "200"}, "threads", 500 + 200),
        ({"STREAMS_PER_WORKER": "50"}, "threads", 50 + 1000),
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
    service, db = compose["services"]["service"], compose["services"]["db"]
    assert service["build"] == "."
    assert service["environment"]["DATABASE_URL"].startswith("postgresql://")
    assert "@db:5432/" in service["environment"]["DATABASE_URL"]
    assert service["depends_on"]["db"]["condition"] == "service_healthy"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
