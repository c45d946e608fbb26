"""service/config.py and the roles' own settings: an empty value (``FOO=``) means unset."""

from __future__ import annotations

from dataclasses import fields

import pytest

from service.config import ConfigError, Settings
from service.realtime.server import listen_address
from service.store.purge import days_from_env

SETTINGS = [f.name.upper() for f in fields(Settings)]


@pytest.mark.parametrize("value", ["", "  "])
def test_every_setting_given_empty_is_its_default(value: str) -> None:
    """docker-compose's ``FOO:`` and a shell's ``export FOO=`` pass an empty string: never refused,
    never taken literally (an empty DATABASE_URL, LOG_LEVEL or AUTO_MIGRATE was refused)."""
    assert Settings.from_env(dict.fromkeys(SETTINGS, value)) == Settings()


def test_an_empty_value_does_not_hide_a_bad_one_elsewhere() -> None:
    with pytest.raises(ValueError, match="DB_POOL_SIZE"):
        Settings.from_env({"LOG_LEVEL": "", "DB_POOL_SIZE": "abc"})


def test_the_roles_own_settings_given_empty_are_their_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real-time role's BIND and PORT, the worker's and coins-purge's retention days."""
    monkeypatch.setenv("BIND", "")
    monkeypatch.setenv("PORT", "")
    assert listen_address() == {"host": "0.0.0.0", "port": 8000}
    assert days_from_env({"PURGE_FINISHED_AFTER_DAYS": ""}, "PURGE_FINISHED_AFTER_DAYS", 90) == 90


@pytest.mark.parametrize("origin", ["https://coins.example/", "coins.example", "https://coins.example/app", "ftp://x"])
def test_a_cors_origin_a_browser_never_sends_stops_start_up(origin: str) -> None:
    """A browser's Origin has no path, not even "/": such an entry would never match, and every call
    from that front end would fail its CORS check with nothing said at the start."""
    with pytest.raises(ConfigError, match=r"^CORS_ORIGINS: .* is not an origin"):
        Settings.from_env({"CORS_ORIGINS": f"https://ok.example, {origin}"})


def test_cors_origins_with_ports_and_many_pass() -> None:
    settings = Settings.from_env({"CORS_ORIGINS": "https://coins.example, http://localhost:5173,https://[::1]:8443"})
    assert settings.cors_origins == ("https://coins.example", "http://localhost:5173", "https://[::1]:8443")


@pytest.mark.parametrize(("name", "value"), [("PORT", "83966"), ("PORT", "65536"), ("BIND", "127.0.0.1:83966")])
def test_the_real_time_role_refuses_a_port_past_65535(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    """uvloop listened on the port modulo 65536 (83966: 18430) while the log said 83966."""
    monkeypatch.delenv("BIND", raising=False)
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit, match=f"coins-realtime: {name} must be"):
        listen_address()
