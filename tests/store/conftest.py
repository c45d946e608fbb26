"""The store's tests: the migrations, and what each role does with a database not migrated, start
from an empty database (``database_url`` here is the suite's ``empty_database_url``)."""

from __future__ import annotations

import pytest


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    return empty_database_url
