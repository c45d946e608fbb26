"""Plain functions that load the hottest request bodies, for throughput.

A play's body is ``{"card": "<code>"}``. Loading it through webargs and marshmallow costs some
60 µs per request, several times what the rest of reading the request does. At run time
:class:`~service.api.smorest_overrides.Blueprint` first offers a JSON body whose schema has a function in
:data:`LOADERS` to that function. It returns the loaded arguments (what the schema's ``load``
returns for the same body) only for a body it is sure is valid; for anything else it returns
None, and the body goes through webargs and the schema as usual, which answer any error in
full. tests/api/test_loaders.py holds each function to its schema's ``load``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import marshmallow as ma

from ..engine import CARD_BY_CODE
from .argument_schemas import PlayCardSchema

__all__ = ["LOADERS", "Loader"]

Loader = Callable[[Any], "dict[str, Any] | None"]


def _play_card(body: Any) -> dict[str, Any] | None:
    if type(body) is not dict or len(body) != 1:
        return None
    code = body.get("card")
    card = CARD_BY_CODE.get(code) if type(code) is str else None
    return None if card is None else {"card": card}


LOADERS: dict[type[ma.Schema], Loader] = {
    PlayCardSchema: _play_card,
}
