"""tests/clients: the coins-client package (clients/python) as its users get it.

At collection the REST part is generated from openapi.yaml (clients/python/generate.py, with the pinned
openapi-python-client of the test extras) into a temporary copy of the package, which is put first on
sys.path: the tests import ``coins_client`` and use its public API only."""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.contract.live import live_server

ROOT = Path(__file__).resolve().parents[2]
PYTHON_CLIENT = ROOT / "clients" / "python"


def _build_package() -> Path:
    """The package, generated, in a directory of its own; removed when the tests end."""
    spec = importlib.util.spec_from_file_location("coins_client_generate", PYTHON_CLIENT / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    directory = Path(tempfile.mkdtemp(prefix="coins-client-"))
    atexit.register(shutil.rmtree, directory, True)
    package = directory / "coins_client"
    shutil.copytree(PYTHON_CLIENT / "src" / "coins_client", package, ignore=shutil.ignore_patterns(*generate.GENERATED))
    generate.generate(into=package)
    return directory


PACKAGE_DIRECTORY = _build_package()
sys.path.insert(0, str(PACKAGE_DIRECTORY))


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service on a free port of 127.0.0.1 (the README's one port: web app and streams), SQLite."""
    with live_server(tmp_path_factory.mktemp("live")) as url:
        yield url
