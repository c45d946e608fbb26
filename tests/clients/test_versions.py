"""Each package's version follows the contract: MAJOR.MINOR is openapi.yaml's info.version's, and its
changelog tells of that version."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = yaml.safe_load((ROOT / "openapi.yaml").read_text())["info"]["version"]


def major_minor(version: str) -> list[str]:
    return version.split(".")[:2]


def test_the_python_package_follows_the_contract() -> None:
    version = tomllib.loads((ROOT / "clients/python/pyproject.toml").read_text())["project"]["version"]
    assert major_minor(version) == major_minor(CONTRACT)
    assert f"\n## {version}\n" in (ROOT / "clients/python/CHANGELOG.md").read_text()


def test_the_typescript_package_follows_the_contract() -> None:
    version = json.loads((ROOT / "clients/typescript/package.json").read_text())["version"]
    assert major_minor(version) == major_minor(CONTRACT)
    assert f"\n## {version}\n" in (ROOT / "clients/typescript/CHANGELOG.md").read_text()
    assert f'CONTRACT_VERSION = "{CONTRACT}"' in (ROOT / "clients/typescript/src/index.ts").read_text()


def test_the_docs_name_the_files_the_builds_write_now() -> None:
    """A wheel or tarball named with a version in the docs is the one the build writes today (a
    reader who copies an install command gets the file that is there)."""
    python = tomllib.loads((ROOT / "clients/python/pyproject.toml").read_text())["project"]["version"]
    typescript = json.loads((ROOT / "clients/typescript/package.json").read_text())["version"]
    named = {
        r"coins_client-(\d+\.\d+\.\d+)-py3-none-any\.whl": python,
        r"coins-client-(\d+\.\d+\.\d+)\.tgz": typescript,
    }
    docs = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "clients").glob("*/README.md")]
    for path in docs:
        text = path.read_text()
        for pattern, version in named.items():
            for found in re.findall(pattern, text):
                assert found == version, (
                    f"{path.relative_to(ROOT)} names version {found} of a file the build writes as {version}"
                )
