"""The coins-client package (clients/python) as its users get it, for the tests that use it (tests/clients,
the examples): its REST part generated from openapi.yaml (clients/python/generate.py, with the pinned
openapi-python-client of the test extras) into a temporary copy of the package, built once per process."""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON_CLIENT = ROOT / "clients" / "python"


@functools.cache
def package_directory() -> Path:
    """A directory holding the package ``coins_client``, generated; removed when the process ends."""
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


def environment() -> dict[str, str]:
    """The environment of a subprocess (an example) that imports ``coins_client`` from the generated package."""
    return {**os.environ, "PYTHONPATH": str(package_directory())}
