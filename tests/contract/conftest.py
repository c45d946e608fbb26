"""Contract-test fixtures: a live server (the README's one port) shared by the tests of a module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .live import live_server


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("live")) as url:
        yield url
