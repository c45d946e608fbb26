"""The committed openapi.yaml is exactly the spec the code serves: regenerate it with every API change."""

from __future__ import annotations

import difflib
from pathlib import Path

import yaml
from flask import Flask
from flask.testing import FlaskClient

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi.yaml"
REGENERATE = "flask --app wsgi openapi write --format=yaml openapi.yaml"


def served_spec_yaml(app: Flask, tmp_path: Path) -> str:
    """The spec as `flask openapi write` writes it (the command that makes the committed file)."""
    out = tmp_path / "openapi.yaml"
    result = app.test_cli_runner().invoke(args=["openapi", "write", "--format=yaml", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_text()


def test_committed_spec_is_the_served_spec(app: Flask, tmp_path: Path) -> None:
    served = served_spec_yaml(app, tmp_path)
    committed = SPEC_FILE.read_text()
    if served != committed:
        diff = "".join(
            difflib.unified_diff(
                committed.splitlines(keepends=True), served.splitlines(keepends=True), "openapi.yaml", "served", n=2
            )
        )
        raise AssertionError(f"openapi.yaml is stale: run `{REGENERATE}` and commit it.\n{diff[:6000]}")


def test_served_json_is_the_same_document(client: FlaskClient) -> None:
    """/openapi.json (what tools fetch from a running server) says what the file says."""
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.json == yaml.safe_load(SPEC_FILE.read_text())
