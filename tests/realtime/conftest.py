"""A one-second heartbeat for the real-time role's tests."""

from __future__ import annotations

import pytest

from service.config import Settings
from tests.support.working_client import NO_PACE


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, rate_limits="off", stream_heartbeat_seconds=1, **NO_PACE)
