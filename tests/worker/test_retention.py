"""The retention purge on the worker's interval (service/worker/retention.py): due at once, then once
every interval; what it deletes is coins-purge's; a failed purge leaves the moves alone and is tried
again at the next interval."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service.config import ConfigError, Settings
from service.store import Database, DatabaseUnavailable
from service.worker import retention as retention_module
from service.worker.main import _retention as wired_retention
from service.worker.retention import Retention
from tests.store.test_purge import NOW, _game, _rows

HOUR = timedelta(hours=1)


@pytest.fixture
def db(app) -> Database:
    return app.extensions["coins.db"]


def _retention(db: Database) -> Retention:
    return Retention(db, every=HOUR, finished_after=timedelta(days=90), abandoned_after=timedelta(days=30))


def test_the_first_pass_purges_then_once_every_interval(client, db):
    old, recent = _game(client, db, status="finished", days_ago=91), _game(client, db, status="finished", days_ago=60)
    retention = _retention(db)
    purged = retention.run_if_due(NOW)
    assert purged is not None and (purged.finished, purged.abandoned) == (1, 0)
    assert _rows(db, old)["games"] == 0 and _rows(db, recent)["games"] == 1
    stale = _game(client, db, status="playing", days_ago=31)
    assert retention.run_if_due(NOW + HOUR - timedelta(seconds=1)) is None  # not due yet: nothing read
    assert _rows(db, stale)["games"] == 1
    again = retention.run_if_due(NOW + HOUR)
    assert again is not None and (again.finished, again.abandoned) == (0, 1)
    assert _rows(db, stale)["games"] == 0


def test_a_failed_purge_is_logged_and_tried_at_the_next_interval(client, db, monkeypatch, caplog):
    old = _game(client, db, status="finished", days_ago=91)
    retention = _retention(db)
    real = retention_module.purge

    def unavailable(*args, **kwargs):
        raise DatabaseUnavailable("the database is away")

    monkeypatch.setattr(retention_module, "purge", unavailable)
    assert retention.run_if_due(NOW) is None
    assert "the retention purge failed: DatabaseUnavailable" in caplog.text
    monkeypatch.setattr(retention_module, "purge", real)
    assert retention.run_if_due(NOW + timedelta(minutes=30)) is None  # the interval holds after a failure too
    assert _rows(db, old)["games"] == 1
    assert retention.run_if_due(NOW + HOUR) is not None
    assert _rows(db, old)["games"] == 0


def test_the_interval_is_a_setting_and_zero_runs_none(db, monkeypatch):
    assert Settings.from_env({"PURGE_EVERY_MINUTES": "15"}).purge_every_minutes == 15
    for bad in ("-1", "10081", "often"):
        with pytest.raises(ConfigError, match="PURGE_EVERY_MINUTES"):
            Settings.from_env({"PURGE_EVERY_MINUTES": bad})
    assert wired_retention(Settings(purge_every_minutes=0), db) is None
    monkeypatch.setenv("PURGE_FINISHED_AFTER_DAYS", "7")
    wired = wired_retention(Settings(purge_every_minutes=60), db)
    assert wired is not None and wired.every == HOUR and wired.finished_after == timedelta(days=7)
    assert wired.abandoned_after == timedelta(days=30)
