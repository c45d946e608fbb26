"""service/config.py and the roles' own settings: an empty value (``FOO=``) means unset."""

from __future__ import annotations

from dataclasses import fields

import pytest

from service.config import Settings
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
