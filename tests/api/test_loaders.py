"""The plain loaders (service.api.loaders) load exactly what the schemas load, or step aside.

For any JSON value a loader either returns None (the body then goes through webargs and the
schema, which answer its errors) or returns what the schema's ``load`` returns. Every valid
body the game can send must take the plain path, or the loader would be dead weight.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.api import smorest_overrides
from service.api.argument_schemas import PlayCardSchema
from service.api.loaders import LOADERS
from service.engine import CARD_CODES

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
codes = st.sampled_from(CARD_CODES)
near_codes = codes.map(str.upper) | codes.map(lambda code: code + " ") | codes.map(lambda code: code.replace("-", "_"))
play_bodies = (
    st.fixed_dictionaries({"card": codes | near_codes | json_values})
    | st.fixed_dictionaries({"card": codes}, optional={"seat": json_values, "Card": codes})
    | json_values
)


def _schema_load(schema: ma.Schema, body: Any) -> dict[str, Any] | None:
    try:
        return schema.load(body)  # type: ignore[no-any-return]
    except ma.ValidationError:
        return None


@settings(max_examples=400, deadline=None)
@given(body=play_bodies)
def test_the_play_loader_agrees_with_the_schema(body):
    loaded = LOADERS[PlayCardSchema](body)
    if loaded is not None:
        assert loaded == _schema_load(PlayCardSchema(), body)


@pytest.mark.parametrize("code", CARD_CODES)
def test_every_card_takes_the_plain_path(code):
    assert LOADERS[PlayCardSchema]({"card": code}) == PlayCardSchema().load({"card": code})


def test_a_valid_play_skips_webargs_and_an_invalid_one_does_not(new_table, monkeypatch):
    table = new_table()
    table.deal(0)
    seat = table.state()["turn"]
    parsed = []
    real_parse = smorest_overrides.Blueprint.ARGUMENTS_PARSER.parse
    monkeypatch.setattr(
        smorest_overrides.Blueprint.ARGUMENTS_PARSER, "parse", lambda *a, **k: parsed.append(a) or real_parse(*a, **k)
    )
    response = table.client.post(f"/v1/games/{table.id}/plays", json={"card": "two"}, headers=table.auth(seat))
    assert response.status_code == 422 and response.json["code"] == "validation_error"
    assert len(parsed) == 1  # the invalid body went through webargs, which explained the error
    response = table.play(seat, table.hand(seat)[0])
    assert response.status_code == 201
    assert len(parsed) == 1  # the valid one did not
