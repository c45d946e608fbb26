"""tests/clients: the coins-client package (clients/python) as its users get it.

At collection the REST part is generated from openapi.yaml (clients/python/generate.py, with the pinned
openapi-python-client of the test extras) into a temporary copy of the package, which is put first on
sys.path: the tests import ``coins_client`` and use its public API only."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tests.contract.live import live_server
from tests.support.client_package import PYTHON_CLIENT as PYTHON_CLIENT  # for test_live
from tests.support.client_package import package_directory

PACKAGE_DIRECTORY = package_directory()
sys.path.insert(0, str(PACKAGE_DIRECTORY))


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service on a free port of 127.0.0.1 (the README's one port: web app and streams), SQLite."""
    with live_server(tmp_path_factory.mktemp("live")) as url:
        yield url
